"""R2(z) exactly while unsaturated, and the invariants of each anti-windup variant."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.host.pid import ANTI_WINDUP, PidBank

GAINS = np.array([[0.05, 0.004, 0.2]] * 3)
ERRS = st.lists(st.lists(st.floats(-40, 40), min_size=3, max_size=3), min_size=2, max_size=60)


@given(st.lists(st.floats(-2, 2), min_size=2, max_size=60))
def test_unsaturated_pid_is_exactly_r2(errors: list[float]) -> None:
    pid = PidBank(GAINS[:1], i_max=1e9, anti_windup="soft")
    integ, prev, out = 0.0, errors[0], []  # the first sample has no derivative kick
    for e in errors:
        out.append(pid.step(np.array([e]), np.array([0.0]))[0])
        expected = 0.05 * e + integ + 0.2 * (e - prev)
        assert out[-1] == pytest.approx(expected)
        integ += 0.004 * e
        prev = e


@settings(max_examples=60)
@given(st.sampled_from(ANTI_WINDUP), ERRS)
def test_output_never_leaves_the_current_limit(variant, errors) -> None:
    pid = PidBank(GAINS, anti_windup=variant)
    for e in errors:
        u = pid.step(np.array(e), np.zeros(3))
        assert np.all(np.abs(u) <= 1.0)
        if variant == "soft":
            assert np.all(np.abs(pid.integ) <= 1.0)


@settings(max_examples=60)
@given(ERRS)
def test_hard_anti_windup_keeps_p_plus_i_plus_d_in_range(errors) -> None:
    pid = PidBank(GAINS, anti_windup="hard")
    for e in errors:
        integ_before = pid.integ.copy()
        e_prev = np.where(np.isnan(pid.e_prev), np.array(e), pid.e_prev)
        pid.step(np.array(e), np.zeros(3))
        pd = 0.05 * np.array(e) + 0.2 * (np.array(e) - e_prev)
        held = np.clip(integ_before, -1 - pd, 1 - pd)
        assert np.all(np.abs(pd + held) <= 1.0 + 1e-12)


def test_conditional_integration_freezes_while_saturated_in_the_error_direction() -> None:
    pid = PidBank(GAINS[:1], anti_windup="conditional")
    for _ in range(50):
        pid.step(np.array([100.0]), np.array([0.0]))
    assert pid.integ[0] == 0.0  # saturated from the first step: no integration at all
    pid.step(np.array([-1.0]), np.array([0.0]))  # the D kick of the jump still saturates
    pid.step(np.array([-1.0]), np.array([0.0]))  # back inside the limits: integrates again
    assert pid.integ[0] == pytest.approx(-0.004)


def test_windup_without_limits_is_what_anti_windup_prevents() -> None:
    """200 steps at e = 60 (P alone is 3 A, three times the limit): a pure integrator would hold
    200 * 0.004 * 60 = 48 A; each variant holds its hand-computed fixed point instead."""
    def integrator_after_saturation(variant: str) -> float:
        pid = PidBank(GAINS[:1], anti_windup=variant)
        for _ in range(200):
            pid.step(np.array([60.0]), np.array([0.0]))
        return float(pid.integ[0])

    expected = {
        "soft": 1.0,  # clamped to +-i_max
        "hard": -2.0 + 0.004 * 60,  # clipped to i_max - P = -2, then one step integrated
        "conditional": 0.0,  # saturated with the error's sign from the first step: frozen
        "dynamic": -1.52,  # I = I + 0.24 + 0.5 (1 - (3 + I)) has its fixed point at -1.52
    }
    assert set(expected) == set(ANTI_WINDUP)
    for variant in ANTI_WINDUP:
        assert integrator_after_saturation(variant) == pytest.approx(expected[variant]), variant
    with pytest.raises(ValueError, match="anti-windup"):
        PidBank(GAINS, anti_windup="magic")  # type: ignore[arg-type]
