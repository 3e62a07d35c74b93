"""The period engine equals the reference path: the same log frame by frame (time in ns, ID,
data) and the same run report, over seeds, trajectories, tunings, sensing, measurement sizes,
board modes, anti-windup variants, operator actions and the robot faults the engine runs."""

import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.host.trajectory import Trajectory
from servobus.robot.assembly import Robot, RobotConfig

NOT_COMPARED = ("wall_time_s", "rtf", "engine")


def frames(path: Path) -> list[tuple[str, str, str]]:
    """(timestamp, ID, data) of every line of a candump log."""
    out = []
    for line in path.read_text().splitlines():
        stamp, _, frame = line.split()[:3]
        can_id, data = frame.split("#")
        out.append((stamp, can_id, data))
    return out


def run_both(tmp: Path, seconds: float, **kwargs) -> tuple[list, dict, list, dict]:
    """Run the same config on both engines; logs and reports."""
    out = []
    for engine in ("reference", "period"):
        log = tmp / f"{engine}.log"
        robot = Robot(RobotConfig(engine=engine, log_path=str(log), **kwargs))
        assert robot.engine == engine
        robot.run(seconds)
        report = robot.report(1.0)
        assert report["engine"] == engine
        out += [frames(log), {k: v for k, v in report.items() if k not in NOT_COMPARED}]
    return out[0], out[1], out[2], out[3]


def assert_equal(tmp: Path, seconds: float, **kwargs) -> list:
    ref_log, ref_rep, eng_log, eng_rep = run_both(tmp, seconds, **kwargs)
    assert len(eng_log) == len(ref_log) > 0
    for k, (a, b) in enumerate(zip(ref_log, eng_log, strict=True)):
        assert a == b, f"frame {k}: reference {a}, engine {b}"
    assert eng_rep == ref_rep
    return ref_log


def short_trajectory(rng: np.random.Generator, lines: int) -> Trajectory:
    """A random trajectory of a few lines (poses 350..670 LSB, 20..200 ms apart)."""
    poses = rng.integers(350, 671, size=(lines, 12)).astype(float)
    durations = rng.integers(20, 201, size=lines) / 1000.0
    return Trajectory(poses, durations)


def test_default_robot_equal_over_100_ms_boundaries(tmp_path: Path) -> None:
    """0.45 s: ANNOUNCE at boot, four STATUS bursts coinciding with ticks, 112 periods."""
    log = assert_equal(tmp_path, 0.45)
    ids = [can_id for _, can_id, _ in log]
    assert ids.count("010") == ids.count("022") == ids.count("10C") == 113
    assert sum(i.startswith("3") for i in ids) == 4 * 12  # STATUS at 100, 200, 300, 400 ms
    assert sum(i.startswith("7") for i in ids) == 12  # ANNOUNCE


@pytest.mark.parametrize("kwargs", [
    {"mode": "local-p", "meas_bytes": 6, "seed": 3},
    {"tuning": "designed", "anti_windup": "conditional", "sensing": "winding-bipolar"},
    {"plant": "averaged", "anti_windup": "hard", "seed": 11,
     "actions": ("release 2 at 40ms", "freeze all at 100ms", "engage 2 at 100ms",
                 "pause at 120ms", "scrub 0.25 at 150ms", "resume at 200ms")},
    {"faults": ("tick drop at 60ms", "host delay 5ms at 100ms"), "seed": 5},
])
def test_fixed_scenarios_equal(tmp_path: Path, kwargs: dict) -> None:
    assert_equal(tmp_path, 0.25, **kwargs)


ACTION = st.tuples(st.sampled_from(("release", "engage", "freeze", "pause", "resume", "scrub")),
                   st.integers(0, 12), st.integers(1, 299_999), st.floats(0, 1))


def action_line(verb: str, joint: int, at_us: int, fraction: float) -> str:
    """An operator action at a random microsecond (often mid-frame, mid-period)."""
    if verb in ("release", "engage", "freeze"):
        return f"{verb} {joint or 'all'} at {at_us}us"
    if verb == "scrub":
        return f"scrub {fraction:.3f} at {at_us}us"
    return f"{verb} at {at_us}us"


SCENARIO = dict(  # a random run: seed, trajectory lines, tuning, sensing, frames, mode, actions
    seed=st.integers(0, 10_000), lines=st.integers(1, 4),
    tuning=st.sampled_from(("R2", "R2b", "designed")),
    sensing=st.sampled_from(("supply-unipolar", "winding-bipolar")),
    meas_bytes=st.sampled_from((2, 6)), mode=st.sampled_from(("cascade", "local-p")),
    anti_windup=st.sampled_from(("soft", "hard", "conditional", "dynamic")),
    actions=st.lists(ACTION, max_size=4))


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**SCENARIO)
def test_random_runs_equal(tmp_path: Path, seed: int, lines: int, tuning: str, sensing: str,
                           meas_bytes: int, mode: str, anti_windup: str, actions: list) -> None:
    trajectory = short_trajectory(np.random.default_rng(seed), lines)
    assert_equal(tmp_path, 0.3, seed=seed, trajectory=trajectory, tuning=tuning,
                 sensing=sensing, meas_bytes=meas_bytes, mode=mode, anti_windup=anti_windup,
                 actions=tuple(action_line(*a) for a in actions))


def test_engine_choice() -> None:
    """auto runs the engine unless a bus fault needs the reference path; asking for the engine
    then is an error."""
    assert Robot(RobotConfig()).engine == "compiled"
    assert Robot(RobotConfig(engine="period")).engine == "period"
    auto = Robot(RobotConfig(faults=("node 5 silent at 10ms",)))
    assert auto.engine == "reference"
    assert "reference path" in auto.report(1.0)["engine_fallback"]
    with pytest.raises(ValueError, match="engine period: bus-level faults"):
        Robot(RobotConfig(engine="period", faults=("babble 0x001 at 1ms",)))
    with pytest.raises(ValueError, match="engine 'fast'"):
        Robot(RobotConfig(engine="fast"))


def test_realtime_runs_on_the_engine_paced_and_unchanged(tmp_path: Path) -> None:
    """--realtime: the engine's stretches advance the clock through the paced environment, so
    0.2 simulated s at 4x take at least 50 ms of wall time, and the log is the unpaced one."""
    paced, fast = tmp_path / "paced.log", tmp_path / "fast.log"
    robot = Robot(RobotConfig(realtime_factor=4.0, log_path=str(paced)))
    assert robot.engine == "compiled"
    start = time.perf_counter()
    robot.run(0.2)
    assert time.perf_counter() - start >= 0.049
    Robot(RobotConfig(log_path=str(fast))).run(0.2)
    assert frames(paced) == frames(fast) and len(frames(fast)) > 700
