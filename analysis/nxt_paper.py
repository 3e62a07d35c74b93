"""What Pinto & Bermudez publish about the LEGO NXT motor (SPEC 6.2), as data, and what their
white-box constants imply when computed: the figures docs/presets.md ("NXT") sets beside the
measured models the NXT preset follows."""

from dataclasses import dataclass
from typing import Any

import numpy as np

LEVEL_VOLTS = {1: 2.50, 2: 3.31, 3: 4.91, 4: 6.57, 5: 7.51}  # Table 2, battery 7.63 V
FIT_RANGE_PERCENT = "55-57"  # the identified models' fits, not given per model

# grey-box A = [[-t1, -t2], [t3, -t4]], B = [1; 0], and the white-box constants derived from it
GREY_THETA = (50012.0, 16.417, 150070.0, 15.753)
WHITE_R = 5.0012  # ohm
WHITE_L = 1e-3  # H (the text assumes 0.1 mH)
WHITE_K = 0.5246  # K_T = K_e
WHITE_J = 2.4589e-6  # kg m^2
WHITE_B = 3.8745e-5  # N m s / rad
WHITE_N = 32  # gear ratio the text assumes


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


def white_box() -> dict[str, Any]:
    """The white-box model's DC gain and poles, and how its constants follow from the grey-box
    parameters (each ratio names the L_a, J_m it needs)."""
    a = np.array([[-WHITE_R / WHITE_L, -WHITE_K / WHITE_L],
                  [WHITE_K / WHITE_J, -WHITE_B / WHITE_J]])
    poles = sorted(np.linalg.eigvals(a), key=lambda p: p.imag)
    gain = WHITE_K / (WHITE_R * WHITE_B + WHITE_K ** 2)
    t1, t2, t3, t4 = GREY_THETA
    grey = np.linalg.eigvals(np.array([[-t1, -t2], [t3, -t4]]))
    return {
        "dc_gain_motor": gain,  # (rad/s)/V on the shaft the constants describe
        "dc_gain_output": gain / WHITE_N,  # ... through the N = 32 the text assumes
        "pole_real": float(poles[1].real),  # rad/s: the poles are pole_real +- j pole_imag
        "pole_imag": float(poles[1].imag),
        "damping_ratio": -poles[0].real / abs(poles[0]),
        "l_a_from_r_a": WHITE_R / t1,  # R_a = t1 L_a
        "l_a_from_k_e": WHITE_K / (t2 * WHITE_N),  # K_e = t2 N L_a
        "b_over_j": WHITE_B / WHITE_J,  # vs t4
        "k_over_j": WHITE_K / WHITE_J,  # vs t3
        "j_from_t3": WHITE_K / t3,
        "grey_poles": sorted(float(p.real) for p in grey),
        "measured_taus_ms": [m.tau_s * 1e3 for m in PAPER_MODELS.values()],
        "white_tau_ms": 1e3 / -poles[0].real,  # the envelope's time constant
    }

