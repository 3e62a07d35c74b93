"""A servo's published continuous model, integrated on its own (no firmware, no PWM, no
sensor): the reference the emulated board is measured against where a source gives a model
but no recording.

    L di/dt = U - R i - K w            (L = 0: i = (U - K w) / R)
    J dw/dt = K i - B w - F_c sign(w)
    U = clip(k_theta (theta_ref - theta) + k_omega (0 - w), -V, V)

with the preset's constants (referred to the output shaft) and its controller's law applied
continuously.  Classic fourth-order Runge-Kutta at a fixed step (a quarter of the PWM period by
default: 12.5 us, 1/50 of the AX-12's L/R): the law's clip and sign() are the only
non-smooth terms, and the step is far below every time constant.
"""

import math

import numpy as np

from servobus.presets.servos import ServoPreset


def _derivative(servo: ServoPreset, inductance: float, theta_ref: float,
                x: tuple[float, float, float]) -> tuple[float, float, float]:
    """d/dt of (theta, w, i); with no inductance i follows U at once (its derivative 0)."""
    theta, w, i = x
    u = servo.position_gain * (theta_ref - theta) - servo.k_omega * w
    u = min(max(u, -servo.supply_v), servo.supply_v)
    if inductance == 0.0:
        i = (u - servo.kt * w) / servo.r_a
        di = 0.0
    else:
        di = (u - servo.r_a * i - servo.kt * w) / inductance
    friction = servo.b * w + (math.copysign(servo.coulomb, w) if w else 0.0)
    return w, (servo.kt * i - friction) / servo.j, di


def model_step(servo: ServoPreset, theta_ref: float, times: np.ndarray,
               inductance: float = 0.0, substeps: int = 4) -> np.ndarray:
    """The model's angle (rad) at `times` (uniform, s, after a step from rest at 0 to
    `theta_ref` at t = 0), `substeps` RK4 steps per interval."""
    h = float(times[1] - times[0]) / substeps
    x = (0.0, 0.0, 0.0)
    out = np.empty(len(times))
    t = 0.0
    for k, target in enumerate(times):
        while t < target - h / 2:
            k1 = _derivative(servo, inductance, theta_ref, x)
            k2 = _derivative(servo, inductance, theta_ref, _ahead(x, k1, h / 2))
            k3 = _derivative(servo, inductance, theta_ref, _ahead(x, k2, h / 2))
            k4 = _derivative(servo, inductance, theta_ref, _ahead(x, k3, h))
            x = tuple(a + h / 6 * (b + 2 * c + 2 * d + e)  # type: ignore[assignment]
                      for a, b, c, d, e in zip(x, k1, k2, k3, k4, strict=True))
            t += h
        out[k] = x[0]
    return out


def _ahead(x: tuple[float, float, float], dx: tuple[float, float, float],
           h: float) -> tuple[float, float, float]:
    """x + h dx."""
    return x[0] + h * dx[0], x[1] + h * dx[1], x[2] + h * dx[2]
