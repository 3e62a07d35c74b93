"""The three states of a joint at rest (SPEC 4.2): exact rest, regular oscillation, chaos.

The hold is cut into windows of WINDOW_S (2 s, 500 bus periods).  A window is
  rest     when the reported position and the command (current reference or duty) are both
           exactly constant in it;
  regular  otherwise, when the spectrum (mean removed, Hann window) of the position or of the
           command has at least REGULAR_SHARE of its power within +-PEAK_BINS bins (+-1 Hz) of
           its highest peak (the position for a train of D-term pulses, whose power the
           command spreads over harmonics);
  chaos    otherwise (broadband).
The oscillation figures are over the windows that are not at rest: position peak-to-peak (LSB)
and command peak-to-peak as medians over those windows; frequency the peak of the position's
mean spectrum over them (the regular windows' when there are any) — the repetition rate of the
excursions — or of the command's if the position never moved.  With every window at rest they
are None.
"""

import numpy as np

WINDOW_S = 2.0
REGULAR_SHARE = 0.5
PEAK_BINS = 2
STATES = ("rest", "regular", "chaos")


def _spectrum(x: np.ndarray) -> np.ndarray:
    """Power spectrum of one window, mean removed, Hann-weighted, without the bins 0..PEAK_BINS
    (0 to 1 Hz): a one-off step or a drift is not an oscillation a 2 s window can resolve."""
    power = np.abs(np.fft.rfft((x - x.mean()) * np.hanning(len(x)))) ** 2
    power[:PEAK_BINS + 1] = 0.0
    return power


def concentration(x: np.ndarray) -> float:
    """Share of the power within +-PEAK_BINS bins of the spectral peak; 0 for a constant and for
    a spectrum that only falls from the lowest bin kept (a step or drift, not an oscillation)."""
    power = _spectrum(x)
    total = float(power.sum())
    k = int(power.argmax())
    if total <= 0.0 or k <= PEAK_BINS + 1:
        return 0.0
    return float(power[max(k - PEAK_BINS, 0):k + PEAK_BINS + 1].sum()) / total


def windows(n: int, f: float) -> list[slice]:
    """Whole windows of WINDOW_S in n samples at rate f."""
    size = round(WINDOW_S * f)
    return [slice(a, a + size) for a in range(0, n - size + 1, size)]


def classify(position: np.ndarray, command: np.ndarray, f: float) -> list[str]:
    """The state of every window."""
    out = []
    for w in windows(len(position), f):
        if np.ptp(position[w]) == 0 and np.ptp(command[w]) == 0:
            out.append("rest")
        elif max(concentration(position[w]), concentration(command[w])) >= REGULAR_SHARE:
            out.append("regular")
        else:
            out.append("chaos")
    return out


def summarize(states: list[str], position: np.ndarray, command: np.ndarray, f: float,
              swing_key: str) -> dict:
    """State shares and the oscillation's amplitude, frequency and command swing."""
    wins = windows(len(position), f)
    shares = {s: states.count(s) / len(states) if states else 0.0 for s in STATES}
    moving = [w for w, s in zip(wins, states, strict=True) if s != "rest"]
    regular = [w for w, s in zip(wins, states, strict=True) if s == "regular"]
    result: dict = {"windows": len(states), "share": shares}
    if not moving:
        return result | {"amplitude_lsb": None, "frequency_hz": None, swing_key: None}
    picked = regular or moving
    power = np.mean([_spectrum(position[w]) for w in picked], axis=0)
    if not power.any():
        power = np.mean([_spectrum(command[w]) for w in picked], axis=0)
    freqs = np.fft.rfftfreq(round(WINDOW_S * f), 1.0 / f)
    return result | {
        "amplitude_lsb": float(np.median([np.ptp(position[w]) for w in moving])),
        "frequency_hz": float(freqs[int(power.argmax())]),
        swing_key: float(np.median([np.ptp(command[w]) for w in moving])),
    }
