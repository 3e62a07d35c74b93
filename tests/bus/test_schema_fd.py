"""CAN FD schemas: the generated SPEJBL-FD DBC through cantools, the flags every node sends its
frames with, FD payloads through both codecs, a DBC's FD errors naming its line, and the budgets
(busload, RTA) in ns on the bus's BitTiming against hand counts."""

from pathlib import Path

import can
import cantools
import pytest

from servobus.bus import frame_bits_fd as fd
from servobus.bus.bit_timing import BitTiming
from servobus.bus.busload import busload
from servobus.bus.dbc_generate import TimeTriggeredBus, generate
from servobus.bus.schema import Schema, SchemaError, default_dbc

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
FD_DBC = ROBOTS / "spejbl-fd.dbc"
FD = Schema(FD_DBC)
ZEROS = {f"iw_{j}": 0 for j in range(1, 13)}


def test_every_message_is_fd_with_brs_through_cantools_and_back() -> None:
    """cantools reads VFrameFormat StandardCAN_FD as is_fd; CANFD_BRS 1 survives a dump."""
    db = cantools.database.load_file(str(FD_DBC))
    again = cantools.database.load_string(db.as_dbc_string(), "dbc")
    for loaded in (db, again):
        assert loaded.dbc.attributes["BusType"].value == "CAN FD"
        assert loaded.dbc.attributes["BaudrateCANFD"].value == 5_000_000
        assert all(m.is_fd and m.dbc.attributes["CANFD_BRS"].value == 1
                   for m in loaded.messages)
    assert loaded.get_message_by_name("ACTUATION_1").length == 24
    assert [s.start for s in loaded.get_message_by_name("ACTUATION_1").signals] == \
        list(range(0, 192, 16))


def test_the_schema_states_fd_frames_and_the_bit_timing() -> None:
    assert FD.bit_timing == BitTiming(1_000_000, 5_000_000)
    assert FD.data_bitrate == 5_000_000 and Schema().data_bitrate is None
    assert FD.frame_flags("ACTUATION_1") == (True, True)
    assert Schema().frame_flags("ACTUATION_1") == (False, False)
    classic = Schema().encode("ACTUATION_1", {f"iw_{j}": 0 for j in range(1, 5)})
    assert (classic.is_fd, classic.bitrate_switch) == (False, False)


def test_a_24_byte_actuation_encodes_and_decodes_in_both_codecs() -> None:
    values = {f"iw_{j}": (j - 6) / 8 for j in range(1, 13)}
    msg = FD.encode("ACTUATION_1", values)
    assert (msg.is_fd, msg.bitrate_switch, msg.dlc, msg.arbitration_id) == (True, True, 24, 0x020)
    definition = FD.message("ACTUATION_1")
    assert bytes(msg.data) == bytes(definition.encode(values, strict=True))
    assert FD.decode(msg).values == values
    assert FD.codec("ACTUATION_1").decode(bytes(msg.data)) == definition.decode(bytes(msg.data))


def test_32_joints_fill_one_64_byte_frame(tmp_path: Path) -> None:
    """The largest group: 32 references, 64 bytes (DLC 15, CRC-21), through both codecs."""
    bus = TimeTriggeredBus("big", tuple(f"B{j}" for j in range(1, 33)), (tuple(range(1, 33)),),
                           4, 1_000_000, data_bitrate=8_000_000)
    path = tmp_path / "big.dbc"
    path.write_text(generate(bus).as_dbc_string())
    schema = Schema(path)
    values = {f"iw_{j}": -8.0 + j / 4 for j in range(1, 33)}
    msg = schema.encode("ACTUATION_1", values)
    assert (msg.dlc, msg.is_fd, msg.bitrate_switch) == (64, True, True)
    assert bytes(msg.data) == bytes(schema.message("ACTUATION_1").encode(values, strict=True))
    assert schema.decode(msg).values == values
    assert schema.bit_timing.describe() == "1000/8000 kbit/s CAN FD"


def test_an_fd_message_sent_as_a_classic_frame_is_refused() -> None:
    classic = can.Message(arbitration_id=0x010, data=b"\x00", is_extended_id=False)
    with pytest.raises(SchemaError, match=r"TICK \(0x10\) came as a classic frame, the schema "
                                          "says CAN FD"):
        FD.decode(classic)


def test_one_actuation_frames_exact_time_by_hand() -> None:
    """ACTUATION_1 at rest: ID 0x020, 24 zero bytes.  SOF + ID10..7 are 5 zeros (stuff), ID6 0,
    ID5 1, ID4..0 5 zeros (stuff), RRS IDE 0 FDF 1 res 0 BRS 1: 17 + 2 nominal bits, + 12 after
    the CRC delimiter = 31.  ESI 0, DLC 1100, then the DLC's 2 zeros and 192 data zeros: stuff
    after data bits 3, 8, .., 188 = 38; CRC-21 field 4 + 21 + 7 fixed = 32; + CRC delimiter:
    5 + 192 + 38 + 32 + 1 = 268 data bits.  At 1/5 Mbit/s: 31 us + 268 x 200 ns = 84.6 us (as
    the oracle rows of test_frame_bits_fd count the same fields)."""
    msg = FD.encode("ACTUATION_1", ZEROS)
    assert fd.fd_frame_bits(0x020, bytes(24)) == fd.FdLength(31, 268)
    assert FD.bit_timing.frame_ns(msg) == 31 * 1_000 + 268 * 200 == 84_600


def test_busload_of_spejbl_fd_against_a_hand_sum() -> None:
    """The FD bound (fd_worst_case_bits): TICK 1 byte: 30 stuffable bits, 7 stuff (3 before
    BRS): 32 nominal, 30 - 17 + 4 + 27 + 1 = 45 data; MEAS6 6 bytes: 70 bits, 17 stuff: 32,
    53 + 14 + 27 + 1 = 95; ACTUATION_1 24 bytes: 214 bits, 53 stuff, CRC-21: 32, 197 + 50 + 32
    + 1 = 280.  At 1/5 Mbit/s: 41 + 12 x 51 + 88 = 741 us of the 4 ms period."""
    report = busload(FD, meas_bytes=6)
    assert report["bit_timing"] == "1000/5000 kbit/s CAN FD"
    assert [r["worst_case_ns"] for r in report["schedule"]] == [41_000] + [51_000] * 12 + [88_000]
    worst = report["models"]["worst_case"]
    assert worst["frame_ns"] == 41_000 + 12 * 51_000 + 88_000 == 741_000
    assert worst["load_pct"] == pytest.approx(741 / 4000 * 100)
    assert worst["host_window_s"] == pytest.approx(4e-3 - 741e-6)
    assert worst["host_window_thesis_s"] - worst["host_window_s"] == pytest.approx(41e-6)
    loads = {k: v["load_pct"] for k, v in report["models"].items()}
    assert loads["no_stuffing"] <= report["exact"]["load_pct"] <= loads["worst_case"]
    rows = {r["name"]: r for r in report["messages"]}
    assert rows["TICK"]["wcrt_s"] == pytest.approx((88_000 + 41_000) / 1e9)  # blocked by C_act


def test_the_no_stuffing_model_is_an_unstuffed_frames_length() -> None:
    """ID 0x555 and 0x55 bytes alternate bit by bit: where such a frame has no dynamic stuff
    bit (its DLC makes no run of 5), the no-stuffing model is its exact length."""
    unstuffed = 0
    for length in fd.FD_LENGTHS:
        for brs in (True, False):
            frame = fd.fd_frame(0x555, b"\x55" * length, brs=brs)
            head = fd.header_bits(0x555, fd.length_to_dlc(length), False, brs, False)
            if len(frame.arbitration) + len(frame.data_phase) != len(head) + 8 * length:
                continue  # the DLC's or BRS's bits made a stuff bit
            unstuffed += 1
            assert fd.fd_model_bits(length, lambda m: 0, brs=brs) == \
                fd.fd_frame_bits(0x555, b"\x55" * length, brs=brs)
    assert unstuffed >= 16


def _bad(tmp_path: Path, text: str) -> str:
    """The SchemaError of a DBC of `text`, its path taken off the front."""
    path = tmp_path / "bad.dbc"
    path.write_text(text)
    with pytest.raises(SchemaError) as caught:
        Schema(path)
    return str(caught.value).removeprefix(str(path))


def _line(text: str, start: str) -> int:
    """The 1-based line of `text` starting with `start`."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


TICK_FORMAT, BUS_TYPE, DATA_RATE = ('BA_ "VFrameFormat" BO_ 16 ', 'BA_ "BusType"',
                                    'BA_ "BaudrateCANFD"')


FD_TEXT = FD_DBC.read_text()


def test_fd_messages_on_a_classic_bus(tmp_path: Path) -> None:
    text = FD_TEXT.replace('BA_ "BusType" "CAN FD";\n', "").replace(
        'BA_ "BaudrateCANFD" 5000000;\n', "")
    assert _bad(tmp_path, text) == (
        f":{_line(text, TICK_FORMAT)}: TICK is a CAN FD frame (VFrameFormat) "
        'on a classic bus: a CAN FD bus is BusType "CAN FD" with a BaudrateCANFD')


def test_a_can_fd_bus_without_its_data_rate(tmp_path: Path) -> None:
    text = FD_TEXT.replace('BA_ "BaudrateCANFD" 5000000;\n', "")
    assert _bad(tmp_path, text) == (f":{_line(text, BUS_TYPE)}: BusType " '"CAN FD" '
                                    "without a BaudrateCANFD (the data phase's bit rate, bit/s)")


def test_a_data_rate_on_a_classic_bus(tmp_path: Path) -> None:
    text = FD_TEXT.replace('BA_ "BusType" "CAN FD";', 'BA_ "BusType" "CAN";')
    assert _bad(tmp_path, text) == (f":{_line(text, DATA_RATE)}: BaudrateCANFD on "
                                    'a bus whose BusType is not "CAN FD"')


@pytest.mark.parametrize(("rate", "why"), [
    (3_000_000, "the data bit rate 3000000 bit/s has no whole-ns bit time"),
    (8_000_000 * 2, "the data bit rate 16000000 bit/s has no whole-ns bit time"),
    (10_000_000, "data bit time 100 ns is outside 125..1000 ns (8 Mbit/s..the nominal bit rate)"),
    (500_000, "data bit time 2000 ns is outside 125..1000 ns (8 Mbit/s..the nominal bit rate)"),
])
def test_data_rates_the_bus_cannot_run(tmp_path: Path, rate: int, why: str) -> None:
    text = FD_TEXT.replace('BA_ "BaudrateCANFD" 5000000;', f'BA_ "BaudrateCANFD" {rate};')
    assert _bad(tmp_path, text) == f":{_line(text, DATA_RATE)}: BaudrateCANFD " \
                                   f"{rate}: {why}"


def test_an_fd_message_of_no_fd_length(tmp_path: Path) -> None:
    text = FD_TEXT.replace("BO_ 32 ACTUATION_1: 24 HOST", "BO_ 32 ACTUATION_1: 26 HOST")
    assert _bad(tmp_path, text) == (
        f":{_line(text, 'BO_ 32 ')}: ACTUATION_1 has 26 data bytes: a CAN FD frame carries one "
        "of 0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64")


def test_more_than_8_bytes_on_a_classic_bus(tmp_path: Path) -> None:
    text = default_dbc().read_text().replace("BO_ 32 ACTUATION_1: 8 HOST",
                                             "BO_ 32 ACTUATION_1: 12 HOST")
    assert _bad(tmp_path, text) == (
        f":{_line(text, 'BO_ 32 ')}: ACTUATION_1 has 12 data bytes: a classic CAN frame "
        "carries at most 8 (more only as a CAN FD frame, VFrameFormat StandardCAN_FD)")
