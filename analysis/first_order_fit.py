"""First-order output-error fit, MATLAB's ``oe(data, [1 1 1])``: y(k) = b / (z + f) u(k).

The model is simulated from the input alone (yhat(k) = b u(k-1) - f yhat(k-1), yhat(0) = 0, the
system at rest), so measurement noise on y does not bias it the way an equation-error (ARX)
fit's regressors do.  Its figures are the ones a paper prints for such a model: the DC gain
b / (1 + f), the continuous pole -ln|p| / T_s of the discrete pole p = -f (the time constant is
its inverse, whatever the sign of p), and the fit in percent, 100 (1 - |y - yhat| / |y - mean y|)
(normalised root-mean-square error, MATLAB's ``compare``).
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, signal

POLE_BOUND = 0.999  # |f| below this: the fit stays a stable first-order model


@dataclass(frozen=True)
class FirstOrderModel:
    """b / (z + f) at sample time ts_s, and the figures derived from it."""

    b: float
    f: float
    ts_s: float
    fit_percent: float

    @property
    def gain(self) -> float:
        """DC gain b / (1 + f)."""
        return self.b / (1.0 + self.f)

    @property
    def pole(self) -> float:
        """The discrete pole p = -f."""
        return -self.f

    @property
    def s_pole(self) -> float:
        """-ln|p| / T_s, rad/s: the continuous pole as the paper converts it (inf for p = 0)."""
        return math.inf if self.f == 0.0 else -math.log(abs(self.f)) / self.ts_s

    @property
    def tau_s(self) -> float:
        """Time constant 1 / s_pole."""
        return 1.0 / self.s_pole


def simulate(b: float, f: float, u: np.ndarray) -> np.ndarray:
    """The model's output from rest: yhat(k) = b u(k-1) - f yhat(k-1)."""
    return np.asarray(signal.lfilter([0.0, b], [1.0, f], u))


def fit_percent(y: np.ndarray, yhat: np.ndarray) -> float:
    """100 (1 - |y - yhat| / |y - mean(y)|)."""
    return float(100.0 * (1.0 - np.linalg.norm(y - yhat) / np.linalg.norm(y - np.mean(y))))


def fit_first_order(u: np.ndarray, y: np.ndarray, ts_s: float) -> FirstOrderModel:
    """Least-squares output-error fit of b / (z + f) to input u and output y (same length,
    y(0) the output before u(0) acts).  Started from the equation-error (ARX) solution."""
    u, y = np.asarray(u, dtype=float), np.asarray(y, dtype=float)
    if u.shape != y.shape or u.ndim != 1 or len(u) < 3:
        raise ValueError("fit_first_order takes u and y of one length, at least 3 samples")
    if not np.any(u[:-1]) or not np.ptp(y) > 0.0:
        raise ValueError("fit_first_order needs a non-zero input and an output that varies")
    regressors = np.column_stack([u[:-1], -y[:-1]])
    start, *_ = np.linalg.lstsq(regressors, y[1:], rcond=None)
    start[1] = min(max(start[1], -POLE_BOUND / 2), POLE_BOUND / 2)
    result = optimize.least_squares(lambda th: simulate(th[0], th[1], u) - y, start,
                                    bounds=([-np.inf, -POLE_BOUND], [np.inf, POLE_BOUND]),
                                    xtol=1e-14, ftol=1e-14, gtol=1e-14)
    b, f = (float(v) for v in result.x)
    return FirstOrderModel(b=b, f=f, ts_s=ts_s, fit_percent=fit_percent(y, simulate(b, f, u)))
