"""The rest / regular / chaos classifier on synthetic signals with known answers."""

import numpy as np
import pytest

from servobus.analysis.hold_states import classify, concentration, summarize

F = 250.0


def test_constant_signals_are_rest_and_report_none() -> None:
    pos, cmd = np.full(1500, 512.0), np.full(1500, 0.004)
    states = classify(pos, cmd, F)
    assert states == ["rest"] * 3
    out = summarize(states, pos, cmd, F, "iw_swing_a")
    assert out["share"] == {"rest": 1.0, "regular": 0.0, "chaos": 0.0}
    assert out["amplitude_lsb"] is None and out["iw_swing_a"] is None


def test_a_square_wave_is_regular_at_its_frequency() -> None:
    t = np.arange(1500) / F
    cmd = 0.2 * np.sign(np.sin(2 * np.pi * 12.5 * t + 0.1))
    pos = 512.0 + (cmd > 0)
    states = classify(pos, cmd, F)
    assert states == ["regular"] * 3
    out = summarize(states, pos, cmd, F, "iw_swing_a")
    assert out["frequency_hz"] == 12.5
    assert out["amplitude_lsb"] == 1.0 and out["iw_swing_a"] == pytest.approx(0.4)


def test_white_noise_is_chaos_and_mixtures_share_time() -> None:
    rng = np.random.default_rng(1)
    cmd = np.concatenate([np.zeros(500), rng.normal(0, 0.1, 1000)])
    pos = np.concatenate([np.full(500, 512.0), 512.0 + rng.integers(-1, 2, 1000)])
    states = classify(pos, cmd, F)
    assert states == ["rest", "chaos", "chaos"]
    out = summarize(states, pos, cmd, F, "iw_swing_a")
    assert out["share"]["rest"] == pytest.approx(1 / 3)
    assert out["amplitude_lsb"] == 2.0


def test_concentration_of_a_pure_sine_and_of_noise() -> None:
    t = np.arange(500) / F
    assert concentration(np.sin(2 * np.pi * 20 * t)) > 0.99
    assert concentration(np.random.default_rng(0).normal(size=500)) < 0.1
    assert concentration(np.ones(500)) == 0.0


def test_a_train_of_d_term_pulses_is_regular_at_the_position_rate() -> None:
    """±1 LSB excursions every 2/9 s (4.5 Hz) driven by one-period pulses of the command: the
    command's power is spread over the pulses' harmonics, the position's is not."""
    n = np.arange(1500)
    phase = (n % 500) * 4.5 * 2 / F % 2  # 0..2 per cycle of 4.5 Hz
    pos = 512.0 + np.where(phase < 0.5, 1.0, np.where((phase >= 1.0) & (phase < 1.5), -1.0, 0.0))
    cmd = np.diff(pos, prepend=pos[0]) * -0.25
    assert concentration(cmd[:500]) < 0.5
    states = classify(pos, cmd, F)
    assert states == ["regular"] * 3
    out = summarize(states, pos, cmd, F, "iw_swing_a")
    assert out["frequency_hz"] == 4.5 and out["amplitude_lsb"] == 2.0


def test_a_single_step_is_not_an_oscillation() -> None:
    """One 1-LSB step and one command pulse in a window: chaos (broadband), never regular."""
    pos = np.concatenate([np.full(200, 512.0), np.full(1300, 513.0)])
    cmd = np.zeros(1500)
    cmd[200] = 0.25
    assert classify(pos, cmd, F) == ["chaos", "rest", "rest"]
