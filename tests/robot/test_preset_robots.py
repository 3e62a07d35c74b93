"""The shipped robots of the servo presets (spejbl-leg-ax12, sg90-arm, nxt-joint): each checks
against its generated DBC, plays its own trajectory in its servos' own LSB and runs on the
compiled engine without faults, its joints in their presets' local-p loops; same seed, same
log."""

from pathlib import Path

import numpy as np
import pytest

from servobus.host.traj_rescale import rescaled
from servobus.host.trajectory import Trajectory, TrajectoryError, default_gait, load
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import AX12
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.robot_check import check
from servobus.robot.robot_dbc import dbc_text
from servobus.robot.robot_file import load as load_robot

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
# name: (servo, joints, frames of one period: TICK, a MEAS per joint, the set-point frames)
SHIPPED = {"spejbl-leg-ax12": ("ax-12", 6, 1 + 6 + 2), "sg90-arm": ("sg90", 3, 1 + 3 + 1),
           "nxt-joint": ("nxt", 1, 1 + 1 + 1)}


@pytest.mark.parametrize("name", SHIPPED)
def test_checks_against_its_generated_dbc(name: str) -> None:
    robot = load_robot(name)
    servo, joints, frames = SHIPPED[name]
    assert check(robot)["frames_per_period"] == frames
    assert dbc_text(robot) == (ROBOTS / f"{name}.dbc").read_text()
    assert len(robot.joints) == joints and robot.trajectory is not None
    assert {(j.options.preset.name, j.options.mode) for j in robot.joints
            if j.options is not None} == {(servo, "local-p")}
    assert load(robot.trajectory, joints).poses.shape[1] == joints


def test_the_ax12_legs_gait_is_spejbls_at_the_same_angles() -> None:
    """ax12-leg-gait.traj is SPEJBL's gait, joints 1-6, carried from the pot's 832 LSB per pi
    rad to the AX-12's 1023 per 300 deg: every angle within half an AX-12 LSB."""
    robot = load_robot("spejbl-leg-ax12")
    assert robot.trajectory is not None
    leg = load(robot.trajectory, 6)
    gait = default_gait(6)
    ax = AX12.sensed_by(DEFAULT_BOARD).pot_lsb_per_pi
    assert ax == pytest.approx(613.8)
    assert (leg.poses == rescaled(gait, DEFAULT_BOARD.pot_lsb_per_pi, ax).poses).all()
    assert (leg.durations == gait.durations).all()
    angle_gait = (gait.poses - 512) / DEFAULT_BOARD.pot_lsb_per_pi
    angle_leg = (leg.poses - 512) / ax
    assert abs(angle_leg - angle_gait).max() <= 0.5 / ax


def test_a_rescale_that_leaves_the_sensor_is_an_error() -> None:
    knee_bent = Trajectory(np.array([[512.0, 512.0, 512.0, 632.0]]), np.array([0.05]), "t.traj")
    with pytest.raises(TrajectoryError, match=r"^t\.traj: sample 1, joint 4: 632 LSB at 100 "
                                              r"per pi rad is 1510 at 832, outside 0\.\.1023$"):
        rescaled(knee_bent, 100.0, 832.0)


@pytest.mark.parametrize(("name", "lo", "hi"), [
    # tracking rms per joint (its sensor's LSB) over 1.5 s, measured at seed 0 and bracketed
    # by a factor of 2: the AX-12 leg's hip yaw holds still
    ("spejbl-leg-ax12", [0.0, 1.0, 3.0, 3.0, 2.0, 1.0], [2.0, 8.0, 16.0, 18.0, 10.0, 7.0]),
    ("sg90-arm", [10.0, 4.0, 8.0], [60.0, 25.0, 45.0]),
    ("nxt-joint", [3.0], [16.0]),
])
def test_runs_on_the_compiled_engine_without_faults(name: str, lo: list, hi: list) -> None:
    robot = Robot(RobotConfig(robot=name, engine="compiled"))
    robot.run(1.5)
    rep = robot.report(1.0)
    assert rep["engine"] == "compiled" and rep["engine_periods"]["compiled"] > 300
    assert rep["ticks"] == 375 and rep["slips"] == 0 and rep["deadline_misses"] == 0
    assert rep["servo_faults"] == {} and rep["trips"] == {} and rep["error_frames"] == 0
    assert rep["actuation_timeouts"] == {} and rep["mode"] == "local-p"
    assert rep["tuning"] == "none (local-p)"
    servo = SHIPPED[name][0]
    assert {d["servo"] for d in rep["tuning_detail"].values()} == {servo}
    for k, rms in enumerate(rep["tracking_rms_lsb"]):
        assert lo[k] <= rms <= hi[k], (k + 1, rms)
    assert abs(rep["bus_load_pct"] - rep["bus_load_predicted_pct"]) < 1.0


@pytest.mark.parametrize("name", SHIPPED)
def test_same_seed_gives_a_bit_identical_log(tmp_path: Path, name: str) -> None:
    def log(seed: int, file: str) -> bytes:
        path = tmp_path / file
        Robot(RobotConfig(robot=name, seed=seed, log_path=str(path))).run(0.3)
        return path.read_bytes()

    assert log(3, "a.log") == log(3, "b.log")
    # the seed drives the sensor noise: the NXT's tachometer has none (its preset)
    assert (log(3, "a.log") == log(4, "c.log")) == (name == "nxt-joint")
