"""`servobus cartesian`: the shipped poses make the shipped step_in_place.traj exactly, and the
robot plays it; a pose the legs cannot take is an `error:` naming the poses file and line."""

import json
from pathlib import Path

import pytest

from servobus.tools.cli import main

DATA = Path(__file__).resolve().parents[2] / "host" / "data"
POSES = DATA / "step_in_place.poses"
STAND = "0 0 -225 0 0 0   0 0 -225 0 0 0   0.05\n"


def test_the_shipped_poses_make_the_shipped_trajectory_exactly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "step.traj"
    assert main(["cartesian", "step_in_place.poses", "--out", str(out)]) == 0
    assert out.read_text() == (DATA / "step_in_place.traj").read_text()
    assert capsys.readouterr().out == f"wrote {out} (48 lines, spejbl: 12 joints, 2.4 s a pass)\n"
    assert main(["cartesian", str(POSES)]) == 0  # printed, the same
    assert capsys.readouterr().out == out.read_text()


def test_the_robot_plays_the_trajectory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--trajectory", str(DATA / "step_in_place.traj"), "--duration", "0.3",
                 "--engine", "period", "--no-progress", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["servo_faults"] == {} and report["current_limit_events"] == 0
    assert max(report["tracking_max_lsb"]) <= 10


def test_a_pose_the_legs_cannot_take_is_an_error_naming_the_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    poses = tmp_path / "far.poses"
    poses.write_text(f"# stand, then turn the right foot\n{STAND}"
                     + STAND.replace("0 0 0   0.05", "0 0 50   0.05"))
    assert main(["cartesian", str(poses)]) == 2
    assert capsys.readouterr().err == \
        f"error: {poses}:3: leg right: hip yaw (joint 7) turns 50.0 deg from line 2, more " \
        "than 45: the nearest solution is on another branch (the pose crossed a singularity) " \
        "or the step is too coarse; add poses between\n"
    poses.write_text(STAND.replace("0 0 0   0.05", "0 0 120   0.05"))
    assert main(["cartesian", str(poses)]) == 2
    assert capsys.readouterr().err == \
        f"error: {poses}:1: leg right: hip yaw (joint 7) at +120.0 deg from standing needs " \
        "1067 LSB, beyond its limits 0..1023\n"


def test_other_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cartesian", str(POSES), "--robot", "guroo"]) == 2
    assert capsys.readouterr().err.endswith("guroo.toml: legs: missing: the robot names no legs "
                                            "([[legs]], docs/robot-file.md)\n")
    assert main(["cartesian", str(POSES), "--robot", "spejbl-leg"]) == 2  # one leg: 7 fields
    assert capsys.readouterr().err == \
        f"error: {POSES}:11: a pose line is x y z roll pitch yaw for each leg (left) and the " \
        "seconds: 7 fields, got 13\n"
    out = tmp_path / "x.traj"
    out.write_text("")
    assert main(["cartesian", str(POSES), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"error: {out} exists: give --force to overwrite it\n"
    assert main(["cartesian", str(POSES), "--out", str(out), "--force"]) == 0
