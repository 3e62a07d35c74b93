"""The LEGO NXT motor as Pinto & Bermudez measured it (SPEC 6.2): the brick's power levels'
voltages (Table 2) and the first-order models they identified (Table 3), and the motor constants
the NXT preset takes from them -- one place for the paper's figures (`presets/servos.py` builds
the preset, `analysis/nxt_paper.py` and `analysis/preset_check.py` compare against them).

The three identified DC gains, speed per volt at levels 1, 4, 5, lie on one line w = a V - c
(least squares, within 0.1 %): a motor with Coulomb friction.  Its time constant: a motor this
fast, stepped from rest and its speed measured as the brick does (count differences over
T_s >> tau), gives |p| = tau / T_s; tau is the geometric mean of T_s |p| over the 0.1 s models
(docs/presets.md, "NXT").
"""

import math
from dataclasses import dataclass

BATTERY_V = 7.63  # Table 2's battery
LEVEL_VOLTS = {1: 2.50, 2: 3.31, 3: 4.91, 4: 6.57, 5: 7.51}  # Table 2: forward motor voltage
FIT_RANGE_PERCENT = "55-57"  # the identified models' fits, not given per model


@dataclass(frozen=True)
class PaperModel:
    """One of Table 3's models: b / (z + f) <-> s_num / (s + s_den), voltage -> output speed."""

    ts_s: float
    b: float
    f: float
    s_num: float
    s_den: float

    @property
    def gain(self) -> float:
        """DC gain of the continuous model ((rad/s)/V)."""
        return self.s_num / self.s_den

    @property
    def tau_s(self) -> float:
        """Time constant of the continuous model."""
        return 1.0 / self.s_den


PAPER_MODELS = {
    1: PaperModel(ts_s=0.01, b=1.558, f=0.06275, s_num=405.8933, s_den=276.8591),
    4: PaperModel(ts_s=0.1, b=1.548, f=0.01837, s_num=60.7647, s_den=39.972),
    5: PaperModel(ts_s=0.1, b=1.568, f=0.02715, s_num=55.0652, s_den=36.0625),
}


def _line() -> tuple[float, float]:
    """(a, c) of the least-squares line w = a V - c through the three models' speeds."""
    points = [(LEVEL_VOLTS[level], m.gain * LEVEL_VOLTS[level])
              for level, m in PAPER_MODELS.items()]
    n = len(points)
    mv = sum(v for v, _ in points) / n
    mw = sum(w for _, w in points) / n
    a = sum((v - mv) * (w - mw) for v, w in points) / sum((v - mv) ** 2 for v, _ in points)
    return a, a * mv - mw


GAIN, OFFSET = _line()  # 1.55615 (rad/s)/V at the output, 0.226964 rad/s
TAU_S = 0.1 * math.sqrt(PAPER_MODELS[4].f * PAPER_MODELS[5].f)  # 2.233 ms
