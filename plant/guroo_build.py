"""The GuRoo high-power board's plant parameters, initial state and firmware ROM, from the preset.

Motor model per joint (RE 36 + 156:1, referred to the motor shaft, the board's series inductor
doubling the winding's inductance), state (i, omega, theta):

    L di/dt = v - R i - K_e omega          J dw/dt = K_t i - B omega - tau_f

solved exactly over one PWM period (T1PR + 1 = 201 clocks, 10.05 us; 200 with the "txpr"
reading) with the period's average bridge voltage (the electrical time constant L/R = 300 us
spans 30 periods, so the ripple inside a period is not resolved); the zero-order-hold matrices
come from scipy's expm here, once, so CPython and numba apply the same floats.  With the outputs
floated (PDPINT) the current decays through the body diodes against the supply until it reaches
zero, then the shaft coasts (mechanics-only matrices).

The bipolar bridge (set_PWM's drive, ACTR = 0x0999 complementary pairs): with compare value c of
a period of P clocks the motor sees V_bus (2 c / P - 1) (with the `dead_band` option, less
2 t_d / P of V_bus in the direction of the current).  The rail is the packs' 42 V less their
internal resistance times the board's supply current, sum_k i_k (2 c_k / P - 1).
"""

import math
from fractions import Fraction

import numpy as np
from scipy.linalg import expm

from servobus.firmware import guroo_memory as g
from servobus.plant.prng import seed_state
from servobus.presets import guroo as pre
from servobus.presets import guroo_cycles

# params (float64)
(A00, A01, A10, A11, BV0, BV1, BF0, BF1, C0, C1, CV, CF, M_WW, M_WF, M_TW, M_TF, TWO_OVER_P, KT,
 COULOMB, DEAD_FRAC, RC_ALPHA, SENSE_CODES_PER_A, SENSE_OFFSET_A, SENSE_NOISE, ADC_NOISE, TRIP_A,
 V_PACK, R_PACK, VBUS_CODES_PER_V, VBUS_NOISE, CPR, P_CLOCKS) = range(32)
N_PARAMS = 32
# per-motor state (float64, one row per motor): the sense RC's output in amps of shunt current
S_I, S_OMEGA, S_THETA, S_VC, S_REV = range(5)
N_STATE = 5


def period_clocks(t1_period: str = pre.T1_PERIOD) -> int:
    """CPU clocks per PWM period under a reading of the timer's up-count mode."""
    choice("t1_period", t1_period, pre.T1_PERIODS)
    return pre.T1_PERIOD_CLOCKS[t1_period]


def period_ns(t1_period: str = pre.T1_PERIOD) -> int:
    """One PWM period (the timer-1 period interrupt's) in ns: 10 050 or 10 000."""
    return period_clocks(t1_period) * 1_000_000_000 // pre.CPU_HZ


def motor_matrices(dt: float) -> tuple[np.ndarray, np.ndarray]:
    """ZOH transition (3x3) and input (3x2: voltage, friction torque) matrices over dt."""
    j = pre.J_ROTOR + pre.J_LINK / pre.GEAR_RATIO ** 2
    r, lw, ke, b = pre.R_WINDING, pre.L_WINDING + pre.L_SERIES, pre.KE, pre.VISCOUS_NM_S
    m = np.zeros((5, 5))
    m[:3, :3] = [[-r / lw, -ke / lw, 0.0], [ke / j, -b / j, 0.0], [0.0, 1.0, 0.0]]
    m[0, 3] = 1.0 / lw
    m[1, 4] = -1.0 / j
    e = expm(m * dt)
    return e[:3, :3], e[:3, 3:]


def coast_matrices(dt: float) -> np.ndarray:
    """ZOH of the shaft with no current, state (omega, theta), input friction torque: 2x3."""
    j = pre.J_ROTOR + pre.J_LINK / pre.GEAR_RATIO ** 2
    m = np.zeros((3, 3))
    m[0, 0] = -pre.VISCOUS_NM_S / j
    m[0, 2] = -1.0 / j
    m[1, 0] = 1.0
    e = expm(m * dt)
    return e[:2, :]


def choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    """`value` if it is one of `choices`, else a ValueError naming the option."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def build_params(t1_period: str = pre.T1_PERIOD, dead_band: bool = False,
                 pdpint: str = pre.PDPINTS[0]) -> np.ndarray:
    """The plant's parameter vector (`dead_band`: DBTCN's 100 ns as a discrete bridge's diodes
    would turn it, against the current; `pdpint` "masked-no-trip": no comparator trip;
    docs/guroo-firmware.md)."""
    trips = choice("pdpint", pdpint, pre.PDPINTS) == pre.PDPINTS[0]
    clocks = period_clocks(t1_period)
    dt = clocks / pre.CPU_HZ
    a, bm = motor_matrices(dt)
    c = coast_matrices(dt)
    p = np.zeros(N_PARAMS)
    p[[A00, A01, A10, A11]] = a[0, 0], a[0, 1], a[1, 0], a[1, 1]
    p[[BV0, BV1, BF0, BF1]] = bm[0, 0], bm[1, 0], bm[0, 1], bm[1, 1]
    p[[C0, C1, CV, CF]] = a[2, 0], a[2, 1], bm[2, 0], bm[2, 1]
    p[[M_WW, M_WF, M_TW, M_TF]] = c[0, 0], c[0, 2], c[1, 0], c[1, 2]
    p[TWO_OVER_P] = 2.0 / clocks
    p[P_CLOCKS] = clocks
    p[KT] = pre.KE
    p[COULOMB] = pre.COULOMB_NM
    p[DEAD_FRAC] = 2.0 * pre.DEAD_BAND_NS * 1e-9 / dt if dead_band else 0.0
    p[RC_ALPHA] = 1.0 - np.exp(-dt / (pre.SENSE_RC_OHM * pre.SENSE_RC_F))
    p[SENSE_CODES_PER_A] = 1000.0 / pre.SENSE_MA_PER_CODE
    p[SENSE_OFFSET_A] = pre.SENSE_OFFSET_MA / 1000.0
    p[SENSE_NOISE] = pre.SENSE_NOISE_LSB
    p[ADC_NOISE] = pre.ADC_NOISE_LSB
    p[TRIP_A] = pre.PDPINT_TRIP_A if trips else np.inf
    p[V_PACK] = pre.SUPPLY_V
    p[R_PACK] = pre.PACK_OHM
    p[VBUS_CODES_PER_V] = 1000.0 / pre.VBUS_MV_PER_CODE
    p[VBUS_NOISE] = pre.VBUS_NOISE_LSB
    p[CPR] = pre.COUNTS_PER_REV / (2 * np.pi)
    return p


def loop_ticks(loop: str, t1_period: str = pre.T1_PERIOD) -> int:
    """Timer periods per control loop: 400 (main's count), or the 500 us interrupt's."""
    if loop not in pre.LOOPS:
        raise ValueError(f"loop must be one of {', '.join(pre.LOOPS)}, not {loop!r}")
    if loop == "2002":
        return pre.LOOP_DIVIDER_2002
    return round(pre.LOOP_PERIOD_2KHZ_NS / period_ns(t1_period))


def loop_hz(loop: str, t1_period: str = pre.T1_PERIOD) -> float:
    """Control-loop rate of a loop mode: 248.76 Hz (4.02 ms) printed, 1990 Hz at 2 kHz."""
    return 1e9 / (loop_ticks(loop, t1_period) * period_ns(t1_period))


def sp_step(loop: str, t1_period: str = pre.T1_PERIOD) -> Fraction:
    """Q4 per loop of one VEL_SP LSB (16 cnt/s): 16 x 16 x the loop's time, exactly."""
    return Fraction(16 * 16 * loop_ticks(loop, t1_period) * period_ns(t1_period), 1_000_000_000)


def latency_periods(loop: str, t1_period: str = pre.T1_PERIOD) -> int:
    """The emulated loop time, sensors read to outputs applied, in whole timer periods rounded
    up: the printed loop's is the loop-time budget's (``guroo_cycles.loop_time_ns`` with its
    defaults: the printed read_enc, the excess per IN fitted to the thesis' 1.28 ms, T1PR + 1),
    128; the 2 kHz loop's its own op count, 7."""
    loop_ns = guroo_cycles.loop_time_ns() if loop == "2002" else pre.LOOP_TIME_2KHZ_NS
    return math.ceil(loop_ns / period_ns(t1_period))


def build_rom(board: int, loop: str = "2002", t1_period: str = pre.T1_PERIOD,
              adc_fifo: str = pre.ADC_FIFOS[0]) -> np.ndarray:
    """The firmware's constants for BOARD_ID `board` and loop mode `loop` (`adc_fifo`: the
    reading of read_curr's double start)."""
    hz = loop_hz(loop, t1_period)
    rom = np.zeros(g.ROM_SIZE, dtype=np.int64)
    old = loop == "2002"
    rom[g.R_BOARD_ID] = board
    rom[g.R_LOOP_TICKS] = loop_ticks(loop, t1_period)
    rom[g.R_RESET_FEATHER] = 1 if old else 0  # 400 = 25 x 16; 50 is not a multiple of 16
    rom[g.R_LATENCY] = latency_periods(loop, t1_period)
    step = sp_step(loop, t1_period)  # VEL_SP word (16 cnt/s) -> Q4 (1/16 count) per loop
    rom[g.R_SP_NUM], rom[g.R_SP_DEN] = step.numerator, step.denominator
    rom[g.R_KP], rom[g.R_KI] = pre.GAINS_2002 if old else pre.GAINS_2KHZ
    rom[g.R_PI_SHIFT] = pre.PI_SHIFT
    rom[g.R_IERR_MAX] = pre.IERR_MAX_Q4
    q4_per_volt = g.U_MAX / pre.SUPPLY_V
    rom[g.R_ILIM_MA] = round(pre.CURRENT_LIMIT_A * 1000)
    rom[g.R_KCL] = round(pre.KCL_PER_A_IR * pre.R_WINDING / 1000 * q4_per_volt * 256)
    rom[g.R_LIM_IR] = round(pre.CURRENT_LIMIT_A * pre.R_WINDING * q4_per_volt)
    rom[g.R_KV_SHIFT] = pre.KV_SHIFT
    counts_to_rad_s = 2 * np.pi / pre.COUNTS_PER_REV * hz
    rom[g.R_KV] = round(pre.KE * counts_to_rad_s * q4_per_volt * (1 << pre.KV_SHIFT))
    rom[g.R_VBUS_MV_PER_CODE] = pre.VBUS_MV_PER_CODE
    rom[g.R_ADC_STALE] = choice("adc_fifo", adc_fifo, pre.ADC_FIFOS) == "stale"
    return rom


def build_state(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Plant state at rest (3 motors) and the seeded noise generator's state."""
    return np.zeros((g.MOTORS, N_STATE)), np.array([seed_state(seed)], dtype=np.int64)
