"""Issue 9, CAN level: error frames in logs and in the load, windows never above 100 %, 8-bit
error counters, the standalone servobus interface, frames a controller refuses, delayed ticks."""

import can
import pytest

from servobus.bus import frame_bits as fb
from servobus.bus.controller import InvalidFrame
from servobus.bus.faults import CORRUPT, NO_ACK, FaultPlan, FrameFault
from servobus.bus.frame_fast import stuffed_length
from servobus.bus.load_meter import LoadMeter
from servobus.bus.medium import Medium
from servobus.bus.recorder import LOC_ACK_SLOT, LOC_CRC_SEQUENCE, MediumRecorder
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema
from servobus.bus.sim_interface import SimBus
from servobus.tools.cli import main
from tests.bus.canutils_oracle import cfl_exact

SCHEMA = Schema()
BIT = 1000  # ns at 1 Mbit/s


def msg(can_id: int, data: bytes, **kw) -> can.Message:
    return can.Message(arbitration_id=can_id, data=data, is_extended_id=False, **kw)


@pytest.mark.parametrize("suffix", [".log", ".blf", ".asc"])
def test_error_frames_are_written_at_their_flag_time(tmp_path, suffix) -> None:
    plan = FaultPlan(rules=[FrameFault(CORRUPT, 0x050, 0, count=2),
                            FrameFault(NO_ACK, 0x050, 0, count=1)])
    medium = Medium(Environment(), faults=plan)
    a, b = SimBus(channel="A", medium=medium), SimBus(channel="B", medium=medium)
    path = tmp_path / f"e{suffix}"
    recorder = MediumRecorder(medium, path)
    a.send(msg(0x050, b"\x01"))
    medium.env.run()
    recorder.close()
    got = list(can.LogReader(str(path)))
    assert [m.is_error_frame for m in got] == [True, True, True, False]
    stuffed = cfl_exact(0x050, b"\x01") - 13  # SOF..CRC with stuff bits
    attempt = (stuffed + 3 + 14 + 3) * BIT  # CRC error flagged after the ACK delimiter
    flags = [stuffed + 3, stuffed + 3 + attempt // BIT, stuffed + 2 + 2 * attempt // BIT]
    times = [round(m.timestamp * 1e9) for m in got[:3]]
    if suffix == ".asc":  # Vector ASC stores times relative to the first event
        times = [t + flags[0] * BIT for t in times]
    assert times == [f * BIT for f in flags]
    assert recorder.error_frames == 3 and recorder.frames == 1
    b.shutdown()
    a.shutdown()


def test_error_frame_payload_names_the_location_and_the_transmitter_tec(tmp_path) -> None:
    plan = FaultPlan(rules=[FrameFault(CORRUPT, None, 0), FrameFault(NO_ACK, None, 0)])
    medium = Medium(Environment(), faults=plan)
    a, _ = SimBus(channel="A", medium=medium), SimBus(channel="B", medium=medium)
    path = tmp_path / "e.blf"
    recorder = MediumRecorder(medium, path)
    a.send(msg(0x123, b"\x05\x06"))
    medium.env.run()
    recorder.close()
    errors = [m for m in can.LogReader(str(path)) if m.is_error_frame]
    assert [(m.arbitration_id, m.data[3], m.data[6]) for m in errors] == [
        (0x123, LOC_CRC_SEQUENCE, 8), (0x123, LOC_ACK_SLOT, 16)]


def test_bussim_log_with_corruptions_decodes_with_error_frames(tmp_path, capsys) -> None:
    log = tmp_path / "e.log"
    assert main(["bussim", "--duration", "0.05", "--fault", "corrupt 0x101 at 0.01s count 3",
                 "--log", str(log), "--json"]) == 0
    lines = log.read_text().splitlines()
    errors = [k for k, line in enumerate(lines) if " 20000080#" in line]
    assert len(errors) == 3
    assert " 010#03 " in lines[errors[0] - 1] and " 101#0002 " in lines[errors[-1] + 1]
    assert sum(m.is_error_frame for m in can.LogReader(str(log))) == 3


def test_error_frames_count_in_the_live_load() -> None:
    sim = ScheduleSim(SCHEMA, faults=["random-corrupt 1"])
    report = sim.run(0.2)
    assert report["frames"] == 0 and report["error_frames"] > 1000
    # every attempt is a whole frame up to the flag + 14-bit error frame + 3-bit IFS
    assert 40 < report["bus_load_pct"] < 100
    assert sim.meter.error_frames == report["error_frames"]


def test_error_frames_count_in_the_load_of_a_log() -> None:
    t = 1.0
    frames = [can.Message(timestamp=t, is_error_frame=True)]
    meter = LoadMeter(window_s=0.001).add_all(frames)
    assert meter.bits == 17 and meter.report()["error_frames"] == 1


def test_a_frame_straddling_a_window_edge_is_split_by_time() -> None:
    meter = LoadMeter(window_s=100e-6)
    meter.charge(0, 50_000, 50)  # window 0 starts with the first frame
    meter.charge(80_000, 140_000, 60)  # 20 us in window 0, 40 us in window 1
    assert meter.report()["windows"] == [70.0, 40.0]


def test_no_window_exceeds_100_percent_under_a_babbler() -> None:
    report = ScheduleSim(SCHEMA, faults=["babble 0x001 at 0.1s for 50ms"]).run(0.3)
    assert report["window_load_max_pct"] == 100.0


def test_receive_error_counter_saturates_at_255_and_bus_off_resets_both() -> None:
    plan = FaultPlan(rules=[FrameFault(CORRUPT, 0x050, 0, count=10_000)])
    medium = Medium(Environment(), faults=plan)
    a, _ = SimBus(channel="A", medium=medium), SimBus(channel="B", medium=medium)
    a.send(msg(0x050, b"\x01"))
    medium.env.run(until=400_000_000)
    tx, rx = medium.controller("A"), medium.controller("B")
    assert rx.counters.rx_errors > 1000 and rx.rec == 255
    assert tx.counters.bus_off_events > 10
    assert tx.tec <= 255


def test_status_and_bussim_report_saturated_counters(capsys) -> None:
    report = ScheduleSim(SCHEMA, faults=["random-corrupt 1"]).run(1.0)
    recs = [n["rec"] for n in report["nodes"].values()]
    assert max(recs) == 255 and all(0 <= n["tec"] <= 255 for n in report["nodes"].values())


def test_transmit_counter_reads_255_while_bus_off_then_zero_after_recovery() -> None:
    plan = FaultPlan(rules=[FrameFault(CORRUPT, 0x050, 0, count=32)])
    medium = Medium(Environment(), faults=plan)
    a, b = SimBus(channel="A", medium=medium), SimBus(channel="B", medium=medium)
    a.send(msg(0x050, b"\x01"))
    ctrl = medium.controller("A")
    while ctrl.counters.bus_off_events == 0:
        medium.env.step()
    assert ctrl.tec == 255 and b.controller.rec == 32
    medium.env.run()
    assert ctrl.tec == 0 and b.recv(0) is not None


def test_two_standalone_buses_on_a_simulated_time_channel_exchange_frames() -> None:
    a = can.Bus(interface="servobus", channel="issue9-x", clock="simulated")
    b = can.Bus(interface="servobus", channel="issue9-x")
    try:
        a.send(msg(0x123, b"\x01\x02"))
        got = b.recv(timeout=0.01)
        assert got is not None and (got.arbitration_id, bytes(got.data)) == (0x123, b"\x01\x02")
        assert round(got.timestamp * 1e9) == (cfl_exact(0x123, b"\x01\x02") - 3) * BIT
        b.send(can.Message(arbitration_id=0x1ABCDEF0, data=bytes(8), is_extended_id=True))
        back = a.recv(timeout=0.01)
        assert back is not None and back.is_extended_id and back.arbitration_id == 0x1ABCDEF0
        before = a.medium.env.now
        assert a.recv(timeout=0.01) is None
        assert a.medium.env.now - before == 10_000_000  # simulated, not wall-clock, time
        assert a.recv(timeout=0) is None
    finally:
        a.shutdown()
        b.shutdown()


def test_standalone_channels_are_separate_and_dropped_when_the_last_bus_leaves() -> None:
    a = can.Bus(interface="servobus", channel="issue9-p", node="A")
    c = can.Bus(interface="servobus", channel="issue9-q")
    a2 = can.Bus(interface="servobus", channel="issue9-p")
    a.send(msg(0x10, b"\x00"))
    assert c.recv(timeout=0.01) is None and a2.recv(timeout=0.01) is not None
    assert "node A" in a.channel_info
    with pytest.raises(can.CanInitializationError, match="already"):
        can.Bus(interface="servobus", channel="issue9-p", node="A")
    with pytest.raises(can.CanInitializationError, match="bit/s"):
        can.Bus(interface="servobus", channel="issue9-p", bitrate=500_000)
    medium = a.medium
    for bus in (a, c, a2):
        bus.shutdown()
    fresh = can.Bus(interface="servobus", channel="issue9-p", bitrate=500_000)
    assert fresh.medium is not medium and fresh.medium.bitrate == 500_000
    fresh.shutdown()


def test_the_medium_form_still_names_the_node() -> None:
    medium = Medium(Environment())
    bus = can.Bus(interface="servobus", channel="JOINT_1", medium=medium)
    assert medium.controller("JOINT_1") is bus.controller
    bus.shutdown()


@pytest.mark.parametrize(("frame", "words"), [
    (dict(arbitration_id=0x800, is_extended_id=False), "0x800 does not fit a standard"),
    (dict(arbitration_id=0x20000000, is_extended_id=True), "0x20000000 does not fit an ext"),
    (dict(arbitration_id=-1, is_extended_id=False), "does not fit"),
    (dict(arbitration_id=0x100, is_extended_id=False, data=bytes(9)), "9 data bytes"),
    (dict(arbitration_id=0x100, is_extended_id=False, dlc=9, data=bytes(8)), "DLC 9"),
    (dict(arbitration_id=0x100, is_extended_id=False, dlc=3, data=bytes(2)), "DLC 3 but 2"),
    (dict(arbitration_id=0x100, is_fd=True, data=bytes(12)), "FD"),
    (dict(is_error_frame=True), "error frame"),
])
def test_send_refuses_what_a_can_controller_refuses(frame, words) -> None:
    bus = can.Bus(interface="servobus", channel="issue9-refuse")
    try:
        with pytest.raises(can.CanError, match=words) as caught:
            bus.send(can.Message(check=False, **frame))
        assert isinstance(caught.value, InvalidFrame) and isinstance(caught.value, ValueError)
        assert not bus.controller.ready_frames
    finally:
        bus.shutdown()


def test_limits_themselves_are_accepted() -> None:
    bus = can.Bus(interface="servobus", channel="issue9-edges")
    try:
        bus.send(msg(0x7FF, bytes(8)))
        bus.send(can.Message(arbitration_id=0x1FFFFFFF, data=b"", is_extended_id=True))
        bus.send(can.Message(arbitration_id=0x10, is_remote_frame=True, dlc=8,
                             is_extended_id=False))
        assert len(bus.controller.ready_frames) == 3
    finally:
        bus.shutdown()


def test_babble_with_an_id_beyond_11_bits_is_refused_before_the_run(capsys) -> None:
    assert main(["bussim", "--fault", "babble 0x800 at 0.1s for 1ms"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: fault 'babble 0x800 at 0.1s for 1ms'") and "11 bits" in err


def test_bussim_reports_ticks_queued_behind_a_babbler() -> None:
    report = ScheduleSim(SCHEMA, faults=["babble 0x001 at 0.1s for 50ms"]).run(0.3)
    # 50 ms of babble holds back 13 ticks (due at 100..148 ms), sent back to back at its end
    assert report["ticks_delayed"] == 13
    assert report["tick_latency_max_s"] == pytest.approx(0.050, abs=2e-4)
    assert report["host_complete_periods"] <= report["host_periods"] - 13
    clean = ScheduleSim(SCHEMA).run(0.3)
    assert clean["ticks_delayed"] == 0 and clean["host_complete_periods"] == clean["host_periods"]


def test_a_log_read_at_the_wrong_bit_rate_never_loads_a_window_above_100_pct() -> None:
    """1 Mbit/s frames back to back, measured as if at 500 kbit/s: each reconstructed frame
    would begin before the previous one ended; the overlap is counted, not charged twice."""
    meter = LoadMeter(bitrate=500_000, window_s=0.001)
    t = 0.0
    for _ in range(200):
        bits = stuffed_length(0x101, b"\x00\x02", False) + fb.TRAILER_BITS + fb.IFS_BITS
        t += bits * 1e-6
        meter.add(can.Message(arbitration_id=0x101, data=b"\x00\x02", is_extended_id=False,
                              timestamp=t))
    report = meter.report()
    assert report["window_load_max_pct"] <= 100.0
    assert report["overlapping_frames"] == 199


def test_a_span_of_too_many_windows_is_refused_whatever_fed_the_meter() -> None:
    """Two frames 1e6 s apart in 100 us windows (a bit-flipped log timestamp, or a day-long live
    capture): the report refuses rather than list 1e10 windows."""
    meter = LoadMeter(bitrate=1_000_000, window_s=0.0001)
    for t in (0.001, 1e6):
        meter.add(can.Message(arbitration_id=1, data=b"", is_extended_id=False, timestamp=t))
    with pytest.raises(ValueError, match="over 10,000,000 windows"):
        meter.report()
