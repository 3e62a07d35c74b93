"""The shipped robots of the servo presets (spejbl-leg-ax12, sg90-arm, nxt-joint): each checks
against its generated DBC, plays its own trajectory in its servos' own LSB and runs on the
compiled engine without faults, its joints in their presets' local-p loops; same seed, same
log."""

import math
from pathlib import Path

import numpy as np
import pytest

from servobus.host import poses_file
from servobus.host.cartesian import Leg, joint_trajectory
from servobus.host.trajectory import load
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.robot_check import check
from servobus.robot.robot_dbc import dbc_text
from servobus.robot.robot_file import load as load_robot

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
DATA = ROBOTS.parent / "host" / "data"
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


def test_the_ax12_legs_step_is_the_same_angles_as_spejbls_leg_in_its_own_lsb() -> None:
    """leg_step.poses is step_in_place.poses' left leg; ax12-leg-step.traj is what `servobus
    cartesian leg_step.poses` makes of it for the AX-12 leg; the same poses on SPEJBL's leg
    (832 LSB per pi rad) give the same joint angles: the two agree within half an LSB of each,
    after each description's zero and direction."""
    ax12, spejbl = load_robot("spejbl-leg-ax12"), load_robot("spejbl-leg")
    assert ax12.trajectory is not None
    lines = poses_file.load(DATA / "leg_step.poses", ("left",))
    both = poses_file.load(DATA / "step_in_place.poses", ("left", "right"))  # its left leg
    assert [(p.feet[0], p.seconds) for p in lines] == [(p.feet[0], p.seconds) for p in both]
    shipped = load(ax12.trajectory, 6)
    made = joint_trajectory(lines, ax12.legs, 6, "leg_step.poses")
    assert (made.poses == shipped.poses).all() and (made.durations == shipped.durations).all()
    pots = joint_trajectory(lines, spejbl.legs, 6, "leg_step.poses").poses
    (leg_ax,), (leg_pot,) = ax12.legs, spejbl.legs
    assert leg_ax.lsb_per_rad[0] == pytest.approx(1023 / 300 * 180 / math.pi)

    def angles(columns: np.ndarray, leg: Leg) -> np.ndarray:
        return (columns - np.array(leg.zero)) * np.array(leg.direction) / np.array(
            leg.lsb_per_rad)

    # the zeros differ by rounding too: 532 on the pot is 526.75 on the AX-12, written 527
    bound = 0.5 / leg_ax.lsb_per_rad[0] + 0.5 / leg_pot.lsb_per_rad[0] + \
        0.25 / leg_ax.lsb_per_rad[0]
    assert abs(angles(made.poses, leg_ax) - angles(pots, leg_pot)).max() <= bound


@pytest.mark.parametrize(("name", "lo", "hi"), [
    # tracking rms per joint (its sensor's LSB) over 1.5 s, measured at seed 0 and bracketed
    # by a factor of about 2 each way (up to 2.5 either side)
    ("spejbl-leg-ax12", [0.5, 0.8, 0.6, 0.7, 0.6, 1.1], [2.3, 3.6, 2.5, 3.0, 2.5, 4.7]),
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
