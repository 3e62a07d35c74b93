"""The article's SG90 constants (SPEC 6.3) and the output-shaft model they make."""

import math

import pytest

from servobus.analysis.sg90_model import ARTICLE, output_model, reference_step


def test_the_motor_side_constants_are_the_articles() -> None:
    assert ARTICLE.r == pytest.approx(10.0)
    assert ARTICLE.k_t == pytest.approx(0.15 / 55.5 / 0.6)
    assert ARTICLE.omega_nl == pytest.approx(0.66 * 1000 * math.pi / 180 * 55.5)
    assert ARTICLE.b_computed == pytest.approx(1.409e-6, rel=1e-3)  # the fit: 1.404e-6


def test_referred_to_the_output_it_is_a_servo_preset() -> None:
    model = output_model()
    preset = model.preset("sg90-test", "SPEC 6.3")
    assert preset.kt == pytest.approx(ARTICLE.k_t * 55.5)
    assert preset.b == pytest.approx(1.404e-6 * 55.5 ** 2)
    assert (preset.r_a, preset.supply_v, preset.coulomb) == (10.0, 5.0, 0.0)
    assert preset.j == pytest.approx(0.016 * (3 * 7.25e-3 ** 2 + 48e-3 ** 2) / 12)
    # the article's formula, motor side: tau = G (k_t (V - k_e G w) / R - b G w)
    g, k_t, w = 55.5, ARTICLE.k_t, 3.0
    assert model.torque(4.0, w) == pytest.approx(g * (k_t * (4.0 - k_t * g * w) / 10.0
                                                      - 1.404e-6 * g * w))


def test_the_p_law_saturates_at_the_supply() -> None:
    model = output_model()
    assert model.volts(0.1) == pytest.approx(0.8897)
    assert (model.volts(1.0), model.volts(-1.0)) == (5.0, -5.0)


def test_rk4_reaches_the_target_and_its_step_error_is_far_below_mujocos() -> None:
    """RK4 at 5 us against 10 us: the reference's own error, ~1e-10 rad, ~1e-7 of MuJoCo's."""
    model = output_model()
    fine = reference_step(model, math.pi / 2, 0.5, 5e-6)
    coarse = reference_step(model, math.pi / 2, 0.5, 1e-5)
    assert abs(fine[-1] - math.pi / 2) < 1e-3
    assert max(abs(fine[::2] - coarse)) < 1e-9
