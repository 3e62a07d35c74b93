"""Time-triggered robots of any shape, from a description and its generated DBC: 1, 3, 7 and 16
joints run end to end on the compiled engine, with the frames a hand count gives; robots of
random shapes (joint count, actuation groups in any order, mode, measurement size) give the
same log frame by frame on all three engines."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.robot_new import write_new
from tests.robot.test_engine_equality import frames

PERIOD_S = 0.004
STATUS_S = 0.1


@pytest.mark.parametrize("joints", [1, 3, 7, 16])
def test_a_robot_of_n_joints_runs_end_to_end(tmp_path: Path, joints: int) -> None:
    """`servobus robot new` then `servobus run --robot FILE`: the compiled engine runs it; one
    second holds 250 ticks, each with a MEAS per joint and an ACTUATION per four joints, a
    STATUS per joint every 100 ms after boot and an ANNOUNCE per joint at boot."""
    python = [sys.executable, "-m", "servobus"]
    new = subprocess.run([*python, "robot", "new", f"r{joints}", "--joints", str(joints),
                          "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert new.returncode == 0, new.stderr
    log = tmp_path / "run.log"
    run = subprocess.run([*python, "run", "--robot", str(tmp_path / f"r{joints}.toml"),
                          "--duration", "1", "--json", "--log", str(log)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 200
    groups = -(-joints // 4)
    ticks = round(1.0 / PERIOD_S)
    statuses = round(1.0 / STATUS_S) - 1  # at 100 .. 900 ms; the one at 1 s is past the end
    assert report["ticks"] == ticks
    ids = [can_id for _, can_id, _ in frames(log)]
    assert len(ids) == ticks * (1 + joints + groups) + statuses * joints + joints
    assert ids.count("010") == ticks
    assert len(report["tracking_rms_lsb"]) == joints and max(report["tracking_rms_lsb"]) < 10
    assert report["servo_faults"] == {} and report["deadline_misses"] == 0
    assert report["slips"] == 0 and report["trips"] == {}


def test_joint_j_of_any_robot_follows_the_same_gait_column(tmp_path: Path) -> None:
    """Without a trajectory of its own, joint j follows the shipped gait's joint (j-1) mod 12
    + 1 and has joint j's plant seed: joint 1 of a 1-joint robot tracks as joint 1 of a 13-joint
    one, joint 13 as its joint 1 (the same column, another seed)."""
    write_new("one", 1, tmp_path)
    write_new("thirteen", 13, tmp_path)
    one = Robot(RobotConfig(robot=str(tmp_path / "one.toml")))
    thirteen = Robot(RobotConfig(robot=str(tmp_path / "thirteen.toml")))
    for robot in (one, thirteen):
        robot.run(0.5)
    rms_one = one.report(1.0)["tracking_rms_lsb"]
    rms_13 = thirteen.report(1.0)["tracking_rms_lsb"]
    assert rms_one[0] == rms_13[0]
    assert np.array_equal(thirteen.trajectory.poses[:, 12], thirteen.trajectory.poses[:, 0])


def _groups(draw_order: list[int], sizes: list[int]) -> list[list[int]]:
    """The joints in `draw_order` cut into groups of `sizes` (the last takes the rest)."""
    out, k = [], 0
    for size in sizes:
        if k < len(draw_order):
            out.append(draw_order[k:k + size])
            k += size
    if k < len(draw_order):
        out.append(draw_order[k:])
    return [g for chunk in out for g in (chunk[i:i + 4] for i in range(0, len(chunk), 4))]


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(joints=st.integers(1, 9), data=st.data(), mode=st.sampled_from(("cascade", "local-p")),
       meas_bytes=st.sampled_from((2, 6)), seed=st.integers(0, 1000))
def test_random_shapes_equal_on_every_engine(tmp_path: Path, joints: int, data: st.DataObject,
                                             mode: str, meas_bytes: int, seed: int) -> None:
    order = data.draw(st.permutations(list(range(1, joints + 1))))
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=joints))
    groups = _groups(list(order), sizes)
    folder = tmp_path / f"shape{seed}"
    toml, _ = write_new("shape", joints, folder, groups=groups)
    logs, reports = [], []
    for engine in ("reference", "period", "compiled"):
        log = folder / f"{engine}.log"
        robot = Robot(RobotConfig(robot=str(toml), engine=engine, seed=seed, mode=mode,
                                  meas_bytes=meas_bytes, log_path=str(log)))
        assert robot.engine == engine, robot.engine_fallback
        robot.run(0.25)
        logs.append(frames(log))
        reports.append({k: v for k, v in robot.report(1.0).items()
                        if k not in ("wall_time_s", "rtf", "engine", "engine_periods")})
    assert logs[0] == logs[1] == logs[2] and len(logs[0]) > 60 * (1 + joints)
    assert reports[0] == reports[1] == reports[2]
