"""Cartesian trajectories: the pots a pose line asks for, turned back through forward
kinematics, give the pose within the pots' quantisation; the branch stays continuous (knee
forward, through a straight knee too); a pose past a joint's limits, out of reach or too far
from the line before is an error naming the file and line."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.host.cartesian import MAX_STEP_DEG, Leg, joint_trajectory
from servobus.host.leg_frame import STAND, foot_pose
from servobus.host.leg_kinematics import LENGTH_M, forward
from servobus.host.poses_file import FootPose, PoseLine, PosesError
from servobus.presets.board import DEFAULT_BOARD

SCALE = DEFAULT_BOARD.pot_lsb_per_rad
LEG = Leg("left", (1, 2, 3, 4, 5, 6), (512, 512, 512, 512, 532, 512), (1, 1, 1, -1, -1, 1),
          ((0, 1023),) * 6, (SCALE,) * 6)
# half an LSB of every joint (0.108 deg): the hip's three axes move the foot by at most their
# distance to it (the leg's 240 mm), the knee by the shank's 120 mm, the ankle's axes meet at the
# foot's origin; the foot's turn is at most the sum of the six
HALF_LSB_RAD = 0.5 / SCALE
POSITION_BOUND_M = (3 * 2 * LENGTH_M + LENGTH_M) * HALF_LSB_RAD
ROTATION_BOUND = 6 * HALF_LSB_RAD


def angles(leg: Leg, lsb: np.ndarray) -> list[float]:
    """The joint angles q1..q6 a leg's pots read."""
    return [STAND[i] + (lsb[j - 1] - leg.zero[i]) * leg.direction[i] / leg.lsb_per_rad[i]
            for i, j in enumerate(leg.joints)]


def lines(*feet: tuple[tuple[float, ...], ...]) -> list[PoseLine]:
    """Pose lines of one leg, numbered from 1, 50 ms each."""
    return [PoseLine((FootPose(f[:3], f[3:]),), 0.05, k + 1)  # type: ignore[arg-type]
            for k, f in enumerate(feet)]


reachable = st.tuples(st.floats(-40, 40), st.floats(-40, 40), st.floats(-225, -170),
                      st.floats(-15, 15), st.floats(-15, 15), st.floats(-15, 15))


@settings(max_examples=200, deadline=None)
@given(reachable)
def test_the_pots_give_the_pose_back_within_their_quantisation(foot: tuple[float, ...]) -> None:
    trajectory = joint_trajectory(lines(foot), (LEG,), 6, "f.poses")
    reached = forward(angles(LEG, trajectory.poses[0]))
    wanted = foot_pose(foot[:3], foot[3:])  # type: ignore[arg-type]
    assert np.abs(reached[:3, 3] - wanted[:3, 3]).max() <= POSITION_BOUND_M
    assert np.abs(reached[:3, :3] - wanted[:3, :3]).max() <= ROTATION_BOUND


def test_the_standing_pose_is_the_zero_pots() -> None:
    trajectory = joint_trajectory(lines((0, 0, -240, 0, 0, 0)), (LEG,), 8, "f.poses")
    assert trajectory.poses[0].tolist() == [*LEG.zero, 512, 512]  # joints in no leg: mid-scale


def test_a_squat_through_the_straight_knee_stays_knee_forward_and_continuous() -> None:
    heights = [-240 + 40 * math.sin(math.pi * k / 20) ** 2 for k in range(40)]  # -240: k = 0, 20
    trajectory = joint_trajectory(lines(*((0, 0, z, 0, 0, 0) for z in heights)), (LEG,), 6,
                                  "f.poses")
    knee = trajectory.poses[:, 3]
    assert (knee >= LEG.zero[3]).all()  # direction -1: q4 <= 0, the knee in front
    assert np.abs(np.diff(trajectory.poses, axis=0)).max() <= 60  # no flip anywhere
    assert knee[0] == knee[20] == LEG.zero[3] < knee[10] == knee[30]


@settings(max_examples=50, deadline=None)
@given(st.lists(reachable, min_size=2, max_size=2))
def test_a_smooth_path_there_and_back_moves_every_joint_smoothly(
        ends: list[tuple[float, ...]]) -> None:
    a, b = np.array(ends[0]), np.array(ends[1])
    path = [tuple(a + (b - a) * math.sin(math.pi * k / 80) ** 2) for k in range(80)]  # and back
    trajectory = joint_trajectory(lines(*path), (LEG,), 6, "f.poses")
    step = np.abs(np.diff(trajectory.poses, axis=0)).max()
    assert step <= 0.1 * MAX_STEP_DEG * SCALE * math.pi / 180  # a small part of the way a line


def test_a_pose_past_a_joints_limits_names_the_line() -> None:
    limits = ((0, 1023), (0, 1023), (0, 1023), (400, 650), (0, 1023), (0, 1023))
    tight = Leg("left", LEG.joints, LEG.zero, LEG.direction, limits, LEG.lsb_per_rad)
    with pytest.raises(PosesError) as caught:
        joint_trajectory(lines((0, 0, -238, 0, 0, 0), (0, 0, -225, 0, 0, 0)), (tight,), 6,
                         "walk.poses")
    assert str(caught.value) == "walk.poses:2: leg left: knee (joint 4) at -40.7 deg from " \
                                "standing needs 700 LSB, beyond its limits 400..650"


def test_a_turn_past_the_pots_range_is_refused() -> None:
    with pytest.raises(PosesError, match=r"^f.poses:1: leg left: hip yaw \(joint 1\) at "
                                         r"\+120.0 deg from standing needs 1067 LSB, beyond its "
                                         r"limits 0..1023$"):
        joint_trajectory(lines((0, 0, -230, 0, 0, 120)), (LEG,), 6, "f.poses")


def test_a_pose_out_of_reach_names_the_line() -> None:
    with pytest.raises(PosesError, match=r"^f.poses:2: leg left: the foot is 250.0 mm from the "
                                         r"hip, beyond the leg's 240.0 mm$"):
        joint_trajectory(lines((0, 0, -230, 0, 0, 0), (0, 0, -250, 0, 0, 0)), (LEG,), 6,
                         "f.poses")


def test_a_joint_turning_too_far_between_lines_is_refused() -> None:
    with pytest.raises(PosesError, match=r"^f.poses:2: leg left: hip yaw \(joint 1\) turns "
                                         r"60.0 deg from line 1, more than 45"):
        joint_trajectory(lines((0, 0, -230, 0, 0, 0), (0, 0, -230, 0, 0, 60)), (LEG,), 6,
                         "f.poses")


def test_the_wrap_from_the_last_line_to_the_first_is_checked_too() -> None:
    feet = [(0, 0, -230, 0, 0, yaw) for yaw in range(0, 61, 10)]
    with pytest.raises(PosesError, match=r"^f.poses:1: leg left: hip yaw \(joint 1\) turns "
                                         r"60.0 deg from line 7, the last \(playback wraps"):
        joint_trajectory(lines(*feet), (LEG,), 6, "f.poses")
