"""Cartesian trajectories: the feet's poses over time (``host.poses_file``) as a joint
trajectory in pot LSB (``host.trajectory``, SPEC 4.3), through each leg's inverse kinematics
(``host.leg_kinematics``) and the description's pot mapping (``Leg``).

A leg's pose has up to 8 solutions; the one taken keeps every joint on one continuous branch:

* the knee bends forward (q4 <= 0: the knee in front of the hip-ankle line, ``host.leg_frame``),
  always: a straight knee is where the two knee branches meet, so nearness alone could not tell
  them apart there;
* of those, the solution nearest the previous line's (the largest wrapped joint difference
  smallest), at the first line the one nearest the standing pose;
* a joint that would still turn more than MAX_STEP_DEG from one line to the next (the last line
  to the first too: playback wraps) is an error, not a silent flip: the pose crossed a
  singularity onto another branch, or the lines are too coarse for playback's interpolation
  in joint coordinates to follow the Cartesian path.

A joint's pot reading is zero + direction * (q - q_standing) * LSB/rad, rounded to the nearest
integer; one outside the joint's limits is an error naming the line that asks for it.  Joints of
the robot in no leg hold mid-scale (512).
"""

import math
from dataclasses import dataclass

import numpy as np

from servobus.host.leg_frame import STAND, foot_pose
from servobus.host.leg_kinematics import Unreachable, inverse
from servobus.host.poses_file import FootPose, PoseLine, PosesError
from servobus.host.trajectory import POT_CODES, Trajectory

JOINT_NAMES = ("hip yaw", "hip roll", "hip pitch", "knee", "ankle pitch", "ankle roll")
MAX_STEP_DEG = 45.0  # a joint's largest turn from one pose line to the next
KNEE_FORWARD = 1e-9  # q4 at most this (rad): the knee-forward branch, a straight knee included
MID_SCALE = POT_CODES // 2


@dataclass(frozen=True)
class Leg:
    """One leg of a robot: which joints are its q1..q6 and how each joint's pot reads them."""

    name: str
    joints: tuple[int, ...]  # the robot's joint numbers (from 1) of q1..q6
    zero: tuple[int, ...]  # pot LSB of each at the standing pose (host.leg_frame.STAND)
    direction: tuple[int, ...]  # +1: the pot counts up as q_i grows; -1: down
    limits: tuple[tuple[int, int], ...]  # the lowest and highest pot LSB each may be sent
    lsb_per_rad: tuple[float, ...]  # each joint's pot scale


def joint_trajectory(lines: list[PoseLine], legs: tuple[Leg, ...], joints: int,
                     source: str) -> Trajectory:
    """The trajectory of `joints` columns that puts the feet at `lines`' poses (PosesError
    naming source:line for a pose out of reach, past a joint's limits or off the branch)."""
    columns = np.full((len(lines), joints), float(MID_SCALE))
    angles: list[list[tuple[float, ...]]] = [[] for _ in legs]
    for row, line in enumerate(lines):
        where = f"{source}:{line.line}"
        for k, leg in enumerate(legs):
            previous = angles[k][-1] if angles[k] else STAND
            q = _solve(line.feet[k], previous, f"{where}: leg {leg.name}")
            if angles[k]:
                _check_step(leg, previous, q, f"{where}: leg {leg.name}",
                            f"line {lines[row - 1].line}")
            angles[k].append(q)
            for j, lsb in zip(leg.joints, _pots(leg, q, f"{where}: leg {leg.name}"), strict=True):
                columns[row, j - 1] = lsb
    for k, leg in enumerate(legs):
        _check_step(leg, angles[k][-1], angles[k][0],
                    f"{source}:{lines[0].line}: leg {leg.name}",
                    f"line {lines[-1].line}, the last (playback wraps to the first)")
    return Trajectory(columns, np.array([line.seconds for line in lines]), source)


def _wrap(x: float) -> float:
    """An angle in [-pi, pi)."""
    return (x + math.pi) % (2 * math.pi) - math.pi


def _distance(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The largest wrapped joint difference of two solutions (rad)."""
    return max(abs(_wrap(x - y)) for x, y in zip(a, b, strict=True))


def _solve(foot: FootPose, previous: tuple[float, ...], where: str) -> tuple[float, ...]:
    """The knee-forward solution for `foot` nearest `previous`."""
    try:
        solutions = inverse(foot_pose(foot.position_mm, foot.rpy_deg))
    except Unreachable as err:
        raise PosesError(f"{where}: {err}") from None
    forward = [q for q in solutions if q[3] <= KNEE_FORWARD]
    return min(forward, key=lambda q: _distance(q, previous))


def _check_step(leg: Leg, before: tuple[float, ...], after: tuple[float, ...], where: str,
                since: str) -> None:
    """PosesError if a joint turns more than MAX_STEP_DEG from `before` to `after`."""
    turns = [abs(math.degrees(_wrap(b - a))) for a, b in zip(before, after, strict=True)]
    i = int(np.argmax(turns))
    if turns[i] > MAX_STEP_DEG:
        raise PosesError(f"{where}: {JOINT_NAMES[i]} (joint {leg.joints[i]}) turns "
                         f"{turns[i]:.1f} deg from {since}, more than {MAX_STEP_DEG:g}: the "
                         "nearest solution is on another branch (the pose crossed a "
                         "singularity) or the step is too coarse; add poses between")


def _pots(leg: Leg, q: tuple[float, ...], where: str) -> list[int]:
    """Each joint's pot reading (LSB) for angles q, within its limits (else PosesError)."""
    out = []
    for i, angle in enumerate(q):
        turn = _wrap(angle - STAND[i])
        lsb = round(leg.zero[i] + leg.direction[i] * turn * leg.lsb_per_rad[i])
        lo, hi = leg.limits[i]
        if not lo <= lsb <= hi:
            raise PosesError(f"{where}: {JOINT_NAMES[i]} (joint {leg.joints[i]}) at "
                             f"{math.degrees(turn):+.1f} deg from standing needs {lsb} LSB, "
                             f"beyond its limits {lo}..{hi}")
        out.append(lsb)
    return out
