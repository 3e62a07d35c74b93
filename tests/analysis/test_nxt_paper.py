"""The paper's published NXT figures as data, and what its white-box constants imply: the
contradictions docs/presets.md ("NXT") states, computed."""

import math

import pytest

from servobus.analysis.nxt_paper import PAPER_MODELS, white_box


@pytest.mark.parametrize("level", sorted(PAPER_MODELS))
def test_table_3s_pairs_are_one_model_each(level: int) -> None:
    # s-pole = -ln|z-pole| / T_s and the s-model's gain = b / (1 + f), to the printed digits
    paper = PAPER_MODELS[level]
    assert -math.log(paper.f) / paper.ts_s == pytest.approx(paper.s_den, rel=2e-4)
    assert paper.b / (1.0 + paper.f) == pytest.approx(paper.gain, abs=5e-4)


def test_the_white_box_constants_contradict_each_other_and_the_measurements() -> None:
    white = white_box()
    assert white["l_a_from_r_a"] == pytest.approx(1e-4)  # R_a = 50012 L_a
    assert white["l_a_from_k_e"] == pytest.approx(1e-3, rel=2e-3)  # K_e = 16.417 N L_a
    assert white["b_over_j"] == pytest.approx(15.753, rel=1e-3)  # J_m follows from t4 ...
    assert white["j_from_t3"] == pytest.approx(3.496e-6, rel=1e-3)  # ... not from t3
    assert round(white["dc_gain_motor"], 1) == 1.9  # SPEC 6.2: ~1.9 (rad/s)/V
    assert round(white["pole_real"], -2) == -2500  # SPEC 6.2: near -2,500 +- 10,300j rad/s
    assert round(white["pole_imag"], -2) == 10300
    assert white["white_tau_ms"] < 0.5 < min(white["measured_taus_ms"]) / 5
