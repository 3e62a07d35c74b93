"""The output-error fit on sequences that are exactly first order: it must give back the model
that made them (both signs of pole), independently of the NXT experiment it serves."""

import math

import numpy as np
import pytest

from servobus.analysis.first_order_fit import fit_first_order, fit_percent, simulate


def steps(n: int) -> np.ndarray:
    """A rich input: levels held for a few samples each (a deterministic pseudo-random walk)."""
    levels = np.array([2.5, 7.51, 0.0, 4.91, 6.57, 3.31, 7.51, 1.0])
    return np.repeat(levels, n // len(levels) + 1)[:n]


@pytest.mark.parametrize(("b", "f", "ts"), [(1.558, 0.06275, 0.01), (1.487, -0.0225, 0.1),
                                             (0.3, -0.8, 0.001), (2.0, 0.5, 0.05)])
def test_an_exact_first_order_sequence_gives_its_model_back(b: float, f: float,
                                                            ts: float) -> None:
    u = steps(400)
    y = np.empty_like(u)
    y[0] = 0.0
    for k in range(1, len(u)):  # written out, not through the fitter's own simulate()
        y[k] = b * u[k - 1] - f * y[k - 1]
    model = fit_first_order(u, y, ts)
    assert model.b == pytest.approx(b, rel=1e-9)
    assert model.f == pytest.approx(f, rel=1e-9, abs=1e-12)
    assert model.gain == pytest.approx(b / (1 + f), rel=1e-9)
    assert model.pole == pytest.approx(-f, rel=1e-9)
    assert model.tau_s == pytest.approx(-ts / math.log(abs(f)), rel=1e-9)
    assert model.fit_percent == pytest.approx(100.0, abs=1e-6)


def test_a_step_with_a_short_first_sample_gives_a_positive_pole() -> None:
    # a mean-speed step: the first sample falls 2 % short, the rest at the final value
    u = np.full(50, 2.0)
    y = np.full(50, 3.0)
    y[0], y[1] = 0.0, 3.0 * 0.98
    model = fit_first_order(u, y, 0.1)
    assert model.pole == pytest.approx(0.02, abs=1e-3)
    assert model.gain == pytest.approx(1.5, rel=1e-4)


def test_the_fit_percent_is_the_normalised_error() -> None:
    y = np.array([0.0, 1.0, 2.0, 3.0])
    assert fit_percent(y, y) == 100.0
    assert fit_percent(y, np.full(4, y.mean())) == pytest.approx(0.0)
    assert simulate(2.0, 0.5, np.ones(3)).tolist() == [0.0, 2.0, 1.0]


@pytest.mark.parametrize(("u", "y"), [(np.ones(3), np.ones(4)), (np.zeros(5), np.arange(5.0)),
                                      (np.ones(5), np.ones(5)), (np.ones(2), np.arange(2.0))])
def test_data_without_a_model_in_it_are_refused(u: np.ndarray, y: np.ndarray) -> None:
    with pytest.raises(ValueError):
        fit_first_order(u, y, 0.1)
