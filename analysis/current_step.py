"""The current-reference step experiment behind `servobus step`."""

from dataclasses import dataclass

import numpy as np

from servobus.analysis.step_metrics import step_metrics
from servobus.plant.build import PlantOptions
from servobus.plant.rig import TF_I_WINDING, TI_DUTY, TI_MEAS, BoardRig, Trace
from servobus.presets.servos import HSR_5995TG, ServoPreset

PRE_STEP_PERIODS = 20


@dataclass(frozen=True)
class StepRun:
    """Traces of one step from zero to iw, starting at index PRE_STEP_PERIODS."""

    iw: float
    period_s: float
    measured_a: np.ndarray  # decimated current the firmware used, per PWM period
    winding_a: np.ndarray  # true winding current averaged over each period
    duty: np.ndarray  # applied duty, PWM counts
    trace: Trace


def run_step(options: PlantOptions, iw: float = 1.0, periods: int = 200,
             servo: ServoPreset = HSR_5995TG) -> StepRun:
    """Run the board in its current loop on `servo`'s plant: PRE_STEP_PERIODS at zero, then
    `periods` at iw."""
    if not 0.0 < abs(iw) <= 1.0:
        raise ValueError(f"--iw must be non-zero and within the 1 A reference clamp, got {iw}")
    if periods < 40:
        raise ValueError(f"the step needs at least 40 PWM periods, got {periods}")
    rig = BoardRig(servo, options=options)
    rig.run(PRE_STEP_PERIODS, record=False)
    rig.command_current(iw)
    trace = rig.run(periods)
    return StepRun(iw=iw, period_s=1.0 / rig.hw.pwm_hz,
                   measured_a=rig.amps(trace.ints[:, TI_MEAS]),
                   winding_a=trace.floats[:, TF_I_WINDING].copy(),
                   duty=trace.ints[:, TI_DUTY].copy(), trace=trace)


def step_report(run: StepRun) -> dict:
    """The figures `servobus step` prints (measured current against the reference)."""
    metrics = step_metrics(run.measured_a / run.iw, 1.0)
    tail = len(run.measured_a) // 4
    winding_ss = float(np.mean(run.winding_a[-tail:]))
    winding = step_metrics(run.winding_a / winding_ss, 1.0) if winding_ss else None
    return {
        "iw_a": run.iw,
        "overshoot_pct": metrics.overshoot_pct,
        "peak_periods": metrics.peak_periods,
        "peak_time_s": metrics.peak_periods * run.period_s,
        "steady_state_a": float(np.mean(run.measured_a[-tail:])),
        "settling_time_s": metrics.settling_periods * run.period_s,
        "winding_steady_state_a": winding_ss,
        "winding_overshoot_pct": winding.overshoot_pct if winding else 0.0,
        "winding_ripple_a": float(np.ptp(run.winding_a[-tail:])),
        "duty_steady_state": float(np.mean(run.duty[-tail:])) / 3000.0,
    }
