"""The leg frame: the standing pose is the hanging leg (q2 = +pi/2), x forward (where the hip
pitch swings the foot, the knee bending in front), y left (hip roll), z up (hip yaw)."""

import math

import numpy as np

from servobus.host.leg_frame import STAND, TO_DH, foot_pose, rpy_matrix
from servobus.host.leg_kinematics import forward


def turned(i: int, angle: float) -> np.ndarray:
    """The foot's position (mm, leg frame) with joint i (0-based) turned from standing."""
    q = list(STAND)
    q[i] += angle
    return TO_DH.T @ forward(q)[:3, 3] * 1e3


def test_the_standing_pose_is_the_hanging_leg_with_the_foot_flat() -> None:
    assert np.allclose(forward(STAND), foot_pose((0, 0, -240), (0, 0, 0)))
    assert np.allclose(forward([0, -math.pi / 2, 0, 0, 0, 0])[:3, 3], [0, 0, 0.24])  # upward


def test_the_leg_frames_axes() -> None:
    assert turned(2, 0.1)[0] > 20  # hip pitch: the foot swings forward
    assert turned(1, 0.1)[1] > 20  # hip roll: the foot swings to the left
    assert np.allclose(turned(0, 0.1), [0, 0, -240])  # hip yaw turns about the leg
    bent = list(STAND)
    bent[2], bent[3], bent[4] = 0.3, -0.6, 0.3  # knee forward, foot flat: straight below
    assert np.allclose(forward(bent)[:3, :3], forward(STAND)[:3, :3])
    assert np.allclose((TO_DH.T @ forward(bent)[:3, 3])[:2], 0)


def test_a_foots_roll_pitch_yaw_turn_it_about_the_leg_frames_axes() -> None:
    q = list(STAND)
    q[0] = 0.2  # hip yaw: the whole leg, the foot with it, about z
    assert np.allclose(forward(q), foot_pose((0, 0, -240), (0, 0, math.degrees(0.2))))
    assert np.allclose(rpy_matrix(0.1, 0, 0)[1:, 1:], [[math.cos(0.1), -math.sin(0.1)],
                                                       [math.sin(0.1), math.cos(0.1)]])
