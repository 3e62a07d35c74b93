"""Per-joint discrete PID R2(z) for all joints at once, with four anti-windup variants (SPEC 4.2).

    u_k = r_P e_k + I_k + r_D (e_k - e_(k-1)),   I_(k+1) = I_k + r_I e_k   (+ anti-windup)

soft: I clamped to fixed limits (+-i_max; the thesis' final choice); hard: I clamped so that
P + I + D stays within +-i_max (by the output situation); conditional: I frozen while the output
saturates in the direction of the error; dynamic: I corrected by the saturation error through
an observer with A_aw(z) = z - a_aw (a_aw = 0 is the deadbeat observer, i.e. hard).
The output is the current reference in A, limited to +-i_max.  Implements ``MimoController``.
"""

from typing import Literal, Protocol

import numpy as np

from servobus.host.tunings import Tuning

AntiWindup = Literal["soft", "hard", "conditional", "dynamic"]
ANTI_WINDUP: tuple[AntiWindup, ...] = ("soft", "hard", "conditional", "dynamic")


class MimoController(Protocol):
    """A controller that sees every joint: measurements and references in, currents out."""

    @property
    def saturated(self) -> np.ndarray:
        """Per joint: the last output hit the current limit."""
        ...

    def step(self, reference: np.ndarray, measured: np.ndarray) -> np.ndarray:
        """One 250 Hz update: currents (A) for every joint."""
        ...

    def reset(self, joints: np.ndarray | None = None) -> None:
        """Forget the state of the masked joints (released, frozen or without a measurement)."""
        ...


class PidBank:
    """Independent PIDs, one per joint, vectorised over the joints."""

    def __init__(self, gains: np.ndarray, i_max: float = 1.0, anti_windup: AntiWindup = "soft",
                 a_aw: float = 0.5) -> None:
        if anti_windup not in ANTI_WINDUP:
            raise ValueError(f"anti-windup {anti_windup!r}: use one of {', '.join(ANTI_WINDUP)}")
        gains = np.asarray(gains, dtype=float)
        self.r_p, self.r_i, self.r_d = gains[:, 0], gains[:, 1], gains[:, 2]
        self.i_max = i_max
        self.anti_windup = anti_windup
        self.a_aw = a_aw
        self.integ = np.zeros(len(gains))
        self.e_prev = np.full(len(gains), np.nan)  # no D kick on the first sample
        self.saturated = np.zeros(len(gains), dtype=bool)

    @classmethod
    def of(cls, tuning: Tuning, kp: float, f_can: float, joints: int,
           anti_windup: AntiWindup = "soft") -> "PidBank":
        """`joints` PIDs of one tuning for a plant of gain `kp` at the bus rate `f_can`."""
        return cls(np.tile(tuning.gains(kp, f_can), (joints, 1)), anti_windup=anti_windup)

    def reset(self, joints: np.ndarray | None = None) -> None:
        """Forget the integrator and the last error (all joints, or a boolean mask); the next
        sample starts without a derivative kick."""
        mask = np.ones_like(self.integ, dtype=bool) if joints is None else joints
        self.integ[mask] = 0.0
        self.e_prev[mask] = np.nan

    def step(self, reference: np.ndarray, measured: np.ndarray) -> np.ndarray:
        """One update; `saturated` tells which outputs hit the current limit."""
        e = np.asarray(reference, dtype=float) - np.asarray(measured, dtype=float)
        e_prev = np.where(np.isnan(self.e_prev), e, self.e_prev)
        pd = self.r_p * e + self.r_d * (e - e_prev)
        integ = self.integ
        if self.anti_windup == "hard":
            integ = np.clip(integ, -self.i_max - pd, self.i_max - pd)
        u = pd + integ
        u_sat = np.clip(u, -self.i_max, self.i_max)
        self.saturated = u != u_sat
        step = self.r_i * e
        if self.anti_windup == "soft":
            nxt = np.clip(integ + step, -self.i_max, self.i_max)
        elif self.anti_windup == "conditional":
            winding_up = self.saturated & (np.sign(e) == np.sign(u))
            nxt = np.where(winding_up, integ, integ + step)
        elif self.anti_windup == "dynamic":
            nxt = integ + step + (1.0 - self.a_aw) * (u_sat - u)
        else:
            nxt = integ + step
        self.integ = nxt
        self.e_prev = e
        return u_sat
