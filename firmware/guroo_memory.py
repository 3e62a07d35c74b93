"""RAM, peripheral-register and ROM layout of the GuRoo high-power board firmware (3 motors).

One int64 slot per C variable: a 16-bit ``int`` word (kept as signed int16) or a 32-bit ``long``
(kept as int32); per-motor variables take 3 consecutive slots (``POS + k``).  Peripheral
registers the plant writes and the firmware reads (counters, ADC results, capture flags) live in
the same array, as memory-mapped registers do on the F243.  ROM holds the constants the firmware
was built with (loop mode, gains, limits), written by plant.guroo_build from presets/guroo.py.
"""

import numpy as np

MOTORS = 3
BOARD_IDS = (1, 15)  # a DIP-switch ID: the four bits the announce and feedback carry, 0 unused
PERIOD = 200  # timer-1 period register: compare values 0..200
U_MAX = PERIOD << 4  # the 16-bit controller output's magnitude limit: 200 counts in Q4

# --- RAM: scalars -----------------------------------------------------------------------------
BOARD_ID, MSGIDH, TIMER_COUNT, FEATHER, APPLY_IN, TRIPPED, TRIPS, STATUS = range(8)
LOOPS, CLIMIT_EVENTS, FLIMIT_EVENTS, FEATHERED, RX_COUNT, SP_SEQ, CAN_ERRORS = range(8, 15)
_N_SCALARS = 15


# --- RAM: per motor (3 slots each) ----------------------------------------------------------------
CMPR = _N_SCALARS  # compare register applied this PWM period (0..200)
DIR = CMPR + 3  # direction output: +1, -1 (0 never: sign-magnitude drive)
PWM_HIGH = DIR + 3
PWM_LOW = PWM_HIGH + 3
COUNTER = PWM_LOW + 3  # feathering count 0..15
NEXT_HIGH = COUNTER + 3  # bl_control's results, written when the routine ends (APPLY_IN)
NEXT_LOW = NEXT_HIGH + 3
NEXT_COUNTER = NEXT_LOW + 3
NEXT_DIR = NEXT_COUNTER + 3
SP = NEXT_DIR + 3  # VEL_SP words from the CAN mailbox (16 cnt/s per LSB)
LAST_CNT = SP + 3  # last 16-bit counter word read
POS = LAST_CNT + 3  # unwrapped 32-bit position (counts, long)
REF = POS + 3  # reference position, 1/16 count (long): the PI's integral state
DELTA = REF + 3  # counts moved in the last loop
OUT = DELTA + 3  # 16-bit controller output after the limits (signed, Q4 duty)
INDEX_POS = OUT + 3  # position latched at the last index pulse
INDEX_COUNT = INDEX_POS + 3
ADC = INDEX_COUNT + 3  # last current reading (10-bit code)
SP_REM = ADC + 3  # set-point integration's remainder, 0..R_SP_DEN-1 (in 1/R_SP_DEN of Q4)
# --- peripheral registers (written by the plant) --------------------------------------------------
REG_CNT = SP_REM + 3  # motor 0: the DSP's QEP counter T2CNT; motors 1, 2: HCTL-2016 counters
REG_ADC = REG_CNT + 3  # ADC conversion results of the current-sense channels
REG_INDEX = REG_ADC + 3  # index-pulse capture flags
RAM_SIZE = REG_INDEX + 3

# --- ROM -----------------------------------------------------------------------------------
(R_LOOP_TICKS, R_RESET_FEATHER, R_LATENCY, R_SP_NUM, R_SP_DEN, R_KP, R_KI, R_PI_SHIFT, R_IERR_MAX,
 R_ILIM_CODE, R_KCL, R_LIM_IR, R_KV, R_KV_SHIFT, R_DIP) = range(15)
ROM_SIZE = 15

# --- status word (FEEDBACK_b.status_b) -----------------------------------------------------
STATUS_TRIP = 1  # bit 0: PDPINT over-current trip latched
STATUS_CLIMIT = 2  # bit 1: the current check reduced a PWM in the last loop
STATUS_FLIMIT = 4  # bit 2: the fallback limit I*R - K_V*omega clipped a PWM in the last loop
STATUS_INDEX = 8  # bit 3: an index pulse was seen in the last loop (any motor)
# bits 4..7: the DIP-switch board ID; bits 8..15: control loops run, mod 256


def new_ram() -> np.ndarray:
    """Zeroed RAM and registers (the C startup clears .bss)."""
    return np.zeros(RAM_SIZE, dtype=np.int64)
