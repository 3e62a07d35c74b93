"""The SG90 micro servo's figures as the MuJoCo article uses them (SPEC 6.3): the datasheet's,
the article's fitted gains and its test link, and what the article derives from them (motor
side, gear G): R = V_nom / i_stall, k_t = k_e = (tau_stall / G) / i_stall, omega_nl = 0.66 deg/ms
* G, b = k_t i_nl / omega_nl.  The link is a 16 g cylinder (radius 7.25 mm, half-length 24 mm)
on a hinge about x through its centre, perpendicular to its axis (MuJoCo's default placement:
the SPEC gives no offset); no rotor inertia, as the article's model has none.
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Sg90Figures:
    """The article's datasheet figures, fitted gains and test link (SI units unless named)."""

    v_nom: float = 6.0
    gear: float = 55.5
    stall_torque_out: float = 0.15  # N m at the output
    stall_current: float = 0.6  # A
    no_load_current: float = 0.2  # A
    no_load_speed_deg_per_ms: float = 0.66  # at the output, datasheet
    supply_v: float = 5.0  # the article's experiment
    k_p: float = 8.897  # V / rad, fitted
    b_fit: float = 1.404e-6  # N m s / rad on the motor shaft, fitted
    link_mass: float = 0.016  # kg
    link_radius: float = 7.25e-3  # m
    link_half_length: float = 24e-3  # m

    @property
    def r(self) -> float:
        """Winding resistance: V_nom at the stall current."""
        return self.v_nom / self.stall_current

    @property
    def k_t(self) -> float:
        """Motor torque constant (= k_e): the motor-side stall torque per stall ampere."""
        return self.stall_torque_out / self.gear / self.stall_current

    @property
    def omega_nl(self) -> float:
        """Datasheet no-load speed on the motor shaft, rad/s."""
        return self.no_load_speed_deg_per_ms * 1000.0 * math.pi / 180.0 * self.gear

    @property
    def b_computed(self) -> float:
        """Motor-side viscous friction that takes the no-load current at the no-load speed."""
        return self.k_t * self.no_load_current / self.omega_nl

    @property
    def link_inertia(self) -> float:
        """The cylinder about a diameter through its centre, m (3 r^2 + L^2) / 12 (L = 2 half)."""
        length = 2.0 * self.link_half_length
        return self.link_mass * (3.0 * self.link_radius ** 2 + length ** 2) / 12.0


ARTICLE = Sg90Figures()
