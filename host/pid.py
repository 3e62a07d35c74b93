"""Per-joint discrete PID R2(z) for all joints at once, with four anti-windup variants (SPEC 4.2).

    u_k = r_P e_k + I_k + r_D (e_k - e_(k-1)),   I_(k+1) = I_k + r_I e_k   (+ anti-windup)

soft: I clamped to fixed limits (+-i_max; the thesis' final choice); hard: I clamped so that
P + I + D stays within +-i_max (by the output situation); conditional: I frozen while the output
saturates in the direction of the error; dynamic: I corrected by the saturation error through
an observer with A_aw(z) = z - a_aw (a_aw = 0 is the deadbeat observer, i.e. hard).
The output is the current reference in A, limited to +-i_max.  Implements ``MimoController``.
"""

from typing import Literal, Protocol, Self

import numpy as np

from servobus.host.tunings import Tuning

AntiWindup = Literal["soft", "hard", "conditional", "dynamic"]
ANTI_WINDUP: tuple[AntiWindup, ...] = ("soft", "hard", "conditional", "dynamic")
_MODE = {name: code for code, name in enumerate(ANTI_WINDUP)}  # host_step's mode codes
_FLOAT, _BOOL = np.dtype(np.float64), np.dtype(np.bool_)


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


class PidBankNumpy:
    """Independent PIDs, one per joint, vectorised over the joints with numpy: the reference
    that the compiled ``PidBank`` equals bit for bit."""

    def __init__(self, gains: np.ndarray, i_max: float = 1.0, anti_windup: AntiWindup = "soft",
                 a_aw: float = 0.5) -> None:
        if anti_windup not in ANTI_WINDUP:
            raise ValueError(f"anti-windup {anti_windup!r}: use one of {', '.join(ANTI_WINDUP)}")
        gains = np.asarray(gains, dtype=float)
        self.r_p, self.r_i, self.r_d = (np.ascontiguousarray(gains[:, k]) for k in range(3))
        self.i_max = i_max
        self.anti_windup = anti_windup
        self.a_aw = a_aw
        self.integ = np.zeros(len(gains))
        self.e_prev = np.full(len(gains), np.nan)  # no D kick on the first sample
        self.saturated = np.zeros(len(gains), dtype=bool)

    @classmethod
    def of(cls, tuning: Tuning, kp: float, f_can: float, joints: int,
           anti_windup: AntiWindup = "soft") -> Self:
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


class PidBank(PidBankNumpy):
    """The same PIDs, each update one compiled call (``host_step.pid_step``): integ, e_prev
    and saturated are updated in place; float64 arrays of the bank's length take the compiled
    path, anything else (lists, other dtypes, broadcasting shapes) the numpy one."""

    def __init__(self, gains: np.ndarray, i_max: float = 1.0, anti_windup: AntiWindup = "soft",
                 a_aw: float = 0.5) -> None:
        super().__init__(gains, i_max, anti_windup, a_aw)
        from servobus.host import host_step  # numba: loaded by the first bank, not on import

        self._step, self._reset = host_step.pid_step_c, host_step.pid_reset_c
        # load the machine code now (~0.5 s in a new process), not in a real-time first period
        n = len(self.integ)
        zeros, none = np.zeros(n), np.zeros(n, dtype=bool)
        self._step(zeros, zeros, zeros, 1.0, 0, 0.5, np.zeros(n), np.zeros(n), zeros, zeros,
                   np.empty(n), np.zeros(n, dtype=bool))
        self._reset(none, np.zeros(n), np.zeros(n))

    def _compiled(self, array: object, dtype: np.dtype) -> bool:
        """Whether `array` is one the compiled path takes: the dtype, one value per joint."""
        return type(array) is np.ndarray and array.dtype is dtype and \
            array.shape == self.integ.shape

    def reset(self, joints: np.ndarray | None = None) -> None:
        """Forget the integrator and the last error (all joints, or a boolean mask)."""
        if joints is None:
            self.integ.fill(0.0)
            self.e_prev.fill(np.nan)
        elif self._compiled(joints, _BOOL):
            self._reset(joints, self.integ, self.e_prev)
        else:
            super().reset(joints)

    def step(self, reference: np.ndarray, measured: np.ndarray) -> np.ndarray:
        """One update; `saturated` tells which outputs hit the current limit."""
        if not (self._compiled(reference, _FLOAT) and self._compiled(measured, _FLOAT)):
            return super().step(reference, measured)
        out = np.empty(len(self.integ))
        self._step(self.r_p, self.r_i, self.r_d, float(self.i_max),
                   _MODE[self.anti_windup], float(self.a_aw), self.integ,
                   self.e_prev, reference, measured, out, self.saturated)
        return out
