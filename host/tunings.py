"""Position-controller tunings as data, relative to the plant gain K_P (SPEC 4.2).

R2(z) = r_P + r_I / (z - 1) + r_D (z - 1) / z with r_P = K, r_I = K / (T_I f), r_D = K T_D f,
T_D = 1 / w_D, T_I = 1 / w_I.  K is stored as K * K_P (dimensionless loop gain), so a tuning
applies to any identified P(z) = K_P / (z (z - 1) (z - q)).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Tuning:
    """One PID tuning: derivative and integral corner frequencies and the loop gain K K_P."""

    name: str
    omega_d: float  # rad/s
    omega_i: float  # rad/s
    k_kp: float  # K * K_P

    def gains(self, kp: float, f_can: float) -> tuple[float, float, float]:
        """(r_P, r_I, r_D) in A per LSB for a plant of gain kp (LSB per A per step^3)."""
        k = self.k_kp / kp
        return k, k * self.omega_i / f_can, k * f_can / self.omega_d


TUNINGS = {
    "R2": Tuning("R2", omega_d=63.5, omega_i=12.6, k_kp=41.1e-3),
    "R2b": Tuning("R2b", omega_d=25.0, omega_i=3.12, k_kp=7.21e-3),
}
THESIS_Q = 0.7958

# P(z) of the default robot's joint (HSR-5995TG preset, alpha = 1, as-built supply-unipolar
# sensing, cascade mode), identified with `servobus identify --joint 1 --method chirp --json`
# (seed 0, 30 s; T_m = 14.5 ms): the data the default tuning is designed from.
DEFAULT_ROBOT_KP = 0.7402
DEFAULT_ROBOT_Q = 0.7586
DESIGN_OVERSHOOT_PCT = 25.0
