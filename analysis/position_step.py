"""The position step behind `servobus step --position-deg`: one board in its servo's own
position loop (local-p: the board closes the loop from POSREF set-points) stepped by D degrees.

The board starts at mid-scale (0 deg, set-point 512) and holds it for PRE_STEP_PERIODS; then
one POSREF moves the set-point to 512 + D in the servo's own sensor LSB (rounded: the target is
that LSB's angle).  The figures are on the true output angle, per PWM period: rise time 10-90 %
of the target, overshoot past it, settling into +-2 % of it for good, and the final error (the
target minus the mean of the last quarter).  SPEC 6.1's experiment is the AX-12's 0 -> 90 deg.
"""

import math
from dataclasses import dataclass

import numpy as np

from servobus.analysis.step_metrics import step_metrics
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant.build import PlantOptions
from servobus.plant.rig import TF_THETA, BoardRig
from servobus.plant.sensors import POT_CODES
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import ServoPreset

PRE_STEP_PERIODS = 20
MID = POT_CODES // 2  # the set-point of 0 deg


@dataclass(frozen=True)
class PositionStepRun:
    """The output angle after a set-point step, per PWM period from the step."""

    servo: ServoPreset
    target_deg: float  # the set-point's angle (D rounded to the sensor's LSB)
    setpoint_lsb: int
    period_s: float
    angle_deg: np.ndarray


def run_position_step(servo: ServoPreset, options: PlantOptions, step_deg: float,
                      periods: int) -> PositionStepRun:
    """Run the board in `servo`'s own mode: PRE_STEP_PERIODS at 0 deg, then `periods` at the
    set-point `step_deg` away (ValueError: a servo whose position loop is not on the board, a
    set-point outside its sensor, a step of zero LSB, too few periods)."""
    if servo.mode != "local-p":
        raise ValueError(f"{servo.name}'s position loop runs on the host ({servo.mode}): a "
                         "board position step needs a servo of mode local-p")
    lsb_per_deg = servo.sensed_by(DEFAULT_BOARD).pot_lsb_per_rad * math.pi / 180.0
    lsb = round(step_deg * lsb_per_deg)
    if lsb == 0 or not 0 <= MID + lsb < POT_CODES:
        raise ValueError(f"--position-deg {step_deg:g}: {servo.name}'s set-point would be "
                         f"{MID + lsb} LSB; it must move and stay within 0..{POT_CODES - 1} "
                         f"(+-{(MID - 1) / lsb_per_deg:.0f} deg)")
    if periods < 40:
        raise ValueError(f"the step needs at least 40 PWM periods, got {periods}")
    rig = BoardRig(servo, DEFAULT_BOARD, options, mode=m.MODE_LOCAL_P)
    board.can_posref(rig.ram, MID)
    rig.run(PRE_STEP_PERIODS, record=False)
    board.can_posref(rig.ram, MID + lsb)
    trace = rig.run(periods)
    return PositionStepRun(servo=servo, target_deg=lsb / lsb_per_deg, setpoint_lsb=MID + lsb,
                           period_s=1.0 / rig.hw.pwm_hz,
                           angle_deg=np.degrees(trace.floats[:, TF_THETA]))


def _first_at(y: np.ndarray, level: float) -> int | None:
    """The first period y reaches `level` (None: never)."""
    reached = np.flatnonzero(y >= level)
    return int(reached[0]) if len(reached) else None


def position_step_report(run: PositionStepRun) -> dict:
    """The figures `servobus step --position-deg` prints, in degrees and seconds (None: a
    level never reached, a band never kept)."""
    target = run.target_deg
    y = run.angle_deg * math.copysign(1.0, target)  # a step down as one up
    metrics = step_metrics(y, abs(target))
    lo, hi = (_first_at(y, f * abs(target)) for f in (0.1, 0.9))
    tail = len(y) // 4
    final = float(np.mean(run.angle_deg[-tail:]))
    return {
        "servo": run.servo.name,
        "mode": run.servo.mode,
        "step_deg": target,
        "setpoint_lsb": run.setpoint_lsb,
        "rise_time_s": None if lo is None or hi is None else (hi - lo) * run.period_s,
        "overshoot_pct": max(metrics.overshoot_pct, 0.0),
        "peak_deg": float(run.angle_deg[metrics.peak_periods]),
        "peak_time_s": metrics.peak_periods * run.period_s,
        "settling_time_s": None if metrics.settling_periods >= len(y) else
        metrics.settling_periods * run.period_s,
        "final_deg": final,
        "final_error_deg": target - final,
    }
