"""The GuRoo high-power board's plant parameters, initial state and firmware ROM, from the preset.

Motor model per joint (RE 36 + 156:1, referred to the motor shaft), state (i, omega, theta):

    L di/dt = v - R i - K_e omega          J dw/dt = K_t i - B omega - tau_f

solved exactly over one 10 us PWM period with the period's average bridge voltage (the
electrical time constant L/R = 150 us spans 15 periods, so the ripple inside a period is not
resolved); the zero-order-hold matrices come from scipy's expm here, once, so CPython and numba
apply the same floats.  With the outputs floated (PDPINT) the current decays through the body
diodes against the supply until it reaches zero, then the shaft coasts (mechanics-only matrices).
"""

from fractions import Fraction

import numpy as np
from scipy.linalg import expm

from servobus.firmware import guroo_memory as g
from servobus.plant.prng import seed_state
from servobus.presets import guroo as pre

DT = 1.0 / pre.PWM_HZ

# params (float64)
(A00, A01, A10, A11, BV0, BV1, BF0, BF1, C0, C1, CV, CF, M_WW, M_WF, M_TW, M_TF, V_STEP, KT,
 COULOMB, SENSE_OHM, RC_ALPHA, ADC_SCALE, ADC_NOISE, TRIP_V, CPR, V_SUPPLY) = range(26)
N_PARAMS = 26
# per-motor state (float64, one row per motor)
S_I, S_OMEGA, S_THETA, S_VC, S_REV = range(5)
N_STATE = 5


def motor_matrices() -> tuple[np.ndarray, np.ndarray]:
    """ZOH transition (3x3) and input (3x2: voltage, friction torque) matrices over DT."""
    j = pre.J_ROTOR + pre.J_LINK / pre.GEAR_RATIO ** 2
    r, lw, ke, b = pre.R_WINDING, pre.L_WINDING, pre.KE, pre.VISCOUS_NM_S
    m = np.zeros((5, 5))
    m[:3, :3] = [[-r / lw, -ke / lw, 0.0], [ke / j, -b / j, 0.0], [0.0, 1.0, 0.0]]
    m[0, 3] = 1.0 / lw
    m[1, 4] = -1.0 / j
    e = expm(m * DT)
    return e[:3, :3], e[:3, 3:]


def coast_matrices() -> np.ndarray:
    """ZOH of the shaft with no current, state (omega, theta), input friction torque: 2x3."""
    j = pre.J_ROTOR + pre.J_LINK / pre.GEAR_RATIO ** 2
    m = np.zeros((3, 3))
    m[0, 0] = -pre.VISCOUS_NM_S / j
    m[0, 2] = -1.0 / j
    m[1, 0] = 1.0
    e = expm(m * DT)
    return e[:2, :]


def build_params() -> np.ndarray:
    """The plant's parameter vector."""
    a, bm = motor_matrices()
    c = coast_matrices()
    p = np.zeros(N_PARAMS)
    p[[A00, A01, A10, A11]] = a[0, 0], a[0, 1], a[1, 0], a[1, 1]
    p[[BV0, BV1, BF0, BF1]] = bm[0, 0], bm[1, 0], bm[0, 1], bm[1, 1]
    p[[C0, C1, CV, CF]] = a[2, 0], a[2, 1], bm[2, 0], bm[2, 1]
    p[[M_WW, M_WF, M_TW, M_TF]] = c[0, 0], c[0, 2], c[1, 0], c[1, 2]
    p[V_STEP] = pre.SUPPLY_V / pre.PWM_PERIOD_COUNTS
    p[V_SUPPLY] = pre.SUPPLY_V
    p[KT] = pre.KE
    p[COULOMB] = pre.COULOMB_NM
    p[SENSE_OHM] = pre.SENSE_OHM
    p[RC_ALPHA] = 1.0 - np.exp(-DT / (pre.SENSE_RC_OHM * pre.SENSE_RC_F))
    p[ADC_SCALE] = (1 << pre.ADC_BITS) / pre.ADC_VREF
    p[ADC_NOISE] = pre.ADC_NOISE_LSB
    p[TRIP_V] = pre.PDPINT_TRIP_A * pre.SENSE_OHM
    p[CPR] = pre.COUNTS_PER_REV / (2 * np.pi)
    return p


def loop_hz(loop: str) -> float:
    """Control-loop rate of a loop mode."""
    if loop not in pre.LOOPS:
        raise ValueError(f"loop must be one of {', '.join(pre.LOOPS)}, not {loop!r}")
    return pre.PWM_HZ / pre.LOOP_DIVIDER_2002 if loop == "2002" else 1e9 / pre.LOOP_PERIOD_2KHZ_NS


def sp_step(loop: str) -> Fraction:
    """Q4 per loop of one VEL_SP LSB (16 cnt/s): 16 x 16 / loop rate, 128/125 or 16/125."""
    return Fraction(16 * 16) / Fraction(loop_hz(loop))  # both rates are whole numbers of Hz


def build_rom(board: int, loop: str = "2002") -> np.ndarray:
    """The firmware's constants for DIP-switch ID `board` and loop mode `loop`."""
    hz = loop_hz(loop)
    rom = np.zeros(g.ROM_SIZE, dtype=np.int64)
    old = loop == "2002"
    rom[g.R_DIP] = board & 15
    rom[g.R_LOOP_TICKS] = round(pre.PWM_HZ / hz)
    rom[g.R_RESET_FEATHER] = 1 if old else 0  # 400 = 25 x 16; 50 is not a multiple of 16
    rom[g.R_LATENCY] = pre.LOOP_LATENCY_2002_PERIODS if old else pre.LOOP_LATENCY_2KHZ_PERIODS
    step = sp_step(loop)  # VEL_SP word (16 cnt/s) -> Q4 (1/16 count) per loop, exactly
    rom[g.R_SP_NUM], rom[g.R_SP_DEN] = step.numerator, step.denominator
    rom[g.R_KP], rom[g.R_KI] = pre.GAINS_2002 if old else pre.GAINS_2KHZ
    rom[g.R_PI_SHIFT] = pre.PI_SHIFT
    rom[g.R_IERR_MAX] = pre.IERR_MAX_Q4
    q4_per_volt = g.U_MAX / pre.SUPPLY_V
    rom[g.R_ILIM_CODE] = round(pre.CURRENT_LIMIT_A * pre.SENSE_OHM * (1 << pre.ADC_BITS)
                               / pre.ADC_VREF)
    amps_per_code = pre.ADC_VREF / (1 << pre.ADC_BITS) / pre.SENSE_OHM
    rom[g.R_KCL] = round(pre.KCL_PER_CODE_IR * amps_per_code * pre.R_WINDING * q4_per_volt)
    rom[g.R_LIM_IR] = round(pre.CURRENT_LIMIT_A * pre.R_WINDING * q4_per_volt)
    rom[g.R_KV_SHIFT] = pre.KV_SHIFT
    counts_to_rad_s = 2 * np.pi / pre.COUNTS_PER_REV * hz
    rom[g.R_KV] = round(pre.KE * counts_to_rad_s * q4_per_volt * (1 << pre.KV_SHIFT))
    return rom


def build_state(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Plant state at rest (3 motors) and the seeded noise generator's state."""
    return np.zeros((g.MOTORS, N_STATE)), np.array([seed_state(seed)], dtype=np.int64)
