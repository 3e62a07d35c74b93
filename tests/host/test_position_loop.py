"""The position-loop design view: phase crossover, tunings, stability interval, design rule."""

import math

import numpy as np
import pytest

from servobus.host.identify import fit_response, fit_step
from servobus.host.position_loop import (
    PositionPlant,
    alpha_max,
    critical_omega,
    design,
    largest_pole,
    step_figures,
)
from servobus.host.tunings import THESIS_Q, TUNINGS

THESIS = PositionPlant(1.0, THESIS_Q)


def test_critical_frequency_is_the_phase_crossover() -> None:
    w = critical_omega(THESIS)
    z = complex(math.cos(w / 250), math.sin(w / 250))
    response = THESIS.kp / (z * (z - 1) * (z - THESIS.q))
    assert abs(response.imag) < 1e-9 * abs(response) and response.real < 0  # phase -180 deg


def test_r2b_is_the_robust_retune() -> None:
    r2, r2b = (TUNINGS[n].gains(1.0, 250.0) for n in ("R2", "R2b"))
    assert largest_pole(THESIS, r2) < 1 and largest_pole(THESIS, r2b) < 1
    assert 3 < alpha_max(THESIS, r2) < 10 < alpha_max(THESIS, r2b)
    assert largest_pole(THESIS.with_alpha(alpha_max(THESIS, r2) * 1.01), r2) > 1.0


def test_kp_scaling_keeps_the_static_speed_per_amp() -> None:
    for alpha in (0.5, 2.0, 25.0):
        heavy = THESIS.with_alpha(alpha)
        assert heavy.kp / (1 - heavy.q) == pytest.approx(THESIS.kp / (1 - THESIS.q))
        assert heavy.tm_s == pytest.approx(alpha * THESIS.tm_s)


def test_design_rule_meets_a_reachable_target() -> None:
    slow_pole = PositionPlant(1.0, 0.3)
    tuning, met = design(slow_pole, overshoot_pct=30.0)
    gains = tuning.gains(slow_pole.kp, slow_pole.f)
    assert met and step_figures(slow_pole, gains).overshoot_pct <= 30.0
    assert tuning.omega_i == pytest.approx(tuning.omega_d / 5)
    assert tuning.omega_d == pytest.approx(critical_omega(slow_pole))


def test_frequency_response_fit_recovers_a_known_plant() -> None:
    hz = np.array([1.0, 2.0, 5.0, 10.0, 20.0])
    z = np.exp(2j * np.pi * hz / 250)
    resp = 0.7 / (z * (z - 1) * (z - 0.75))
    fit = fit_response(hz, resp, 250.0)
    assert fit.q == pytest.approx(0.75, abs=1e-6) and fit.kp == pytest.approx(0.7, rel=1e-6)
    assert fit.rms < 1e-6 and fit.q_se < 1e-6


def test_frequency_fit_standard_errors_match_the_spread_over_noise_draws() -> None:
    # 5 % complex log noise on 20 points: the Jacobian's standard error must predict the
    # scatter of the estimates over independent draws (within sampling error of 300 draws)
    rng = np.random.default_rng(1)
    hz = np.geomspace(1.0, 30.0, 20)
    z = np.exp(2j * np.pi * hz / 250)
    true = 0.7 / (z * (z - 1) * (z - 0.75))
    fits = [fit_response(hz, true * np.exp(0.05 * (rng.standard_normal(20) + 1j *
                                                   rng.standard_normal(20))), 250.0)
            for _ in range(300)]
    q, kp = np.array([f.q for f in fits]), np.array([f.kp for f in fits])
    assert np.std(q) == pytest.approx(np.mean([f.q_se for f in fits]), rel=0.15)
    assert np.std(kp) == pytest.approx(np.mean([f.kp_se for f in fits]), rel=0.15)


def test_step_fit_recovers_a_first_order_speed() -> None:
    t = np.arange(100) / 250
    d = 3.0 * (1 - np.exp(-t / 0.02))
    fit, b1 = fit_step(0.2, d, 250.0)
    assert fit.q == pytest.approx(math.exp(-1 / (250 * 0.02)), rel=1e-4)
    assert fit.kp == pytest.approx(3.0 * (1 - fit.q) / 0.2, rel=1e-4)
    assert b1 == pytest.approx(3.0, rel=1e-4)


def test_step_fit_standard_errors_match_the_spread_over_noise_draws() -> None:
    rng = np.random.default_rng(2)
    t = np.arange(100) / 250
    d = 3.0 * (1 - np.exp(-t / 0.02))
    fits = [fit_step(0.2, d + 0.3 * rng.standard_normal(100), 250.0)[0] for _ in range(300)]
    q, kp = np.array([f.q for f in fits]), np.array([f.kp for f in fits])
    assert np.std(q) == pytest.approx(np.mean([f.q_se for f in fits]), rel=0.15)
    assert np.std(kp) == pytest.approx(np.mean([f.kp_se for f in fits]), rel=0.15)
