"""Step-response figures shared by the analysis and the simulated step."""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StepMetrics:
    """Figures of a step response sampled once per period, indexed from the step."""

    overshoot_pct: float
    peak_periods: int
    settling_periods: int  # first period after which |y - final| stays within the band
    final: float


def step_metrics(y: np.ndarray, final: float, band: float = 0.02) -> StepMetrics:
    """Overshoot over `final`, the period of the peak and the settling period (band of final)."""
    peak = int(np.argmax(y))
    outside = np.nonzero(np.abs(y - final) > band * abs(final))[0]
    settling = int(outside[-1]) + 1 if len(outside) else 0
    return StepMetrics(overshoot_pct=float((y[peak] - final) / final * 100.0),
                       peak_periods=peak, settling_periods=settling, final=final)
