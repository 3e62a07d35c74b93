"""A foot pose as a gait is written, in the leg frame, turned into the D-H base frame
``host.leg_kinematics`` solves in.

The leg frame has its origin at the hip (the D-H base frame's origin), x forward, y to the
robot's left, z up: forward kinematics puts the hanging leg (q2 = +pi/2, every other angle 0)
along -z of the D-H base frame, the knee and ankle pitch axes along its x (so the knee bends in
its y-z plane: forward is +y there) and the hip and ankle roll axes along its y.  So the leg
frame is the D-H base frame turned by +90 degrees about z.  A foot's orientation is written
relative to the standing foot: roll, pitch, yaw 0 is the hanging leg's foot, R = Rz(yaw)
Ry(pitch) Rx(roll) turns it about the leg frame's axes (roll about forward, pitch about left).
"""

import math

import numpy as np

from servobus.host.leg_kinematics import forward

STAND = (0.0, math.pi / 2, 0.0, 0.0, 0.0, 0.0)  # q1..q6 of the hanging leg, the standing pose
TO_DH = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # leg frame -> D-H: Rz(90)
STAND_ROTATION = forward(STAND)[:3, :3]


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Rz(yaw) Ry(pitch) Rx(roll), angles in rad."""
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch),
                              math.sin(pitch), math.cos(yaw), math.sin(yaw))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def foot_pose(position_mm: tuple[float, float, float],
              rpy_deg: tuple[float, float, float]) -> np.ndarray:
    """The foot's pose (4 x 4, m, D-H base frame) for a position in mm and an orientation in
    degrees, both in the leg frame."""
    pose = np.eye(4)
    turn = rpy_matrix(*(math.radians(a) for a in rpy_deg))
    pose[:3, :3] = TO_DH @ turn @ TO_DH.T @ STAND_ROTATION
    pose[:3, 3] = TO_DH @ np.array(position_mm, dtype=float) / 1e3
    return pose
