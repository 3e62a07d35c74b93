"""The lifted G(z) against brute force, the alias bound against simulated pulse trains, and the
linear closed loop against the firmware on the averaged plant."""

import math

import numpy as np
import pytest

from servobus.analysis.current_loop import alias_bound, analyze, lifted_plant, report_dict
from servobus.analysis.current_step import run_step, step_report
from servobus.plant.build import PlantOptions
from servobus.presets.board import DEFAULT_BOARD, BoardHardware
from servobus.presets.servos import HSR_5995TG

K1 = HSR_5995TG.stall_current_a


def brute_force_impulse(hw: BoardHardware, m_len: int, periods: int, phase: int) -> np.ndarray:
    """Full-rate system: duty 1 in period 0 only; RC sampled at every ADC instant i T/N; at each
    edge kT the mean of the m_len samples ending with sample kN - phase (earlier ones are 0)."""
    n = hw.adc_per_pwm
    ts = 1.0 / hw.adc_hz
    x, samples = 0.0, []
    for k in range(periods):
        u = K1 if k == 0 else 0.0
        for _ in range(n):
            samples.append(x)
            x = u + (x - u) * math.exp(-ts / hw.rc_tau_s)
    def at(i: int) -> float:
        return samples[i] if i >= 0 else 0.0
    return np.array([sum(at(k * n - phase - lag) for lag in range(m_len)) / m_len
                     for k in range(periods)])


@pytest.mark.parametrize("hw", [DEFAULT_BOARD, BoardHardware(rc_c_f=4.7e-9),
                                BoardHardware(adc_per_pwm=4)])
@pytest.mark.parametrize("factor", [1, 2, 3])
def test_lifted_plant_equals_brute_force_impulse(hw: BoardHardware, factor: int) -> None:
    m_len = factor * hw.adc_per_pwm
    for phase in range(hw.adc_per_pwm):
        g = lifted_plant(K1, hw, m_len, phase)
        assert np.allclose(g.impulse(60), brute_force_impulse(hw, m_len, 60, phase),
                           rtol=1e-12, atol=1e-14)


def test_thesis_window_makes_the_plant_minimum_phase() -> None:
    """phi = 0: zeros -1 and a root inside; phi = 1 (previous period) puts one outside."""
    z0, _, _ = lifted_plant(K1, DEFAULT_BOARD, phase=0).zpk()
    z1, _, _ = lifted_plant(K1, DEFAULT_BOARD, phase=1).zpk()
    assert max(abs(z0)) == pytest.approx(1.0) and min(abs(z0)) < 0.7
    assert max(abs(z1)) > 1.1
    g0 = lifted_plant(K1, DEFAULT_BOARD, phase=0)
    a = math.exp(-1 / 18)  # 120 kHz samples of a 150 us RC
    assert g0.num[0] == 0.0 and g0.num[1] == pytest.approx(K1 / 12 * (1 - a**6 + 5 - sum(
        a**j for j in range(1, 6))))  # sample at kT (X_k) and period k-1


def test_bad_sampling_phase() -> None:
    with pytest.raises(ValueError, match="phase"):
        lifted_plant(K1, DEFAULT_BOARD, phase=6)


@pytest.mark.parametrize("phase", range(6))
def test_dc_gain_is_the_winding_conductance_and_split_adds_up(phase: int) -> None:
    """G(1) = K1 whatever the phase, so the PI design K = 0.6/G_S(1) does not depend on it."""
    g = lifted_plant(K1, DEFAULT_BOARD, phase=phase)
    assert math.isclose(np.sum(g.num) / np.sum(g.den), K1, rel_tol=1e-12)
    fir, rho, pole = g.fir_iir_split()
    assert math.isclose(pole, math.exp(-50e-6 / 150e-6), rel_tol=1e-12)
    rebuilt = np.array([(fir[k] if k < len(fir) else 0.0) + (rho * pole ** (k - 1) if k else 0.0)
                        for k in range(40)])
    assert np.allclose(rebuilt, g.impulse(40), atol=1e-13)
    zeros, poles, _ = g.zpk()
    assert any(abs(z + 1) < 1e-9 for z in zeros)  # the two-period window
    assert any(abs(p - pole) < 1e-12 for p in poles)


def test_moving_average_length_must_be_a_multiple_of_n() -> None:
    with pytest.raises(ValueError, match="multiple"):
        lifted_plant(K1, DEFAULT_BOARD, 10)


def _aliased_dc_error(duty: float, phase: float, hw: BoardHardware) -> float:
    """Steady-state DC error of the 12-sample mean of an RC-filtered unit pulse train."""
    t_pwm, tau = 1.0 / hw.pwm_hz, hw.rc_tau_s
    on = duty * t_pwm
    a_on, a_off = math.exp(-on / tau), math.exp(-(t_pwm - on) / tau)
    v0 = (1 - a_on) * a_off / (1 - a_on * a_off)  # periodic steady state at the pulse start
    def v(t: float) -> float:
        t %= t_pwm
        if t < on:
            return 1 + (v0 - 1) * math.exp(-t / tau)
        v_on = 1 + (v0 - 1) * a_on
        return v_on * math.exp(-(t - on) / tau)
    samples = [v(phase + j * t_pwm / hw.adc_per_pwm) for j in range(12)]
    return abs(sum(samples) / 12 - duty)


def test_alias_bound_holds_and_is_not_loose() -> None:
    bound = alias_bound(DEFAULT_BOARD)
    worst = max(_aliased_dc_error(d, ph * 50e-6 / 7, DEFAULT_BOARD)
                for d in np.linspace(0.01, 0.99, 99) for ph in range(7))
    assert worst <= bound
    assert worst > 0.5 * bound


@pytest.mark.parametrize(("window", "low", "high"), [("ends-at-edge", 5.0, 6.5),
                                                      ("previous-period", 7.0, 8.0)])
def test_averaged_plant_step_matches_the_linear_analysis(window, low, high) -> None:
    """The acceptance comparison: overshoot within 0.3 pp, the same peak period."""
    analysis = report_dict(analyze(HSR_5995TG, DEFAULT_BOARD, "winding-bipolar", window),
                           DEFAULT_BOARD)
    sim = step_report(run_step(PlantOptions(plant="averaged", sensing="winding-bipolar",
                                            rotor="locked", adc_window=window), 1.0))
    assert abs(sim["overshoot_pct"] - analysis["overshoot_pct"]) < 0.3
    assert sim["peak_periods"] == analysis["peak_periods"] == 13
    assert low < analysis["overshoot_pct"] < high


def test_timing_table_covers_every_phase_and_delay_and_grows_with_latency() -> None:
    table = report_dict(analyze(HSR_5995TG, DEFAULT_BOARD, "winding-bipolar"),
                        DEFAULT_BOARD)["timing"]
    assert [(r["phase"], r["delay"]) for r in table] == [(p, d) for d in (1, 2)
                                                          for p in range(6)]
    overshoots = [r["overshoot_pct"] for r in table]
    assert overshoots == sorted(overshoots)  # every T/6 of latency adds overshoot
    assert [r["minimum_phase"] for r in table] == [True] + [False] * 5 + [True] + [False] * 5
    default = report_dict(analyze(HSR_5995TG, DEFAULT_BOARD, "winding-bipolar"), DEFAULT_BOARD)
    assert table[0]["overshoot_pct"] == default["overshoot_pct"]
