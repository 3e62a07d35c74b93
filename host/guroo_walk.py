"""The thesis' walking pattern (SPEC 5) from approximate sagittal and frontal leg kinematics.

GuRoo is 1.2 m tall; assumed segments: thigh = shank = 0.28 m (hip to ankle 0.56 m, a little
under half the height, as in a human).  Each leg is a planar two-link chain with the torso kept
upright and the foot flat: a leg whose hip-to-ankle line is at angle phi from the vertical (ankle
ahead: phi > 0) with knee flexion k has hip pitch phi + k/2, knee pitch k, ankle pitch k/2 - phi.

* Preload squat: ankle pitch 6 deg with the leg vertical, so knee 12 deg and hip pitch 6 deg
  (torso upright); the hip sinks to h = 2 L cos 6 deg.
* Steps at 1 Hz with a step length of 100 mm (the distance between the feet in double support):
  the front leg at phi = atan(0.05 / h), the rear at -phi, both stretched (longer knee angle) to
  keep the hip at h; the swing foot lifted 20 mm at mid-swing (leg vertical, knee bent more).
* Sway at 0.5 Hz from hip and ankle roll: the hip moves 40 mm over the stance foot (roll
  rho = atan(0.04 / h), hip roll rho and ankle roll -rho on both legs: feet flat, torso upright).
* Arms swing against the legs (shoulder pitch -/+ 10 deg); waist, elbows, shoulder roll and head
  hold still.

Key poses every 0.5 s (one move each, the cosine velocity profile between them):
K3 sway right, left foot lifted; K0 double support, left foot ahead; K1 sway left, right foot
lifted; K2 double support, right foot ahead.  Start: zero pose -> squat (1 s) -> K3 (0.5 s);
then the 2 s cycle K3 -> K0 -> K1 -> K2 -> K3 (two steps, one sway period).
"""

import itertools
import math
from dataclasses import dataclass

import numpy as np

from servobus.host.guroo_trajectory import JOINT_NAMES, JOINTS, Gait, Moves

IDX = {name: k for k, name in enumerate(JOINT_NAMES)}


@dataclass(frozen=True)
class WalkParameters:
    """The walking pattern's numbers (SPEC 5 and the stated assumptions)."""

    thigh_m: float = 0.28
    shank_m: float = 0.28
    squat_ankle_deg: float = 6.0
    step_length_m: float = 0.100
    step_hz: float = 1.0
    sway_hz: float = 0.5
    sway_m: float = 0.040
    lift_m: float = 0.020
    arm_swing_deg: float = 10.0
    squat_s: float = 1.0


def _leg(p: WalkParameters, phi: float, length: float) -> tuple[float, float, float]:
    """Hip pitch, knee, ankle pitch (rad) of a leg at angle phi with hip-to-ankle `length`."""
    cos_half = (p.thigh_m ** 2 + length ** 2 - p.shank_m ** 2) / (2 * p.thigh_m * length)
    a_thigh = math.acos(min(cos_half, 1.0))  # thigh vs leg line
    a_shank = math.asin(p.thigh_m * math.sin(a_thigh) / p.shank_m)
    return phi + a_thigh, a_thigh + a_shank, a_shank - phi


def key_poses(p: WalkParameters) -> dict[str, np.ndarray]:
    """The squat and the four key poses of the cycle (23 joint angles, rad)."""
    squat_k = 2 * math.radians(p.squat_ankle_deg)
    h = (p.thigh_m + p.shank_m) * math.cos(squat_k / 2)  # equal segments: the squat's hip height
    phi = math.atan(p.step_length_m / 2 / h)
    stance, lifted = _leg(p, 0.0, h), _leg(p, 0.0, h - p.lift_m)
    front, rear = _leg(p, phi, h / math.cos(phi)), _leg(p, -phi, h / math.cos(phi))
    rho = math.atan(p.sway_m / h)
    arm = math.radians(p.arm_swing_deg)

    def pose(left: tuple[float, ...], right: tuple[float, ...], roll: float,
             l_arm: float) -> np.ndarray:
        q = np.zeros(JOINTS)
        for side, leg in (("l", left), ("r", right)):
            for part, angle in zip(("hip_pitch", "knee_pitch", "ankle_pitch"), leg, strict=True):
                q[IDX[f"{side}_{part}"]] = angle
            q[IDX[f"{side}_hip_roll"]], q[IDX[f"{side}_ankle_roll"]] = roll, -roll
        q[IDX["l_shoulder_pitch"]], q[IDX["r_shoulder_pitch"]] = l_arm, -l_arm
        return q

    return {"squat": pose(stance, stance, 0.0, 0.0),
            "K3": pose(lifted, stance, rho, 0.0), "K0": pose(front, rear, 0.0, -arm),
            "K1": pose(stance, lifted, -rho, 0.0), "K2": pose(rear, front, 0.0, arm)}


def walk_pattern(p: WalkParameters = WalkParameters()) -> Gait:
    """The walking pattern as chained moves per joint."""
    if p.step_hz != 2 * p.sway_hz:
        raise ValueError("the pattern takes two steps per sway period (step 1 Hz, sway 0.5 Hz)")
    k = key_poses(p)
    quarter = 1.0 / (2 * p.step_hz)  # 0.5 s between key poses
    start_poses = [np.zeros(JOINTS), k["squat"], k["K3"]]
    cycle_poses = [k["K3"], k["K0"], k["K1"], k["K2"], k["K3"]]

    def chains(poses: list[np.ndarray], durations: list[float]) -> tuple[Moves, ...]:
        return tuple(Moves(tuple(float(b[j] - a[j]) for a, b in itertools.pairwise(poses)),
                           tuple(durations)) for j in range(JOINTS))

    cycle = chains(cycle_poses, [quarter] * 4)
    cycle = tuple(Moves((*c.thetas[:-1], -sum(c.thetas[:-1])), c.durations) for c in cycle)
    return Gait(chains(start_poses, [p.squat_s, quarter]), cycle, "<walk_pattern>")


HEADER = """# servobus: GuRoo's walking pattern (SPEC 5), written by servobus.host.guroo_walk
# (walk_pattern(WalkParameters())).  Moves [theta_deg, T_s] per joint: a joint plays its start
# moves once, then repeats its cycle (the velocity profile of each move is
# omega(t) = (theta/T)(1 - cos(2 pi t/T))).  Joints 1..15: high-power boards 1..5, three motors
# each; joints 16..23: the RC servo board's servos 1..8.

[pattern]  # documentation only: the numbers the moves were derived from
height_m = 1.2
thigh_m = 0.28
shank_m = 0.28
squat_ankle_pitch_deg = 6.0
step_length_m = 0.100
step_hz = 1.0
sway_hz = 0.5
sway_m = 0.040
swing_lift_m = 0.020
arm_swing_deg = 10.0"""
