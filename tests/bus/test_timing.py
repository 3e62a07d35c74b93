"""`analyze timing` on synthetic logs whose figures are worked out by hand below."""

import json
from functools import partial
from pathlib import Path

import can
import pytest

from servobus.bus.medium import Medium
from servobus.bus.recorder import MediumRecorder
from servobus.bus.scheduler import Environment
from servobus.bus.timing import analyze, percentile
from servobus.tools.cli import main

T0 = 1.0


def _frame(t: float, can_id: int, data: bytes) -> can.Message:
    return can.Message(timestamp=t, arbitration_id=can_id, is_extended_id=False, data=data,
                       channel="vcan0")


def _tick(t: float, seq: int) -> can.Message:
    return _frame(t, 0x010, bytes([seq]))


def _period(t: float, meas_us: dict[int, float], act_us: dict[int, float]) -> list[can.Message]:
    """Measurements (joint -> µs after t) and actuations (1..3 -> µs after t)."""
    out = [_frame(t + us / 1e6, 0x100 + j, b"\x00\x01") for j, us in meas_us.items()]
    return out + [_frame(t + us / 1e6, 0x01F + n, bytes(8)) for n, us in act_us.items()]


def _hand_log() -> list[can.Message]:
    """Ticks seq 0, 1, 2, 4 at +0, +10, -10, 0 µs off the 4 ms grid (seq 3 slipped).
    Period 0: MEAS_j at 100j µs, actuations at 1300/1310/1320 µs.
    Period 1: MEAS_5 missing, MEAS_j at 200j µs; ACTUATION_3 missing, the others 2500/2510.
    Period 2: MEAS_j at 50j µs, actuations 700/710/720 and ACTUATION_1 again at 730.
    Period 3 (seq 4): nothing.  One MEAS_1 before the first tick."""
    t1, t2, t4 = T0 + 0.004010, T0 + 0.007990, T0 + 0.016
    return [_frame(T0 - 0.001, 0x101, b"\x00\x00"),
            _tick(T0, 0), *_period(T0, {j: 100 * j for j in range(1, 13)},
                                   {1: 1300, 2: 1310, 3: 1320}),
            _tick(t1, 1), *_period(t1, {j: 200 * j for j in range(1, 13) if j != 5},
                                   {1: 2500, 2: 2510}),
            _tick(t2, 2), *_period(t2, {j: 50 * j for j in range(1, 13)},
                                   {1: 700, 2: 710, 3: 720}),
            _frame(t2 + 0.000730, 0x020, bytes(8)),
            _tick(t4, 4)]


def _write(path: Path, messages: list[can.Message]) -> Path:
    with can.Logger(str(path)) as writer:
        for msg in messages:
            writer.on_message_received(msg)
    return path


def test_nearest_rank_percentile() -> None:
    assert percentile([3, 1, 2, 4], 50) == 2
    assert percentile([3, 1, 2, 4], 99) == 4
    assert percentile([5], 1) == 5


@pytest.mark.parametrize("suffix", [".log", ".asc", ".blf"])
def test_hand_worked_log(tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    log = _write(tmp_path / f"bus{suffix}", _hand_log())
    assert main(["analyze", "timing", "--log", str(log), "--period", "4ms", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["ticks"] == 4 and r["frames_before_first_tick"] == 1
    assert r["slips"] == {"gaps": 1, "ticks_missing": 1}
    # offsets from index*4ms: 0, +10, -10, 0 µs; median (nearest rank) 0; sorted -10, 0, 0, 10
    assert r["tick_jitter_us"] == {"n": 4, "min": -10.0, "p50": 0.0, "p99": 10.0, "max": 10.0}
    assert r["tick_interval_us"] == {"n": 3, "min": 3980.0, "p50": 4010.0, "p99": 8010.0,
                                     "max": 8010.0}
    # slope over (0,0) (1,4010) (2,7990) (4,16000) µs: 34990 / 8.75
    assert r["fitted_period_us"] == pytest.approx(3998.857, abs=1e-3)
    assert r["tick_to_last_meas_us"] == {"n": 3, "min": 600.0, "p50": 1200.0, "p99": 2400.0,
                                         "max": 2400.0}
    assert r["tick_to_last_actuation_us"] == {"n": 3, "min": 720.0, "p50": 1320.0,
                                              "p99": 2510.0, "max": 2510.0}
    assert r["tick_to_meas_us"]["MEAS_5"] == {"n": 2, "min": 250.0, "p50": 250.0, "p99": 500.0,
                                              "max": 500.0}
    assert r["tick_to_meas_us"]["MEAS_12"]["max"] == 2400.0
    assert r["missing_meas"] == {"periods": 2, "frames": 13}
    assert r["missing_actuation"] == {"periods": 2, "frames": 4}
    assert r["repeated_frames"] == 1


def test_sequence_wraps_and_long_gaps() -> None:
    p = 0.004
    wrap = [_tick(T0 + k * p, (254 + k) % 256) for k in range(4)]
    assert analyze(wrap, 4_000_000)["slips"] == {"gaps": 0, "ticks_missing": 0}
    # 300 periods later the 8-bit sequence reads 44: 299 ticks slipped, not 43
    long_gap = [_tick(T0, 0), _tick(T0 + 300 * p, 300 % 256)]
    r = analyze(long_gap, 4_000_000)
    assert r["slips"] == {"gaps": 1, "ticks_missing": 299}
    assert r["tick_jitter_us"]["max"] == 0.0


def test_jitter_grid_kept_by_the_punctual_ticks() -> None:
    # offsets 0, 0, 0, +1000 µs: the median grid leaves the three at 0 (a mean one: -250)
    late = [_tick(T0 + k * 0.004 + (0.001 if k == 3 else 0.0), k) for k in range(4)]
    assert analyze(late, 4_000_000)["tick_jitter_us"] == {"n": 4, "min": 0.0, "p50": 0.0,
                                                          "p99": 1000.0, "max": 1000.0}


def test_no_tick_and_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_tick = _write(tmp_path / "meas.log", [_frame(T0, 0x101, b"\x00\x00")])
    junk = tmp_path / "junk.log"
    junk.write_text("this is not a candump line\n")
    for path in (no_tick, junk, tmp_path / "absent.log", tmp_path / "x.txt"):
        assert main(["analyze", "timing", "--log", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "Traceback" not in err, err
    assert main(["analyze", "timing", "--log", str(no_tick), "--period", "0ms"]) == 2


def _fd_bus_log(path: Path) -> Path:
    """Four periods of a simulated 1 / 5 Mbit/s CAN FD bus: at k * 4 ms, on an idle bus, the
    time trigger sends TICK seq 6, 7, 8, 9 and joint 1 its MEAS_1 (0x55 0x55), both FD frames
    with BRS; MEAS_1 loses arbitration and follows the tick after its interframe space."""
    medium = Medium(Environment(), data_bitrate=5_000_000)
    trigger, joint = medium.attach("TIME_TRIGGER", None), medium.attach("JOINT_1", None)
    medium.attach("HOST", lambda _: None)
    recorder = MediumRecorder(medium, path)
    for k, seq in enumerate((6, 7, 8, 9)):
        for node, can_id, data in ((trigger, 0x010, bytes([seq])), (joint, 0x101, b"\x55\x55")):
            msg = can.Message(arbitration_id=can_id, is_extended_id=False, is_fd=True,
                              bitrate_switch=True, data=data)
            medium.env.schedule(k * 4_000_000, partial(medium.submit, node, msg))
    medium.env.run()
    recorder.close()
    return path


def test_fd_log_from_a_simulated_fd_bus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bits by hand (frame_bits_fd's rules).  TICK 0x010 = 000 0000 0001 0000: SOF and ID bits
    10..7 are five 0s (a stuff bit), ID 3..0 and RRS five more (another): nominal SOF..BRS
    17 + 2 stuff, + ACK, delimiter, EOF 7, IFS 3 = 31 bits.  Data phase: ESI + DLC 0001 (5),
    the sequence byte (8), its stuff bits (seq 6 = 00000110 and 7 = 00000111 after DLC's
    last 1: five 0s, one; 8 = 00001000 and 9 = 00001001: none), stuff count + parity (4),
    CRC-17 (17), 6 fixed stuff bits, CRC delimiter (1): 42 for seq 6, 7 and 41 for 8, 9.
    End of frame after SOF: 28 us + 42 (41) x 0.2 us = 36.4 (36.2) us.
    MEAS_1 0x101 = 001 0000 0001: one stuff bit after SOF, ID 10..3's 0s; 17 + 1 + 12 = 30
    nominal bits; data 5 + 16 (0x55 0x55: no stuff bit) + 4 + 17 + 6 + 1 = 49: its end of
    frame 27 + 9.8 = 36.8 us after its start, which is 3 us after the tick's end: 39.8 us."""
    log = _fd_bus_log(tmp_path / "fd.blf")  # .blf keeps ns; candump and .asc round to µs
    argv = ["analyze", "timing", "--log", str(log), "--period", "4ms", "--json"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"error: {log}: frame 1: a CAN FD frame (ID 0x10) on a classic CAN bus (1000 kbit/s): "
        "its length needs the bus's data bit rate (--data-bitrate)\n")
    assert main([*argv, "--data-bitrate", "5M"]) == 0
    out, err = capsys.readouterr()
    r = json.loads(out)
    assert err == ""  # no frame left out, no warning
    assert r["bit_timing"] == "1000/5000 kbit/s CAN FD" and r["frames_not_in_schema"] == 0
    assert r["ticks"] == 4 and r["slips"] == {"gaps": 0, "ticks_missing": 0}
    # ends 36.4, 4036.4, 8036.2, 12036.2 us: off the grid by 36.4, 36.4, 36.2, 36.2 (median 36.2)
    assert r["tick_jitter_us"] == {"n": 4, "min": 0.0, "p50": 0.0, "p99": 0.2, "max": 0.2}
    assert r["tick_start_jitter_us"] == {"n": 4, "min": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    assert r["tick_interval_us"] == {"n": 3, "min": 3999.8, "p50": 4000.0, "p99": 4000.0,
                                     "max": 4000.0}
    assert r["tick_to_meas_us"]["MEAS_1"] == {"n": 4, "min": 39.8, "p50": 39.8, "p99": 39.8,
                                              "max": 39.8}
    assert r["missing_meas"] == {"periods": 4, "frames": 4 * 11}


@pytest.mark.parametrize(("rate", "why"), [
    ("500k", "--data-bitrate 500000: data bit time 2000 ns is outside 125..1000 ns"),
    ("9M", "argument --data-bitrate: data bit rate 9M is outside CAN FD's 10k .. 8M"),
    ("3M", "argument --data-bitrate: data bit rate 3M: the bit time must be whole nanoseconds"),
])
def test_a_data_bit_rate_the_bus_cannot_have_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], rate: str, why: str) -> None:
    log = _write(tmp_path / "bus.log", _hand_log())
    assert main(["analyze", "timing", "--log", str(log), "--data-bitrate", rate]) == 2
    assert capsys.readouterr().err.startswith(f"error: {why}")
