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

from dataclasses import dataclass

import numpy as np

from servobus.presets.servos import ServoPreset
from servobus.presets.sg90 import ARTICLE, SG90


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
        return self.kt * volts / self.r / (self.kt * self.kt / self.r + self.b)

    def preset(self, name: str, derivation: str) -> ServoPreset:
        """The same motor as the emulator's ``ServoPreset`` (no Coulomb friction)."""
        return ServoPreset(name=name, supply_v=self.supply_v, kt=self.kt, r_a=self.r, b=self.b,
                           j=self.j, coulomb=0.0, derivation=derivation)


def output_model(sg90: SG90 = ARTICLE, b_motor: float | None = None,
                 supply_v: float | None = None) -> OutputModel:
    """The output-shaft model: K_t = k_t G, B = b G^2 (b: the fit unless given), the link's J."""
    b = sg90.b_fit if b_motor is None else b_motor
    return OutputModel(kt=sg90.k_t * sg90.gear, r=sg90.r, b=b * sg90.gear ** 2,
                       j=sg90.link_inertia, k_p=sg90.k_p,
                       supply_v=sg90.supply_v if supply_v is None else supply_v)


def reference_step(model: OutputModel, target: float, t_end: float, h: float) -> np.ndarray:
    """theta(n h), n = 0..round(t_end / h), from rest at 0 toward `target` (rad), by RK4."""
    steps = round(t_end / h)

    def rates(theta: float, omega: float) -> tuple[float, float]:
        return omega, model.torque(model.volts(target - theta), omega) / model.j

    out = np.empty(steps + 1)
    theta = omega = 0.0
    out[0] = theta
    for n in range(steps):
        k1 = rates(theta, omega)
        k2 = rates(theta + 0.5 * h * k1[0], omega + 0.5 * h * k1[1])
        k3 = rates(theta + 0.5 * h * k2[0], omega + 0.5 * h * k2[1])
        k4 = rates(theta + h * k3[0], omega + h * k3[1])
        theta += h / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0])
        omega += h / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1])
        out[n + 1] = theta
    return out

