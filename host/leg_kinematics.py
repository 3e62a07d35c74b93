"""Forward and analytic inverse kinematics of a SPEJBL leg (SPEC 4.4), derived here rather than
transcribed (the thesis' printed formulas carry sign and factor errors).

The leg is a 6R chain in the standard D-H convention, A_i = Rz(q_i) Tz(0) Tx(a_i) Rx(alpha_i),
a = 0, 0, L, L, 0, 0 and alpha = -pi/2, pi/2, 0, 0, -pi/2, 0, numbered from the pelvis: axes 1-3
the hip's ball joint (the pelvis frame's origin), axis 4 the knee, axes 5-6 the ankle; the
foot frame's origin is the ankle point.  T = A_1 ... A_6 is the foot relative to the pelvis.

The inverse, for a foot pose (R, p):

* knee: the thigh and shank are equal, |p|^2 = 2 L^2 (1 + cos q4): q4 = +-acos(|p|^2/2L^2 - 1)
  (one value for a straight knee; none beyond 2 L);
* ankle: the hip seen from the foot, h = -R^T p, lies in the plane the knee turns in, which
  contains the foot's z axis after Rz(q6): q6 = atan2(-h_y, h_x) or that + pi; q5 turns
  (w_x, h_z) onto the hip's place in the knee frame, (-L (1 + cos q4), L sin q4);
* hip: A_1 A_2 A_3's rotation is Rz(q1) Ry(q2) Rz(q3) (the two -+pi/2 twists make the middle
  Rz(q2) a rotation about y), the ZYZ angles of R (R_36)^T: q2 = +-acos(m_zz), q1 from the third
  column, q3 from what is left.

Three binary choices: 8 solutions in general, 4 for a straight knee; over the 8, q1 ... q6 take
2, 4, 8, 2, 4, 2 distinct values (the thesis' count).  At a hip or ankle singularity (sin q2 =
0, or the hip on the foot's z axis) the free angle is set to 0.
"""

import math
from collections.abc import Sequence

import numpy as np

LENGTH_M = 0.120  # thigh and shank: the extended leg is 240 mm (SPEC 4.4)
A = (0.0, 0.0, 1.0, 1.0, 0.0, 0.0)  # link lengths in units of L
ALPHA = (-math.pi / 2, math.pi / 2, 0.0, 0.0, -math.pi / 2, 0.0)
SINGULAR = 1e-12  # a sine or a length below this is zero
EDGE = 1e-12  # a cosine within this of +-1 is +-1
SAME_RAD = 1e-9  # two solutions this close in every joint are one


class Unreachable(ValueError):
    """A foot pose no joint angles reach (the ankle farther than 2 L from the hip)."""


def dh(q: float, a: float, alpha: float) -> np.ndarray:
    """The D-H transform Rz(q) Tx(a) Rx(alpha) (d = 0 on every axis)."""
    cq, sq, ca, sa = math.cos(q), math.sin(q), math.cos(alpha), math.sin(alpha)
    return np.array([[cq, -sq * ca, sq * sa, a * cq],
                     [sq, cq * ca, -cq * sa, a * sq],
                     [0.0, sa, ca, 0.0],
                     [0.0, 0.0, 0.0, 1.0]])


def forward(q: Sequence[float], length: float = LENGTH_M) -> np.ndarray:
    """The foot's pose (4 x 4) relative to the pelvis for joint angles q1 ... q6 (rad)."""
    if len(q) != 6:
        raise ValueError(f"a leg has 6 joints, got {len(q)} angles")
    t = np.eye(4)
    for angle, a, alpha in zip(q, A, ALPHA, strict=True):
        t = t @ dh(float(angle), a * length, alpha)
    return t


def _wrap(x: float) -> float:
    """An angle in (-pi, pi]."""
    y = math.remainder(x, 2 * math.pi)
    return math.pi if y == -math.pi else y


def _rz(q: float) -> np.ndarray:
    c, s = math.cos(q), math.sin(q)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _ry(q: float) -> np.ndarray:
    c, s = math.cos(q), math.sin(q)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def inverse(pose: np.ndarray, length: float = LENGTH_M) -> list[tuple[float, ...]]:
    """Every set of joint angles (q1 ... q6, each in (-pi, pi]) that puts the foot at `pose`
    (4 x 4, relative to the pelvis); Unreachable beyond the leg's length."""
    r, p = np.asarray(pose, dtype=float)[:3, :3], np.asarray(pose, dtype=float)[:3, 3]
    reach = float(p @ p) / (2 * length * length) - 1.0
    if reach > 1.0 + 1e-12:
        raise Unreachable(f"the foot is {math.sqrt(float(p @ p)) * 1e3:.1f} mm from the hip, "
                          f"beyond the leg's {2 * length * 1e3:.1f} mm")
    knee = _acos(reach)
    h = -r.T @ p  # the hip in the foot frame
    ankle = math.atan2(-h[1], h[0]) if math.hypot(h[0], h[1]) > SINGULAR * length else 0.0
    out: list[tuple[float, ...]] = []
    for q4 in sorted({knee, -knee}):
        for q6 in (ankle, ankle + math.pi):
            w1 = h[0] * math.cos(q6) - h[1] * math.sin(q6)
            hip_x, hip_y = -length * (1 + math.cos(q4)), length * math.sin(q4)
            q5 = math.atan2(hip_y, hip_x) - math.atan2(h[2], w1)
            r36 = _rz(q4) @ _rz(q5) @ dh(0.0, 0.0, ALPHA[4])[:3, :3] @ _rz(q6)
            m = r @ r36.T  # Rz(q1) Ry(q2) Rz(q3)
            tilt = _acos(m[2, 2])
            for q2 in sorted({tilt, -tilt}):
                s2 = math.sin(q2)
                q1 = math.atan2(m[1, 2] / s2, m[0, 2] / s2) if abs(s2) > SINGULAR else 0.0
                rest = _ry(q2).T @ _rz(q1).T @ m  # Rz(q3)
                q3 = math.atan2(rest[1, 0], rest[0, 0])
                solution = tuple(_wrap(x) for x in (q1, q2, q3, q4, q5, q6))
                if not any(max(abs(_wrap(a - b)) for a, b in zip(solution, other, strict=True))
                           < SAME_RAD for other in out):
                    out.append(solution)
    return out


def _acos(x: float) -> float:
    """acos, exactly 0 or pi within rounding of +-1 (a straight knee, a hip turned upright:
    one solution there, not two a rounding error apart)."""
    if x >= 1.0 - EDGE:
        return 0.0
    if x <= -1.0 + EDGE:
        return math.pi
    return math.acos(x)
