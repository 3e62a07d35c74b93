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


def brute_force_impulse(hw: BoardHardware, m_len: int, periods: int) -> np.ndarray:
    """Full-rate system: duty 1 in period 0 only; RC sampled at every ADC instant; the moving
    sum of the last m_len samples read at each period start (before that period's first sample)."""
    n = hw.adc_per_pwm
    ts = 1.0 / hw.adc_hz
    x, samples, out = 0.0, [], []
    for k in range(periods):
        out.append(sum(samples[-m_len:]) / m_len)  # samples before t = 0 are zero
        u = K1 if k == 0 else 0.0
        for _ in range(n):
            samples.append(x)
            x = u + (x - u) * math.exp(-ts / hw.rc_tau_s)
    return np.array(out)


@pytest.mark.parametrize("hw", [DEFAULT_BOARD, BoardHardware(rc_c_f=4.7e-9),
                                BoardHardware(adc_per_pwm=4)])
@pytest.mark.parametrize("factor", [1, 2, 3])
def test_lifted_plant_equals_brute_force_impulse(hw: BoardHardware, factor: int) -> None:
    m_len = factor * hw.adc_per_pwm
    g = lifted_plant(K1, hw, m_len)
    assert np.allclose(g.impulse(60), brute_force_impulse(hw, m_len, 60), rtol=1e-12,
                       atol=1e-14)


def test_dc_gain_is_the_winding_conductance_and_split_adds_up() -> None:
    g = lifted_plant(K1, DEFAULT_BOARD)
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


def test_averaged_plant_step_matches_the_linear_analysis() -> None:
    """The closing-note comparison: overshoot within 0.3 pp, peak within 1 PWM period."""
    analysis = report_dict(analyze(HSR_5995TG, DEFAULT_BOARD, "winding-bipolar"), DEFAULT_BOARD)
    sim = step_report(run_step(PlantOptions(plant="averaged", sensing="winding-bipolar",
                                            rotor="locked"), 1.0))
    assert abs(sim["overshoot_pct"] - analysis["overshoot_pct"]) < 0.3
    assert abs(sim["peak_periods"] - analysis["peak_periods"]) <= 1
    assert 5.0 < analysis["overshoot_pct"] < 10.0
