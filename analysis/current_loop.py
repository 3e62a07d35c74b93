"""Linear analysis of the current loop (SPEC 2.3): the lifted plant G(z), the PI, the closed loop.

At the fast rate f_s = N f_PWM the RC filter is sampled exactly (pole a = exp(-1/(f_s T_RC))),
the duty is held for N samples (ZOH, H1), the RC filters it (H2) and the moving sum of M samples
is read once per PWM period (H3).  With M = c N, writing X_m for the filter state at the start
of period m and S = 1 + a + ... + a^(N-1), the value read at kT is

    y[k] = (1/M) sum_{q=1..c} ( S X_{k-q} + (N - S) K1 u[k-q] ),  X_m = A X_{m-1} + (1-A) K1 u[m-1]

with A = a^N, so G(z) = K1/M * (z^-1 + .. + z^-c) * ((N-S) + (S(1-A) - (N-S)A) z^-1) / (1 - A z^-1).
The controller output is applied one period later: loop L(z) = z^-1 C(z) G(z).
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import signal

from servobus.analysis.step_metrics import StepMetrics, step_metrics
from servobus.firmware import memory as m
from servobus.presets.board import BoardHardware, Sensing
from servobus.presets.firmware_image import CurrentLoopDesign, current_loop_design
from servobus.presets.servos import ServoPreset


@dataclass(frozen=True)
class LiftedPlant:
    """G(z) from duty (unit: 1 = 100 %) to the averaged measured current in amperes, in z^-1."""

    num: np.ndarray
    den: np.ndarray
    n: int
    m: int
    k1: float

    def zpk(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Zeros, poles and gain in positive powers of z (delays become poles at the origin)."""
        size = max(len(self.num), len(self.den))
        b = np.pad(self.num, (0, size - len(self.num)))
        a = np.pad(self.den, (0, size - len(self.den)))
        gain = b[np.nonzero(b)[0][0]] / a[0]
        return np.roots(b), np.roots(a), float(gain)

    def impulse(self, periods: int) -> np.ndarray:
        """Impulse response g[0..periods-1]."""
        x = np.zeros(periods)
        x[0] = 1.0
        return np.asarray(signal.lfilter(self.num, self.den, x))

    def fir_iir_split(self, periods: int = 64) -> tuple[np.ndarray, float, float]:
        """G(z) = sum_i f_i z^-i + rho / (z - A): the window's FIR part and the RC memory."""
        pole = -self.den[1]
        g = self.impulse(periods)
        tail = len(self.num) - len(self.den) + 1
        rho = g[tail] / pole ** (tail - 1)
        fir = np.array([g[i] - (rho * pole ** (i - 1) if i >= 1 else 0.0) for i in range(tail)])
        return fir, float(rho), float(pole)


def lifted_plant(k1: float, hw: BoardHardware, m_len: int = m.MA_LEN) -> LiftedPlant:
    """The decimated ZOH -> RC -> moving-average system for N = hw.adc_per_pwm, M = m_len."""
    n = hw.adc_per_pwm
    if m_len % n:
        raise ValueError(f"moving-average length {m_len} is not a multiple of N = {n}")
    a = math.exp(-1.0 / (hw.adc_hz * hw.rc_tau_s))
    big_a = a**n
    s = sum(a**j for j in range(n))
    window = np.concatenate(([0.0], np.ones(m_len // n)))
    inner = np.array([n - s, s * (1.0 - big_a) - (n - s) * big_a])
    num = k1 / m_len * np.convolve(window, inner)
    return LiftedPlant(num=num, den=np.array([1.0, -big_a]), n=n, m=m_len, k1=k1)


def closed_loop(g: LiftedPlant, scale: float, k: float, n_zero: float) -> tuple[np.ndarray, ...]:
    """Reference -> measurement of L = z^-1 C G, with G in controller units (scale * G)."""
    c_num, c_den = k * np.array([1.0, -n_zero]), np.array([1.0, -1.0])
    l_num = np.convolve(np.concatenate(([0.0], c_num)), scale * g.num)
    l_den = np.convolve(c_den, g.den)
    size = max(len(l_num), len(l_den))
    l_num = np.pad(l_num, (0, size - len(l_num)))
    l_den = np.pad(l_den, (0, size - len(l_den)))
    return l_num, l_den + l_num


def closed_loop_step(g: LiftedPlant, design: CurrentLoopDesign, scale: float,
                     periods: int = 400) -> np.ndarray:
    """Unit-step response of the measured current, one value per PWM period."""
    num, den = closed_loop(g, scale, design.k, design.n)
    return np.asarray(signal.lfilter(num, den, np.ones(periods)))


def alias_bound(hw: BoardHardware, harmonics: int = 200_000) -> float:
    """Upper bound of the DC error from aliased PWM harmonics, as a fraction of the pulse height.

    Harmonic k of a pulse train has amplitude at most 2/(k pi) (any duty); the RC attenuates it by
    1/sqrt(1 + (2 pi k f_PWM T_RC)^2); sampled at f_s it aliases to (k f_PWM mod f_s), where the
    moving average passes it with gain |H_MA|: 1 on DC (k multiple of N), 0 on its zeros.
    """
    k = np.arange(1, harmonics + 1, dtype=float)
    alias = np.mod(k * hw.pwm_hz, hw.adc_hz) / hw.adc_hz
    taps = np.arange(m.MA_LEN)
    h_ma = np.abs(np.exp(-2j * np.pi * np.outer(alias, taps)).sum(axis=1)) / m.MA_LEN
    rc = 1.0 / np.sqrt(1.0 + (2.0 * np.pi * k * hw.pwm_hz * hw.rc_tau_s) ** 2)
    amplitude = 2.0 / (k * np.pi)
    return float(np.sum(amplitude * rc * np.where(h_ma > 1e-9, h_ma, 0.0)))


@dataclass(frozen=True)
class CurrentLoopReport:
    """Everything `servobus analyze current-loop` prints."""

    plant: LiftedPlant
    design: CurrentLoopDesign
    scale: float  # controller units (sum counts per PWM count) per (A per unit duty)
    step: StepMetrics
    alias_fraction: float
    stall_current_a: float


def analyze(servo: ServoPreset, hw: BoardHardware, sensing: Sensing) -> CurrentLoopReport:
    """Lifted plant, PI design and linear closed-loop step of one board configuration."""
    g = lifted_plant(servo.stall_current_a, hw)
    design = current_loop_design(servo, hw, sensing)
    scale = design.counts_per_amp / hw.pwm_top
    y = closed_loop_step(g, design, scale)
    return CurrentLoopReport(plant=g, design=design, scale=scale,
                             step=step_metrics(y, 1.0), alias_fraction=alias_bound(hw),
                             stall_current_a=servo.stall_current_a)


def report_dict(r: CurrentLoopReport, hw: BoardHardware) -> dict:
    """JSON-ready figures."""
    z, p, k = r.plant.zpk()
    fir, rho, pole = r.plant.fir_iir_split()
    return {
        "N": r.plant.n, "M": r.plant.m, "f_s_hz": hw.adc_hz, "f_pwm_hz": hw.pwm_hz,
        "numerator_zinv": r.plant.num.tolist(), "denominator_zinv": r.plant.den.tolist(),
        "zeros": [[c.real, c.imag] for c in z], "poles": [[c.real, c.imag] for c in p],
        "gain": k, "dc_gain_a_per_duty": float(np.sum(r.plant.num) / np.sum(r.plant.den)),
        "fir_zinv": fir.tolist(),
        "strictly_proper": {"residue": rho, "pole": pole},
        "gs1_counts_per_pwm_count": r.design.gs1,
        "K": r.design.k, "n": r.design.n,
        "K_q15": r.design.k_p_q15, "Ki_q15": r.design.k_i_q15,
        "overshoot_pct": r.step.overshoot_pct, "peak_periods": r.step.peak_periods,
        "settling_periods_2pct": r.step.settling_periods,
        "alias_bound_pct": 100.0 * r.alias_fraction,
        "alias_bound_a": r.alias_fraction * r.stall_current_a,
    }
