"""The compiled period engine equals the reference path: the same log frame by frame (time in
ns, ID, data) and the same run report, over seeds, trajectories, tunings, sensing, measurement
sizes, board modes, anti-windup variants, operator actions at random instants and the robot
faults; where the compiled loop does not apply, the report says which engine ran."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from servobus.robot.assembly import Robot, RobotConfig
from tests.robot.test_engine_equality import SCENARIO, action_line, frames, short_trajectory

NOT_COMPARED = ("wall_time_s", "rtf", "engine", "engine_periods", "engine_fallback")


def assert_equal(tmp: Path, seconds: float, **kwargs) -> tuple[list, dict]:
    """Run the reference path and `auto`; equal logs and reports; the auto run's report."""
    logs, reports = [], []
    for engine in ("reference", "auto"):
        log = tmp / f"{engine}.log"
        robot = Robot(RobotConfig(engine=engine, log_path=str(log), **kwargs))
        robot.run(seconds)
        reports.append(robot.report(1.0))
        logs.append(frames(log))
    ref_log, eng_log = logs
    assert len(eng_log) == len(ref_log) > 0
    for k, (a, b) in enumerate(zip(ref_log, eng_log, strict=True)):
        assert a == b, f"frame {k}: reference {a}, engine {b}"
    ref, eng = ({k: v for k, v in r.items() if k not in NOT_COMPARED} for r in reports)
    assert eng == ref
    return eng_log, reports[1]


def test_default_robot_runs_compiled_and_equal(tmp_path: Path) -> None:
    """0.45 s, 113 ticks: the boot period (no previous tick) and the last one (cut by the run's
    end) run on the LeanBus, the other 111 compiled, STATUS bursts at 100..400 ms included."""
    log, report = assert_equal(tmp_path, 0.45)
    assert report["engine"] == "compiled"
    assert report["engine_periods"] == {"compiled": 111, "period": 2}
    assert len(log) == 1868


def test_kept_windows_and_records_equal(tmp_path: Path) -> None:
    """keep_records: every load window listed, as the Python meter lists them."""
    _, report = assert_equal(tmp_path, 0.3, keep_records=True, seed=7)
    assert report["engine_periods"]["compiled"] > 60


@pytest.mark.parametrize("kwargs", [
    {"faults": ("tick drop at 60ms", "host delay 5ms at 100ms"), "seed": 5},
    {"faults": ("host delay 3500us at 150ms",), "compute_ns": 350_000},
    {"plant": "averaged", "anti_windup": "hard", "seed": 11,
     "actions": ("release 2 at 40ms", "freeze all at 100ms", "engage 2 at 100ms",
                 "pause at 120ms", "scrub 0.25 at 150ms", "resume at 200ms")},
])
def test_faults_and_actions_equal(tmp_path: Path, kwargs: dict) -> None:
    """Robot faults and actions: Python periods around them, compiled ones between."""
    _, report = assert_equal(tmp_path, 0.3, **kwargs)
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 20


@pytest.mark.parametrize("kwargs", [{"mode": "local-p"}, {"meas_bytes": 6, "seed": 9},
                                    {"mode": "local-p", "meas_bytes": 6, "sensing":
                                     "winding-bipolar"}])
def test_local_p_and_6_byte_measurements_run_compiled(tmp_path: Path, kwargs: dict) -> None:
    """POSREF frames instead of ACTUATION (no PID), MEAS6 with supply and current."""
    _, report = assert_equal(tmp_path, 0.25, **kwargs)
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 55


def test_a_host_too_slow_for_the_loop_runs_on_the_period_engine(tmp_path: Path) -> None:
    """3.2 ms of computation leaves no room for the period's frames: under auto the period
    engine runs it (and says why); --engine compiled is an error."""
    why = "a host computation that may not end within the period"
    _, report = assert_equal(tmp_path, 0.1, compute_ns=3_200_000)
    assert report["engine"] == "period" and why in report["engine_fallback"]
    with pytest.raises(ValueError, match=f"engine compiled: {why}"):
        Robot(RobotConfig(engine="compiled", compute_ns=3_200_000))


def test_bus_faults_are_an_error_on_the_compiled_engine() -> None:
    with pytest.raises(ValueError, match="engine compiled: bus-level faults"):
        Robot(RobotConfig(engine="compiled", faults=("babble 0x001 at 1ms",)))


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**SCENARIO)
def test_random_runs_equal(tmp_path: Path, seed: int, lines: int, tuning: str, sensing: str,
                           meas_bytes: int, mode: str, anti_windup: str, actions: list) -> None:
    trajectory = short_trajectory(np.random.default_rng(seed), lines)
    _, report = assert_equal(tmp_path, 0.3, seed=seed, trajectory=trajectory, tuning=tuning,
                             sensing=sensing, meas_bytes=meas_bytes, mode=mode,
                             anti_windup=anti_windup,
                             actions=tuple(action_line(*a) for a in actions))
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 0


def test_meter_supervisor_and_records_equal_in_full() -> None:
    """Beyond the report: every load window, every host window and used time, every period
    record, as the reference path leaves them (keep_records keeps them all)."""
    robots = [Robot(RobotConfig(engine=e, keep_records=True, seed=3)) for e in
              ("reference", "compiled")]
    for robot in robots:
        robot.run(0.5)
    ref, eng = robots
    assert eng.compiled is not None and eng.compiled.counts["compiled"] > 100
    assert eng.meter.report() == ref.meter.report()
    assert len(ref.meter.report()["windows"]) == 125
    for name in ("windows_ns", "used_ns", "window_counts", "window_range_ns", "ticks", "seq",
                 "tick_ns", "last_meas_ns", "ready_ns", "sent_ns", "arrived"):
        assert getattr(eng.host.supervisor, name) == getattr(ref.host.supervisor, name), name
    assert len(eng.host.records) == len(ref.host.records) == 125
    for a, b in zip(ref.host.records, eng.host.records, strict=True):
        assert a.tick_ns == b.tick_ns
        for field in ("reference", "measured", "current"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert eng.host.board_modes == ref.host.board_modes
    np.testing.assert_array_equal(eng.bank.rams, ref.bank.rams)
    np.testing.assert_array_equal(eng.bank.states, ref.bank.states)
