"""The SG90 micro servo as the MuJoCo article models it (SPEC 6.3; its figures in
presets/sg90.py), and its ODE integrated finely.

The article derives a resistive DC motor from the datasheet (motor side, gear G):

    tau_stall = 0.15 / G,  R = V_nom / i_stall,  k_t = tau_stall / i_stall,  k_e = k_t,
    omega_nl = 0.66 deg/ms * G,  b = k_t i_nl / omega_nl

and drives the output joint with tau = G (k_t (V - k_e G w) / R - b G w), V = clip(k_p e, +-V).
Referred to the output shaft that is exactly a ``ServoPreset``: K_t = K_e = k_t G, R_a = R,
B = b G^2, no Coulomb friction.  The load is the article's MuJoCo link, a 16 g cylinder
(radius 7.25 mm, half-length 24 mm) on a hinge about x through its centre, perpendicular to its
axis (MuJoCo's default placement: the SPEC gives no offset, so the MJCF writes none); with the
hinge on the centre of mass gravity exerts no torque, as the article's torque formula assumes.
No rotor inertia: the article's model has none.

``reference_step`` integrates that ODE with classical RK4 at a fine step: the yardstick the
MuJoCo model (``sg90_mujoco``) and the emulator's switching plant are measured against.
"""

from dataclasses import dataclass, replace

import numpy as np

from servobus.analysis.servo_model import model_step
from servobus.presets.servos import SG90, ServoPreset
from servobus.presets.sg90 import ARTICLE


@dataclass(frozen=True)
class OutputModel:
    """The article's servo referred to the output: tau = kt (V - kt w) / r - b w."""

    kt: float  # N m / A = V s / rad
    r: float  # ohm
    b: float  # N m s / rad
    j: float  # kg m^2
    k_p: float  # V / rad
    supply_v: float  # V

    def volts(self, error: float) -> float:
        """The article's P position law, saturated at the supply."""
        return min(max(self.k_p * error, -self.supply_v), self.supply_v)

    def torque(self, volts: float, omega: float) -> float:
        """Output torque at winding voltage `volts` and output speed `omega`."""
        return self.kt * (volts - self.kt * omega) / self.r - self.b * omega

    def no_load_speed(self, volts: float) -> float:
        """Output speed where the torque at `volts` is zero, rad/s."""
        return self.preset("sg90", "").steady_speed(volts)

    def preset(self, name: str, derivation: str) -> ServoPreset:
        """The same motor as the emulator's ``ServoPreset`` (the shipped SG90 with this b and
        supply)."""
        return replace(SG90, name=name, derivation=derivation, b=self.b,
                       supply_v=self.supply_v)


def output_model(b_motor: float | None = None, supply_v: float | None = None) -> OutputModel:
    """The shipped preset's output-shaft model (presets/servos.py: K_t = k_t G, B = b G^2, the
    link's J), with the motor-side b given instead of the article's fit."""
    return OutputModel(kt=SG90.kt, r=SG90.r_a,
                       b=SG90.b if b_motor is None else b_motor * ARTICLE.gear ** 2, j=SG90.j,
                       k_p=SG90.position_gain,
                       supply_v=SG90.supply_v if supply_v is None else supply_v)


def reference_step(model: OutputModel, target: float, t_end: float, h: float) -> np.ndarray:
    """theta(n h), n = 0..round(t_end / h), from rest at 0 toward `target` (rad): the model
    integrated by RK4 at step h (``servo_model.model_step``, one step per sample)."""
    servo = model.preset("sg90-reference", "the article's SG90 model")
    return model_step(servo, target, np.arange(round(t_end / h) + 1) * h, substeps=1)
