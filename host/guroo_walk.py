"""GuRoo's walk as the thesis describes it (Appendix E, section 5): a sway, and a step made by a
hip-yaw twist.

Line numbers are those of ../shared/sources/guroo-thesis-hood-2002.txt; a number without one is
ours, with its reason in WalkParameters.

* Preload squat (L1898): ankle pitch 6 deg with the leg vertical, knee and hip pitch keeping the
  torso upright (with our equal segments L: knee 12, hip pitch 6 deg, the hip sunk to
  h = 2 L cos 6 deg).
* Sway at 0.5 Hz from hip and ankle roll (L1900): the hip moves ``sway_m`` over the stance foot
  (roll rho = atan(sway / h), hip roll rho and ankle roll -rho on both legs: feet flat, torso
  roll 0, L1896).  One move from extreme to extreme per second: the thesis' 1 s window opens in
  double support with the robot vertical "halfway through the movement that transfers the centre
  of mass" (L1908) and "all motion in the roll plane ceases" at the extreme, t = 0.5 s (L1914).
* Step at 1 Hz, 100 mm (L1892) made by "each yaw axis motor" twisting between the lifting and
  lowering of the swing leg (L1904; "the motion of the yaw axis as the swing leg is lifted
  propels the robot forward", L1923).  With both legs vertical in double support ("both legs
  are fully extended", L1908), feet facing forward and the pelvis pivoting about the stance
  hip, the feet are w sin(psi) apart for a pelvis turned psi and hip spacing w; so
  psi0 = asin(step / w), and every step turns the pelvis from -psi0 to +psi0 or back, both hip
  yaws alike.  Hip yaw is the leg turned against the pelvis (positive counter-clockwise seen
  from above): yaw +psi0 is the pelvis turned right, the left foot ahead.
* Swing-leg timing in the 1 s step (L1908-L1939): the leg lifts at 0.25 s (L1910), is "fully
  lifted" at the sway extreme, 0.5 s (L1914), and is down at 0.85 s (L1939), by hip, knee and
  ankle pitch (L1904) with the leg vertical; the yaw twist runs from the lift to the contact.
* Torso facing the direction of travel (L1896): the waist yaw (torso turned against the
  pelvis, same sense) equals the hip yaw, undoing the pelvis' turn.
* Arms swing against the legs with the yaw's timing (shoulder pitch); elbows, shoulder roll,
  waist roll and pitch, and the head hold still.

Start: zero pose -> squat (1 s); the sway in to the right extreme (1 s); a half step of the
left leg (yaw 0 -> +psi0) in the step before the thesis' window, t = -1..0 s, whose sway extreme
(t = -0.5 s) is the sway in's end.  Then the 2 s cycle: the right leg's step (t = 0..1 s, the
thesis' window: the right leg swings, L1926), then the left's.  The roll joints' cycle begins at
their sway extreme, half a step before the others' (a move cannot be cut at the seam;
guroo_trajectory gives each joint its own start).
"""

import math
from dataclasses import dataclass

from servobus.host.guroo_trajectory import JOINT_NAMES, Gait, Moves

IDX = {name: k for k, name in enumerate(JOINT_NAMES)}
PITCH = ("hip_pitch", "knee_pitch", "ankle_pitch")

Chain = list[tuple[float, float]]  # (theta rad, T s) per move


@dataclass(frozen=True)
class WalkParameters:
    """The walk's numbers: the thesis' (line numbers) and ours (with the reason)."""

    squat_ankle_deg: float = 6.0  # L1898
    step_length_m: float = 0.100  # L1892: the feet's fore-aft distance in double support
    step_hz: float = 1.0  # L1892
    sway_hz: float = 0.5  # L1900; its extreme, a quarter period, is the 0.5 s of L1914
    lift_s: float = 0.25  # L1910: the swing leg lifts
    contact_s: float = 0.85  # L1939: the swing leg is down
    # ours: the thesis gives no segment lengths (1.2 m robot: hip to ankle 0.56 m, a little
    # under half the height, as in a human)
    thigh_m: float = 0.28
    shank_m: float = 0.28
    # ours: no hip spacing in the text (Fig. 2 is an image); it sets the yaw amplitude,
    # asin(0.1 / w): 30 deg at 0.20 m, 23.6 at 0.25, 41.8 at 0.15
    hip_spacing_m: float = 0.20
    sway_m: float = 0.040  # ours: not in the text; the centre of mass need not reach the
    # stance foot (L1902), so less than half the hip spacing
    lift_m: float = 0.020  # ours: not in the text; the swing foot's ankle raised 20 mm
    arm_swing_deg: float = 10.0  # ours: the text is silent on the arms' joints
    squat_s: float = 1.0  # ours: the squat's move from the zero pose
    sway_in_s: float = 1.0  # ours: from upright to the first sway extreme


@dataclass(frozen=True)
class Amplitudes:
    """The pattern's joint angles (rad): a leg's (hip pitch, knee, ankle pitch) in the squat
    and lifted, the hip roll at the right sway extreme, the hip yaw with the left foot ahead."""

    squat: tuple[float, float, float]
    lifted: tuple[float, float, float]
    roll: float
    yaw: float


def _leg(p: WalkParameters, length: float) -> tuple[float, float, float]:
    """Hip pitch, knee, ankle pitch (rad) of a vertical leg with hip-to-ankle `length`, torso
    upright and foot flat."""
    cos_thigh = (p.thigh_m ** 2 + length ** 2 - p.shank_m ** 2) / (2 * p.thigh_m * length)
    a_thigh = math.acos(min(cos_thigh, 1.0))  # thigh vs leg line
    a_shank = math.asin(p.thigh_m * math.sin(a_thigh) / p.shank_m)
    return a_thigh, a_thigh + a_shank, a_shank


def amplitudes(p: WalkParameters) -> Amplitudes:
    """The squat, the lifted leg, the sway's roll and the step's yaw of parameters `p`."""
    shank = math.radians(p.squat_ankle_deg)  # the shank's lean, the foot flat
    thigh = math.asin(p.shank_m / p.thigh_m * math.sin(shank))  # the ankle under the hip
    h = p.thigh_m * math.cos(thigh) + p.shank_m * math.cos(shank)  # the squat's hip height
    return Amplitudes(_leg(p, h), _leg(p, h - p.lift_m), math.atan(p.sway_m / h),
                      math.asin(p.step_length_m / p.hip_spacing_m))


def _moves(chain: Chain) -> Moves:
    """A chain as Moves, consecutive holds merged and empty ones (a wait of 0 s) dropped."""
    merged: Chain = []
    for theta, duration in chain:
        if duration == 0.0:
            continue
        if merged and theta == 0.0 and merged[-1][0] == 0.0:
            merged[-1] = (0.0, merged[-1][1] + duration)
        else:
            merged.append((theta, duration))
    return Moves(tuple(m[0] for m in merged), tuple(m[1] for m in merged))


def walk_pattern(p: WalkParameters = WalkParameters()) -> Gait:
    """The walk as chained moves per joint (moves of the thesis' profile, L1857)."""
    step, extreme = 1.0 / p.step_hz, 1.0 / (4.0 * p.sway_hz)
    if abs(2.0 * extreme - step) > 1e-12:
        raise ValueError("the pattern takes two steps per sway period (step 1 Hz, sway 0.5 Hz)")
    if not 0.0 < p.lift_s < extreme < p.contact_s < step:
        raise ValueError("the swing leg lifts before the sway extreme and is down before the "
                         "step ends")
    wait = p.sway_in_s - extreme  # from the squat to the half step (its extreme: the sway's)
    if wait < 0.0:
        raise ValueError(f"the sway in must last at least until the sway extreme, {extreme:g} s "
                         "into the first step")
    a = amplitudes(p)

    def twist(theta: float) -> Chain:
        """A step of a yaw-timed joint: theta from the lift to the contact."""
        return [(0.0, p.lift_s), (theta, p.contact_s - p.lift_s), (0.0, step - p.contact_s)]

    def swing(delta: float) -> Chain:
        """A step of a swing leg's pitch joint: up by delta to the extreme, down to contact."""
        return [(0.0, p.lift_s), (delta, extreme - p.lift_s), (-delta, p.contact_s - extreme),
                (0.0, step - p.contact_s)]

    start: dict[str, Chain] = {}
    cycle: dict[str, Chain] = {}
    for side in "lr":
        for part, squat, lifted in zip(PITCH, a.squat, a.lifted, strict=True):
            own = swing(lifted - squat)
            start[f"{side}_{part}"] = [(squat, p.squat_s), (0.0, wait),
                                       *(own if side == "l" else [(0.0, step)])]
            cycle[f"{side}_{part}"] = [*own, (0.0, step)] if side == "r" else [(0.0, step), *own]
        for part, sign in (("hip_roll", 1.0), ("ankle_roll", -1.0)):
            start[f"{side}_{part}"] = [(0.0, p.squat_s), (sign * a.roll, p.sway_in_s)]
            cycle[f"{side}_{part}"] = [(-2 * sign * a.roll, step), (2 * sign * a.roll, step)]
    arm = math.radians(p.arm_swing_deg)
    for name, peak in (("l_hip_yaw", a.yaw), ("r_hip_yaw", a.yaw), ("waist_yaw", a.yaw),
                       ("l_shoulder_pitch", -arm), ("r_shoulder_pitch", arm)):
        start[name] = [(0.0, p.squat_s), (0.0, wait), *twist(peak)]
        cycle[name] = twist(-2 * peak) + twist(2 * peak)
    lead = p.squat_s + wait + step  # the cycle's start (the thesis' t = 0) for all but the rolls
    return Gait(tuple(_moves(start.get(n, [(0.0, lead)])) for n in JOINT_NAMES),
                tuple(_moves(cycle.get(n, [(0.0, 2 * step)])) for n in JOINT_NAMES),
                "<walk_pattern>")


HEADER = """# servobus: GuRoo's walk (the thesis' Appendix E, section 5), written by
# servobus.host.guroo_walk (walk_pattern(WalkParameters())).  Moves [theta_deg, T_s] per joint:
# a joint plays its start moves once, then repeats its cycle (the velocity profile of each move
# is omega(t) = (theta/T)(1 - cos(2 pi t/T))).  Joints 1..15: high-power boards 1..5, three
# motors each; joints 16..23: the RC servo board's servos 1..8.  The roll joints' start is half
# a step shorter: their cycle begins at the sway extreme, the others' in double support.

[pattern]  # documentation only; L = a line of ../shared/sources/guroo-thesis-hood-2002.txt
squat_ankle_pitch_deg = 6.0  # L1898
step_length_m = 0.100  # L1892
step_hz = 1.0  # L1892
sway_hz = 0.5  # L1900 (sway extreme at 0.5 s of the step, L1914)
swing_lift_s = 0.25  # L1910
swing_contact_s = 0.85  # L1939
yaw_twist = "both hip yaws, from the lift to the contact (L1904, L1923)"
height_m = 1.2  # L1803
thigh_m = 0.28  # ours
shank_m = 0.28  # ours
hip_spacing_m = 0.20  # ours: hip yaw amplitude asin(0.100 / 0.20) = 30 deg
sway_m = 0.040  # ours
swing_lift_m = 0.020  # ours
arm_swing_deg = 10.0  # ours"""
