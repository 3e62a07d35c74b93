"""What Pinto & Bermudez's white-box constants of the LEGO NXT motor (SPEC 6.2) imply when
computed: the figures docs/presets.md ("NXT") sets beside the measured models the NXT preset
follows (their tables: presets/nxt.py)."""

from typing import Any

import numpy as np

from servobus.presets.nxt import FIT_RANGE_PERCENT, LEVEL_VOLTS, PAPER_MODELS

__all__ = ["FIT_RANGE_PERCENT", "LEVEL_VOLTS", "PAPER_MODELS", "white_box"]


# grey-box A = [[-t1, -t2], [t3, -t4]], B = [1; 0], and the white-box constants derived from it
GREY_THETA = (50012.0, 16.417, 150070.0, 15.753)
WHITE_R = 5.0012  # ohm
WHITE_L = 1e-3  # H (the text assumes 0.1 mH)
WHITE_K = 0.5246  # K_T = K_e
WHITE_J = 2.4589e-6  # kg m^2
WHITE_B = 3.8745e-5  # N m s / rad
WHITE_N = 32  # gear ratio the text assumes


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

