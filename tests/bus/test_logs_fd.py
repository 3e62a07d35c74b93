"""CAN FD frames through the logs: every FD length with BRS and ESI on and off, base and
extended IDs, sent on a simulated CAN FD bus, written by servobus's recorder and read back by
python-can's own readers, servobus's reader and (candump .log) cantools; their load against
hand-counted bits; bad FD input as `error: FILE:LINE: ...`, exit 2."""

import re
from datetime import datetime
from pathlib import Path

import can
import cantools
import pytest
from can.io import blf
from cantools.database.can import Database, Message, Signal

from servobus.bus.frame_bits_fd import FD_LENGTHS
from servobus.bus.load_meter import LoadMeter
from servobus.bus.log_reader import LogReadError, read_log
from servobus.bus.medium import Medium
from servobus.bus.recorder import MediumRecorder
from servobus.bus.scheduler import Environment
from servobus.tools.cli import main

SUFFIXES = (".log", ".asc", ".blf")
DATA_BITRATE = 5_000_000
Fields = tuple[int, bool, bool, bool, bool, bool, bytes]


def fd_frames() -> list[can.Message]:
    """One frame per FD length; BRS and ESI walk through all four pairs, every third ID is
    extended; one classic frame among them."""
    out = [can.Message(arbitration_id=0x700 + i if i % 3 else 0x1ABC_0000 + i,
                       is_extended_id=not i % 3, is_fd=True, bitrate_switch=bool(i & 1),
                       error_state_indicator=bool(i & 2),
                       data=bytes((7 * i + k) & 0xFF for k in range(length)))
           for i, length in enumerate(FD_LENGTHS)]
    return [*out, can.Message(arbitration_id=0x7F0, is_extended_id=False, data=b"\x12\x34")]


def fields(msg: can.Message) -> Fields:
    """What a log must keep of a frame (timestamps compared apart)."""
    return (msg.arbitration_id, msg.is_extended_id, msg.is_fd, msg.bitrate_switch,
            msg.error_state_indicator, msg.is_remote_frame, bytes(msg.data))


def sent_on_fd_bus(path: Path, frames: list[can.Message]) -> list[can.Message]:
    """The frames sent on a simulated 1 / 5 Mbit/s CAN FD bus recorded to `path`; returns
    what the receiving node got (the recorder's source of truth)."""
    medium = Medium(Environment(), data_bitrate=DATA_BITRATE)
    got: list[can.Message] = []
    sender = medium.attach("TX", None)
    medium.attach("RX", got.append)
    recorder = MediumRecorder(medium, path)
    for msg in frames:
        medium.submit(sender, msg)
    medium.env.run()
    recorder.close()
    assert recorder.frames == len(frames) == len(got)
    return got


def relative(messages: list[can.Message]) -> list[float]:
    return [m.timestamp - messages[0].timestamp for m in messages]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_fd_frames_round_trip_through_every_reader(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"fd{suffix}"
    got = sent_on_fd_bus(path, fd_frames())
    expected = [fields(m) for m in got]
    assert sorted(expected) == sorted(fields(m) for m in fd_frames())  # the bus kept them
    ours = read_log(path)
    theirs = list(can.LogReader(path))
    assert [fields(m) for m in ours] == expected
    if suffix == ".asc":  # python-can's ASCReader takes a 0-byte CANFD line for a remote frame
        empty = next(i for i, m in enumerate(got) if m.is_fd and not m.data)
        expected[empty] = (*expected[empty][:5], True, b"")
    assert [fields(m) for m in theirs] == expected
    for read in (ours, theirs):
        assert relative(read) == pytest.approx(relative(got), abs=1.01e-6)  # µs in text logs


def test_cantools_reads_the_candump_log_and_decodes_an_fd_message(tmp_path: Path) -> None:
    big = Message(frame_id=0x123, name="BIG", length=64, is_fd=True, signals=[
        Signal("first", 0, 16), Signal("middle", 256, 32), Signal("last", 496, 16)])
    db = Database(messages=[big])
    values = {"first": 0xBEEF, "middle": 123_456_789, "last": 7}
    frames = [*fd_frames(), can.Message(arbitration_id=0x123, is_extended_id=False, is_fd=True,
                                        bitrate_switch=True, data=db.encode_message(0x123, values))]
    path = tmp_path / "fd.log"
    got = sent_on_fd_bus(path, frames)
    with path.open() as file:
        parsed = list(cantools.logreader.Parser(file))
    # cantools' DataFrame has no FD, BRS or ESI: ID, ID format, data and time are what it keeps
    assert [(f.frame_id, f.is_extended_frame, f.data) for f in parsed] == \
        [(m.arbitration_id, m.is_extended_id, bytes(m.data)) for m in got]
    stamps = [f.timestamp for f in parsed]  # a candump -l time is absolute: a datetime
    assert [t.timestamp() for t in stamps if isinstance(t, datetime)] == pytest.approx(
        [m.timestamp for m in got], abs=0.51e-6)  # candump's µs
    frame = next(f for f in parsed if f.frame_id == 0x123)
    assert db.decode_message(frame.frame_id, frame.data) == values


def test_an_fd_frames_load_is_its_exact_time_at_both_bit_rates() -> None:
    """ID 0x123, 8 x 0x00, BRS (tests/bus/test_frame_bits_fd.py's oracle): 29 nominal bits at
    1 us and 110 data bits at 0.2 us = 51 us, ending 3 us (the interframe space) after its end
    of frame; without BRS all 139 bits are nominal: 139 us."""
    end_s = 0.001
    brs = can.Message(timestamp=end_s, arbitration_id=0x123, is_extended_id=False, is_fd=True,
                      bitrate_switch=True, data=bytes(8))
    meter = LoadMeter(1_000_000, 0.001, data_bitrate=DATA_BITRATE)
    meter.add(brs)
    report = meter.report()
    assert (report["bits"], meter.first, meter.last) == (139, 1_003_000 - 51_000, 1_003_000)
    nominal = LoadMeter(1_000_000, 0.001, data_bitrate=DATA_BITRATE)
    nominal.add(can.Message(timestamp=end_s, arbitration_id=0x123, is_extended_id=False,
                            is_fd=True, data=bytes(8)))
    assert (nominal.first, nominal.last) == (1_003_000 - 139_000, 1_003_000)
    with pytest.raises(ValueError, match=re.escape("a CAN FD frame (ID 0x123, at 0.001000 s) on "
                                                   "a classic CAN bus (1000 kbit/s): its load")):
        LoadMeter().add(brs)


@pytest.mark.parametrize("suffix", [".blf", ".log", ".asc"])
def test_the_load_of_an_fd_log_is_the_load_the_bus_charged(tmp_path: Path, suffix: str) -> None:
    """A meter reading the log agrees with one tapping the medium, bit for bit and ns for ns:
    .blf stamps are ns, candump's and .asc's us, where back-to-back FD frames at 5 Mbit/s end on
    0.2 us steps (each starts at the previous one's end)."""
    path = tmp_path / f"fd{suffix}"
    medium = Medium(Environment(), data_bitrate=DATA_BITRATE)
    live = LoadMeter(1_000_000, 0.01, data_bitrate=DATA_BITRATE)
    medium.taps.append(live.tap)
    sender = medium.attach("TX", None)
    medium.attach("RX", lambda _: None)
    recorder = MediumRecorder(medium, path)
    for msg in fd_frames():
        medium.submit(sender, msg)
    medium.env.run()
    recorder.close()
    logged = LoadMeter(1_000_000, 0.01, data_bitrate=DATA_BITRATE).add_all(read_log(path))
    assert logged.report()["bits"] == live.report()["bits"]
    assert logged.busy_ns == live.busy_ns and logged.overlapping == 0


BAD_CANDUMP = [
    ("(1.000000) can0 123##1" + "00" * 9, "a CAN FD frame of 9 data bytes (ID 0x123): an FD "
     "frame holds 0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64 bytes"),
    ("(1.000000) can0 123##0" + "00" * 65, "a CAN FD frame of 65 data bytes (ID 0x123)"),
]


@pytest.mark.parametrize(("line", "why"), BAD_CANDUMP)
def test_a_bad_fd_length_is_an_error_at_its_line(tmp_path: Path, line: str, why: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.log"
    path.write_text(f"(0.999000) can0 010#00\n{line}\n")
    with pytest.raises(LogReadError, match=re.escape(f"{path}:2: {why}")):
        read_log(path)
    for argv in (["analyze", "timing", "--log", str(path)], ["busload", "--log", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {path}:2: {why}") and "Traceback" not in err


def asc_line(fd_flags: int, brs: str = "1", data_length: int = 2) -> str:
    """A Vector CANFD line of ID 0x123 with the given flags (0x1000 EDL, 0x2000 BRS, 0x10
    remote) and BRS column."""
    data = " ".join(["AB"] * data_length)
    return (f"   1.000000 CANFD   1 Rx        123                                   {brs} 0 "
            f"{data_length:x} {data_length:2} {data}        0    0     {fd_flags:x}        0"
            "        0        0        0        0")


def written_asc(path: Path, *lines: str) -> Path:
    header = ("date Fri Nov 27 20:36:37.245 2026\nbase hex  timestamps absolute\n"
              "internal events logged\nBegin Triggerblock Fri Nov 27 20:36:37.245 2026\n"
              "   0.000000 Start of measurement\n")
    path.write_text(header + "\n".join(lines) + "\nEnd TriggerBlock\n")
    return path


def test_a_canfd_lines_flags_say_fd_or_classic(tmp_path: Path) -> None:
    """EDL set: a CAN FD frame, 0 bytes too; EDL clear: a classic frame on an FD channel."""
    path = written_asc(tmp_path / "flags.asc", asc_line(0x3000), asc_line(0x1000, "0", 0),
                       asc_line(0x0000, "0"))
    assert [fields(m) for m in read_log(path)] == [
        (0x123, False, True, True, False, False, b"\xab\xab"),
        (0x123, False, True, False, False, False, b""),
        (0x123, False, False, False, False, False, b"\xab\xab")]


@pytest.mark.parametrize(("line", "why"), [
    (asc_line(0x2000), "BRS set on a classic CAN frame (ID 0x123): only a CAN FD frame has it"),
    (asc_line(0x1010, "0", 0), "a CAN FD remote frame (ID 0x123): CAN FD has none"),
    (asc_line(0x1000, data_length=9), "a CAN FD frame of 9 data bytes (ID 0x123): an FD frame "
     "holds 0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64 bytes"),
    (asc_line(0x1000).replace(" 2  2 ", " 3  2 "), "a CANFD line of ID 0x123 with DLC 3 and 2 "
     "data bytes (DLC 2 holds 2)"),
])
def test_brs_on_a_classic_frame_or_an_fd_remote_frame_is_an_error_at_its_line(
        tmp_path: Path, line: str, why: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = written_asc(tmp_path / "bad.asc", asc_line(0x1000), line)
    assert main(["log", "replay", str(path), "--interface", "virtual", "--channel", "fd"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {path}:7: {why}\n"


def test_brs_on_a_classic_frame_in_a_blf_is_an_error_at_its_frame(tmp_path: Path) -> None:
    """A CAN_FD_MESSAGE object whose flags hold BRS without EDL (a classic frame) is refused
    (python-can's BLFReader reads the two flags as they stand)."""
    path = tmp_path / "bad.blf"
    frame = can.Message(timestamp=1.0, arbitration_id=0x123, is_extended_id=False, is_fd=True,
                        bitrate_switch=True, data=bytes(8))
    with can.io.BLFWriter(str(path), compression_level=0) as writer:
        writer.on_message_received(frame)

    def packed(fd_flags: int) -> bytes:  # channel 1, no flags, DLC 8, ID, EDL 0x1 BRS 0x2
        return blf.CAN_FD_MSG_STRUCT.pack(1, 0, 8, 0x123, 0, 0, fd_flags, 8, bytes(8))

    raw = path.read_bytes()
    assert raw.count(packed(blf.EDL | blf.BRS)) == 1
    path.write_bytes(raw.replace(packed(blf.EDL | blf.BRS), packed(blf.BRS)))
    with pytest.raises(LogReadError, match=f"^{path}: frame 1: BRS set on a classic CAN frame "
                                           r"\(ID 0x123\): only a CAN FD frame has it$"):
        read_log(path)


def test_replaying_fd_frames_onto_a_classic_bus_warns(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`log replay` of FD frames without --fd: python-can's virtual bus carries them anyway, a
    classic SocketCAN socket would refuse them; the replay says how many and what to give."""
    path = tmp_path / "fd.log"
    path.write_text("(1.000000) can0 123##1" + "00" * 12 + "\n(1.000100) can0 010#01\n")
    assert main(["log", "replay", str(path), "--interface", "virtual", "--channel",
                 "fd-replay"]) == 0
    err = capsys.readouterr().err
    assert f"warning: {path}: 1 CAN FD frames replayed onto a bus opened classic (give --fd" in err
    assert main(["log", "replay", str(path), "--interface", "virtual", "--channel",
                 "fd-replay", "--fd"]) == 0
    assert "warning" not in capsys.readouterr().err
