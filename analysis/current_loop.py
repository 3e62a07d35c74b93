"""Linear analysis of the current loop (SPEC 2.3): the lifted plant G(z), the PI, the closed loop.

At the fast rate f_s = N f_PWM the RC filter is sampled exactly (pole a = exp(-1/(f_s T_RC))),
the duty is held for N samples (ZOH, H1), the RC filters it (H2) and the moving sum of M samples
is read once per PWM period (H3).  Sampling phase phi: the sum read at edge k ends with the
sample taken at kT - phi T/N.  Writing X_m for the filter state at the start of period m, the
sample j of period m is a^j X_m + (1 - a^j) K1 u[m], X_m = A X_{m-1} + (1-A) K1 u[m-1], A = a^N,
so with q_l = ceil((phi + l)/N) and j_l = (-phi - l) mod N for l = 0..M-1

    G(z) = K1/M * sum_l z^-q_l ((1 - a^j_l) + (a^j_l - A) z^-1) / (1 - A z^-1).

The controller output computed at edge k acts from (k + d)T: loop L(z) = z^-d C(z) G(z).  The
default (phi = 0, d = 1) is the thesis' loop; (phi = 1, d = 1) reads the previous two periods.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import signal

from servobus.analysis.step_metrics import StepMetrics, step_metrics
from servobus.firmware import memory as m
from servobus.presets.board import AdcWindow, BoardHardware, Sensing
from servobus.presets.firmware_image import CurrentLoopDesign, current_loop_design
from servobus.presets.servos import ServoPreset

STEP_PERIODS = 400  # PWM periods of a closed-loop step response


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


ADC_WINDOWS: dict[AdcWindow, tuple[int, int]] = {"ends-at-edge": (0, 1),
                                                 "previous-period": (1, 1)}
"""--adc-window name -> (sampling phase phi, computation delay d); docs/decisions.md, "Timing"."""


def lifted_plant(k1: float, hw: BoardHardware, m_len: int = m.MA_LEN,
                 phase: int = 0) -> LiftedPlant:
    """The decimated ZOH -> RC -> moving-sum system for N = hw.adc_per_pwm, M = m_len, phase phi."""
    n = hw.adc_per_pwm
    if m_len % n:
        raise ValueError(f"moving-average length {m_len} is not a multiple of N = {n}")
    if not 0 <= phase < n:
        raise ValueError(f"sampling phase {phase} is not in 0..{n - 1}")
    a = math.exp(-1.0 / (hw.adc_hz * hw.rc_tau_s))
    big_a = a**n
    num = np.zeros(-(-(phase + m_len - 1) // n) + 2)
    for lag in range(m_len):
        q, j = -(-(phase + lag) // n), (-phase - lag) % n
        num[q] += 1.0 - a**j
        num[q + 1] += a**j - big_a
    return LiftedPlant(num=k1 / m_len * num, den=np.array([1.0, -big_a]), n=n, m=m_len, k1=k1)


def closed_loop(g: LiftedPlant, scale: float, k: float, n_zero: float,
                delay: int = 1) -> tuple[np.ndarray, ...]:
    """Reference -> measurement of L = z^-d C G, with G in controller units (scale * G)."""
    c_num, c_den = k * np.array([1.0, -n_zero]), np.array([1.0, -1.0])
    l_num = np.convolve(np.concatenate((np.zeros(delay), c_num)), scale * g.num)
    l_den = np.convolve(c_den, g.den)
    size = max(len(l_num), len(l_den))
    l_num = np.pad(l_num, (0, size - len(l_num)))
    l_den = np.pad(l_den, (0, size - len(l_den)))
    return l_num, l_den + l_num


def closed_loop_step(g: LiftedPlant, design: CurrentLoopDesign, scale: float,
                     periods: int = STEP_PERIODS, delay: int = 1) -> np.ndarray:
    """Unit-step response of the measured current, one value per PWM period."""
    num, den = closed_loop(g, scale, design.k, design.n, delay)
    return np.asarray(signal.lfilter(num, den, np.ones(periods)))


def timing_table(servo: ServoPreset, hw: BoardHardware, design: CurrentLoopDesign,
                 scale: float) -> list[dict]:
    """Closed-loop step of the same PI for every sampling phase 0..N-1 and delay 1..2."""
    rows = []
    for delay in (1, 2):
        for phase in range(hw.adc_per_pwm):
            g = lifted_plant(servo.stall_current_a, hw, phase=phase)
            num, den = closed_loop(g, scale, design.k, design.n, delay)
            stable = bool(np.max(np.abs(np.roots(den))) < 1.0)
            zeros, _, _ = g.zpk()
            step = step_metrics(np.asarray(signal.lfilter(num, den, np.ones(STEP_PERIODS))), 1.0)
            rows.append({"phase": phase, "delay": delay, "stable": stable,
                         "overshoot_pct": step.overshoot_pct if stable else None,
                         "peak_periods": step.peak_periods if stable else None,
                         "minimum_phase": bool(np.all(np.abs(zeros) <= 1.0 + 1e-9))})
    return rows


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
    sensing: Sensing
    adc_window: AdcWindow
    timing: list[dict]


def analyze(servo: ServoPreset, hw: BoardHardware, sensing: Sensing,
            adc_window: AdcWindow = "ends-at-edge") -> CurrentLoopReport:
    """Lifted plant, PI design and linear closed-loop step of one board configuration."""
    if adc_window not in ADC_WINDOWS:
        raise ValueError(f"unknown ADC window {adc_window!r}: one of {', '.join(ADC_WINDOWS)}")
    phase, delay = ADC_WINDOWS[adc_window]
    g = lifted_plant(servo.stall_current_a, hw, phase=phase)
    design = current_loop_design(servo, hw, sensing)
    scale = design.counts_per_amp / hw.pwm_top
    y = closed_loop_step(g, design, scale, delay=delay)
    return CurrentLoopReport(plant=g, design=design, scale=scale,
                             step=step_metrics(y, 1.0), alias_fraction=alias_bound(hw),
                             stall_current_a=servo.stall_current_a, sensing=sensing,
                             adc_window=adc_window, timing=timing_table(servo, hw, design, scale))


def report_dict(r: CurrentLoopReport, hw: BoardHardware) -> dict:
    """JSON-ready figures."""
    z, p, k = r.plant.zpk()
    fir, rho, pole = r.plant.fir_iir_split()
    phase, delay = ADC_WINDOWS[r.adc_window]
    return {
        "sensing": r.sensing, "adc_window": r.adc_window, "phase": phase, "delay": delay,
        "N": r.plant.n, "M": r.plant.m, "f_s_hz": hw.adc_hz, "f_pwm_hz": hw.pwm_hz,
        "numerator_zinv": r.plant.num.tolist(), "denominator_zinv": r.plant.den.tolist(),
        "zeros": [[float(c.real), float(c.imag)] for c in z],
        "poles": [[float(c.real), float(c.imag)] for c in p],
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
        "timing": r.timing,
    }
