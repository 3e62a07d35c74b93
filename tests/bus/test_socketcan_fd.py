"""CAN FD on the kernel's CAN stack (vcan0 of MTU 72, as ci/vcan_guest.py sets it up): frames
of every FD length, BRS and ESI on and off, standard and extended IDs, sent through servobus's
socketcan bus arrive intact at a python-can FD socket and in candump's FD form; a classic
socket refuses to send them (saying so) and never receives them."""

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import can
import pytest

from servobus.bus.factory import BusUnavailable, open_bus
from servobus.bus.frame_bits_fd import FD_LENGTHS
from servobus.bus.log_reader import read_log
from servobus.bus.schema import TICK, Schema
from servobus.tools import cmd_log
from servobus.tools.cli import main
from tests.processes import replay_in_thread, when_opened
from tests.socketcan_env import CHANNEL, MARKS, Candump

pytestmark = MARKS
# candump -L's CAN FD frame: (time) interface ID##F DATA, F the FD flags as one hex digit
CANDUMP_FD_LINE = re.compile(r"\((\d+\.\d+)\) (\S+) ([0-9A-F]+)##([0-9A-F])([0-9A-F]*)")
VCAN = ["--interface", "socketcan", "--channel", CHANNEL]
CANFD_BRS, CANFD_ESI, CANFD_FDF = 0x01, 0x02, 0x04  # <linux/can.h> canfd_frame.flags
Frame = tuple[int, bool, bytes, bool, bool, bool]  # ID, extended, data, FD, BRS, ESI


def _fd_frames() -> list[can.Message]:
    """Every FD length (0..8, 12, 16, 20, 24, 32, 48, 64 bytes) with each of BRS and ESI on
    and off, under a standard and an extended ID; each frame's data its own."""
    frames: list[can.Message] = []
    for n, size in enumerate(FD_LENGTHS):
        for flags in range(4):
            for extended in (False, True):
                k = len(frames)
                frames.append(can.Message(
                    arbitration_id=(0x1ABCD000 | k) if extended else 0x100 + k,
                    is_extended_id=extended, is_fd=True,
                    bitrate_switch=bool(flags & CANFD_BRS),
                    error_state_indicator=bool(flags & CANFD_ESI),
                    data=bytes((37 * n + 11 * k + i) & 0xFF for i in range(size))))
    return frames


def _frame(msg: can.Message) -> Frame:
    return (msg.arbitration_id, msg.is_extended_id, bytes(msg.data), msg.is_fd,
            msg.bitrate_switch, msg.error_state_indicator)


def _candump_frames(text: str) -> list[Frame]:
    """The frames of candump -L lines in its FD form (`##`, flags digit, data); any other line,
    or a flag beyond BRS, ESI and FDF (which the kernel may set on every FD frame), fails the
    test."""
    frames = []
    for line in text.splitlines():
        found = CANDUMP_FD_LINE.fullmatch(line)
        assert found, f"not a CAN FD line of candump -L: {line!r}"
        flags = int(found[4], 16)
        assert found[2] == CHANNEL and not flags & ~(CANFD_BRS | CANFD_ESI | CANFD_FDF), line
        frames.append((int(found[3], 16), len(found[3]) == 8, bytes.fromhex(found[5]), True,
                       bool(flags & CANFD_BRS), bool(flags & CANFD_ESI)))
    return frames


@pytest.fixture
def fd_reader() -> Iterator[can.BusABC]:
    """A plain python-can FD socket on vcan0: the receiving side, not servobus's code."""
    with can.Bus(interface="socketcan", channel=CHANNEL, fd=True) as bus:
        yield bus


def test_fd_frames_arrive_intact_at_an_fd_socket_and_candump() -> None:
    sent = _fd_frames()
    assert len(sent) == 16 * 4 * 2 and {len(m.data) for m in sent} >= {12, 20, 48, 64}
    # the reader opened once candump listens: candump's start-up probes are not among its frames
    with Candump() as dump, can.Bus(interface="socketcan", channel=CHANNEL, fd=True) as reader:
        bus = open_bus("socketcan", CHANNEL, fd=True)
        try:
            for msg in sent:
                bus.send(msg, timeout=1.0)
        finally:
            bus.shutdown()
        got = [reader.recv(timeout=5.0) for _ in sent]
        dump.wait_for_frames(len(sent))
        assert reader.recv(timeout=0.2) is None  # and nothing more
    assert [_frame(m) for m in got if m is not None] == [_frame(m) for m in sent]
    assert _candump_frames(dump.out) == [_frame(m) for m in sent]


def test_a_classic_socket_refuses_an_fd_frame_and_never_receives_one(
        fd_reader: can.BusABC) -> None:
    classic = open_bus("socketcan", CHANNEL)
    fd = open_bus("socketcan", CHANNEL, fd=True)
    frame = can.Message(arbitration_id=0x123, is_extended_id=False, is_fd=True,
                        bitrate_switch=True, data=bytes(range(12)))
    try:
        with pytest.raises(can.CanOperationError,
                           match=rf"socketcan {CHANNEL}: CAN FD frame 0x123 \(12 bytes\) "
                                 r"refused: this socket is classic CAN; .*--fd.*mtu 72"):
            classic.send(frame)
        assert fd_reader.recv(timeout=0.3) is None  # nothing reached the bus
        fd.send(frame)
        fd.send(can.Message(arbitration_id=0x124, is_extended_id=False, data=b"\x01"))
        first = classic.recv(timeout=5.0)  # the FD frame is not delivered, the classic one is
        assert first is not None and (first.arbitration_id, first.is_fd) == (0x124, False)
        assert classic.recv(timeout=0.2) is None
    finally:
        classic.shutdown()
        fd.shutdown()


def test_an_fd_frame_of_no_fd_length_is_refused(fd_reader: can.BusABC) -> None:
    """python-can alone would pad 13 bytes to 16 on the wire."""
    bus = open_bus("socketcan", CHANNEL, fd=True)
    try:
        with pytest.raises(can.CanOperationError, match="13 data bytes"):
            bus.send(can.Message(arbitration_id=0x10, is_fd=True, is_extended_id=False,
                                 data=bytes(13)))
    finally:
        bus.shutdown()
    assert fd_reader.recv(timeout=0.2) is None


def _set_mtu(mtu: int) -> None:
    for step in (["down"], ["mtu", str(mtu)], ["up"]):
        subprocess.run(["ip", "link", "set", CHANNEL, *step], check=True)


def test_an_fd_bus_on_a_classic_interface_is_refused_at_open() -> None:
    _set_mtu(16)
    try:
        with pytest.raises(BusUnavailable, match=rf"socketcan {CHANNEL}: MTU 16 carries classic "
                                                 rf"CAN only; .*mtu 72"):
            open_bus("socketcan", CHANNEL, fd=True)
        open_bus("socketcan", CHANNEL).shutdown()  # a classic bus opens there
    finally:
        _set_mtu(72)


def _fd_log(path: Path, frames: list[can.Message]) -> Path:
    """`frames` written to a candump-format log, 1 ms apart."""
    with can.Logger(str(path)) as writer:
        for k, msg in enumerate(frames):
            msg.timestamp, msg.channel = 1.0 + k * 1e-3, CHANNEL
            writer.on_message_received(msg)
    return path


def test_log_replay_of_fd_frames_needs_fd(tmp_path: Path) -> None:
    """`servobus log replay` onto a classic socket warns that the log holds FD frames, then
    stops with an error naming --fd (no traceback); with --fd candump sees every frame in its
    FD form."""
    sent = _fd_frames()[:24]
    log = _fd_log(tmp_path / "fd.log", sent)
    replay = [sys.executable, "-m", "servobus", "log", "replay", str(log), *VCAN]
    refused = subprocess.run(replay, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2, refused
    warning, *_, error = refused.stderr.splitlines()
    assert warning.startswith("warning: ") and "24 CAN FD frames" in warning
    assert error.startswith("error: ") and "Traceback" not in refused.stderr
    assert "classic CAN" in error and "--fd" in error
    with Candump() as dump:
        done = subprocess.run([*replay, "--fd"], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done
        dump.wait_for_frames(len(sent))
    assert _candump_frames(dump.out) == [_frame(m) for m in sent]


def test_log_record_with_fd_keeps_the_fd_frames(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`log record --fd` of an FD replay writes every frame with its FD flags."""
    sent = _fd_frames()
    log, copy = _fd_log(tmp_path / "fd.log", sent), tmp_path / "copy.log"
    thread = replay_in_thread(log, [*VCAN, "--fd"], when_opened(monkeypatch, cmd_log))
    assert main(["log", "record", *VCAN, "--fd", "--frames", str(len(sent)), "--duration",
                 "120", "--out", str(copy)]) == 0
    thread.join()
    assert [_frame(m) for m in read_log(copy)] == [_frame(m) for m in sent]


def test_node_opens_an_fd_bus_with_fd(tmp_path: Path) -> None:
    """`servobus node time-trigger --fd` ticks on vcan0 (MTU 72); on a classic interface it
    stops at once with the MTU error, no traceback."""
    assert main(["robot", "new", "one", "--joints", "1", "--period", "20ms", "--out",
                 str(tmp_path)]) == 0
    node = [sys.executable, "-m", "servobus", "node", "time-trigger", "--robot",
            str(tmp_path / "one.toml"), *VCAN, "--fd", "--duration", "0.2", "--json"]
    with Candump() as dump:
        done = subprocess.run(node, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done
    report = json.loads(done.stdout)["nodes"]["TIME_TRIGGER"]
    assert report["ticks_sent"] + report["ticks_skipped"] == 11  # 0, 20 ms, ..., 200 ms
    tick = Schema(tmp_path / "one.dbc", required=()).message(TICK).frame_id
    assert dump.out.count(f" {CHANNEL} {tick:03X}#") == report["ticks_sent"]
    _set_mtu(16)
    try:
        refused = subprocess.run(node, capture_output=True, text=True, timeout=300)
    finally:
        _set_mtu(72)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith(f"error: socketcan {CHANNEL}: MTU 16 carries classic CAN")
