"""One position step of the article's SG90 in three integrators: RK4, MuJoCo, the emulator.

The step: from rest at 0 to `target` at t = 0 under the article's P law (k_p = 8.897 V/rad,
clipped at the 5 V supply).  ``reference_step`` (RK4 at a fine step) is the yardstick; each
other path is held to the error its own time discretisation makes, derived here, not tuned:

* MuJoCo's Euler is semi-implicit: the position advances with the velocity at the end of the
  step.  At constant voltage the speed relaxes to w_nl with rate 1/tau, and the discrete sum
  gives theta_n = w_nl (t - (tau - h)(1 - (1 - h/tau)^n)) against the exact
  w_nl (t - tau (1 - e^(-t/tau))): MuJoCo leads by less than w_nl h, reached once the slew is
  established; the P law's linear phase then pulls both to the target.
* The emulator's plant is solved exactly over each switching segment; the duty computed from
  theta at kT acts from (k + 1) T (the shadowed PWM latch, `plant/rig.py`), so during the slew
  at full duty the emulator runs one period T behind the exact motion: a lag that reaches w_nl T.

Both bounds use the no-load speed at the supply, w_nl = K_t V / (K_t^2 + R B); the reference's
own error (RK4 at h against 2 h) is added to each.
"""

import math

import numpy as np

from servobus.analysis.sg90_model import ARTICLE, OutputModel, output_model, reference_step
from servobus.firmware import memory as m
from servobus.plant import layout as p
from servobus.plant.rig import BoardRig
from servobus.presets.board import BoardHardware

REF_STEP_S = 5e-6  # divides MuJoCo's 1e-4 and 5e-5 s and the 20 and 40 kHz PWM periods


def on_grid(theta: np.ndarray, step: float, coarse: float) -> np.ndarray:
    """Every sample of `theta` (spaced `step`) that falls on the grid spaced `coarse`."""
    ratio = round(coarse / step)
    if not math.isclose(ratio * step, coarse, rel_tol=1e-9):
        raise ValueError(f"{coarse} s is not a whole multiple of {step} s")
    return theta[::ratio]


def emulator_step(model: OutputModel, target: float, t_end: float, pwm_hz: int = 20_000,
                  dead_time_s: float = 0.0) -> np.ndarray:
    """theta at each PWM period's end (the first row is t = 0) on one board's switching plant
    in duty mode: per period the P law on the plant's shaft angle (what the article's callback
    reads, qpos) as an actuation frame's duty fraction, then one period.  With the default
    dead time of 0 the bridge applies exactly the commanded duty; the board's 1 us makes a
    dead zone of dead / T * V / k_p in the P loop (docs/presets.md, SG90 in MuJoCo)."""
    hw = BoardHardware(pwm_hz=pwm_hz, dead_time_s=dead_time_s)
    preset = model.preset("sg90-test", "the article's SG90 referred to the output (SPEC 6.3)")
    rig = BoardRig(preset, hw, mode=m.MODE_DUTY)
    periods = round(t_end * pwm_hz)
    theta = np.empty(periods + 1)
    theta[0] = rig.state[p.THETA]
    for k in range(periods):
        rig.command_current(model.volts(target - rig.state[p.THETA]) / model.supply_v)
        rig.run(1, record=False)
        theta[k + 1] = rig.state[p.THETA]
    return theta


def _errors(theta: np.ndarray, reference: np.ndarray, bound: float) -> dict:
    """Max and RMS of theta - reference over the step, with the bound they must keep."""
    error = theta - reference
    return {"max_abs_rad": float(np.max(np.abs(error))),
            "rms_rad": float(np.sqrt(np.mean(error ** 2))),
            "final_rad": float(error[-1]), "bound_rad": bound}


def compare_step(b_motor: float | None = None, target: float = math.pi / 2,
                 t_end: float = 0.5, timestep: float = 1e-4, pwm_hz: int = 20_000,
                 dead_time_s: float = 0.0) -> dict:
    """The step in MuJoCo (`timestep`), on the emulator (`pwm_hz`) and by RK4: each path's
    max and RMS deviation from RK4 with its bound (module docstring).  `b_motor`: the
    motor-side viscous friction, the article's fit unless given (``ARTICLE.b_computed``)."""
    from servobus.analysis import sg90_mujoco

    model = output_model(b_motor=b_motor)
    reference = reference_step(model, target, t_end, REF_STEP_S)
    ref_error = float(np.max(np.abs(on_grid(reference, REF_STEP_S, 2 * REF_STEP_S)
                                    - reference_step(model, target, t_end, 2 * REF_STEP_S))))
    w_nl = model.no_load_speed(model.supply_v)
    mujoco_theta = sg90_mujoco.run(model, target, t_end, timestep)[0]
    emulator_theta = emulator_step(model, target, t_end, pwm_hz, dead_time_s)
    return {
        "b_motor": model.b / ARTICLE.gear ** 2, "j_kg_m2": model.j, "target_rad": target,
        "t_end_s": t_end, "no_load_speed_rad_s": w_nl,
        "reference": {"step_s": REF_STEP_S, "error_rad": ref_error,
                      "final_rad": float(reference[-1])},
        "mujoco": {"timestep_s": timestep, **_errors(
            mujoco_theta, on_grid(reference, REF_STEP_S, timestep), w_nl * timestep + ref_error)},
        "emulator": {"pwm_hz": pwm_hz, "dead_time_s": dead_time_s, **_errors(
            emulator_theta, on_grid(reference, REF_STEP_S, 1.0 / pwm_hz),
            w_nl / pwm_hz + ref_error)},
    }
