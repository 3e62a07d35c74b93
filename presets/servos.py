"""Servo plant presets (SPEC 3), referred to the output shaft, each with its derivation.

Model: R_a i + K_e w = duty V;  J dw/dt = K_t i - B w - F_c sign(w) - load.
The winding is a pure resistance (coreless motor: no inductance effect below 100 kHz).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class ServoPreset:
    """Electrical and mechanical constants of one servo, referred to its output shaft."""

    name: str
    supply_v: float
    kt: float  # N m / A (= K_e in V s / rad)
    r_a: float  # ohm
    b: float  # N m s / rad
    j: float  # kg m^2, servo + test arm (alpha = 1)
    coulomb: float  # N m
    derivation: str

    @property
    def stall_current_a(self) -> float:
        """Current at full duty with the rotor locked."""
        return self.supply_v / self.r_a


HSR_5995TG = ServoPreset(
    name="hsr-5995tg",
    supply_v=7.0,
    kt=0.834,
    r_a=2.43,
    b=0.046,
    j=4.75e-3,
    coulomb=0.01,
    derivation=(
        "Hitec HSR-5995TG in SPEJBL: static gain 2.30*pi rad/s per unit duty at 7 V, "
        "T_m = 14.3 ms with test arm, stall ~2.4 N m. K_e = 0.834 and R_a = 2.43 give stall "
        "2.9 A / 2.4 N m; B = 0.046 gives no-load current ~0.4 A; J from T_m."
    ),
)

SERVOS = {p.name: p for p in (HSR_5995TG,)}
