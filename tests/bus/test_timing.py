"""`analyze timing` on synthetic logs whose figures are worked out by hand below."""

import json
from pathlib import Path

import can
import pytest

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
