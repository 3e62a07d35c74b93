"""RAM, peripheral-register and ROM layout of the GuRoo high-power board firmware (3 motors).

One int64 slot per C variable: a 16-bit ``int`` word (kept as signed int16) or a 32-bit ``long``
(kept as int32); per-motor variables take 3 consecutive slots (``POS + k``).  Peripheral
registers the plant writes and the firmware reads (the QEP counter, the two external ports of
the HCTL-2016 decoders, the ADC's FIFO words, capture flags) live in the same array, as
memory-mapped registers do on the F243.  ROM holds the constants the firmware was built with
(``BOARD_ID``, loop mode, gains, limits), written by plant.guroo_build from presets/guroo.py.
Names follow the printed listing (thesis Appendix B) where it has one: ``count``,
``feather_count``, ``pwm_high_k``, ``pwm_low_k``, ``counter_k``, ``data[4]``.
"""

import numpy as np

MOTORS = 3
BOARD_IDS = (1, 15)  # get_ID's BOARD_ID: a build constant; the LEDs show 1..5 (docs)
T1PR = 200  # init_board's timer-1 period register (up-count: the period is T1PR + 1 clocks)
U_MAX = 1600  # set_PWM's input range -1600..1600: compare 0..200 in sixteenths
MAILBOX2_PATTERN = (0x0123, 0x4567, 0x89AB, 0xCDEF)  # main's data[] as compiled (docs)

# --- RAM: scalars -----------------------------------------------------------------------------
BOARD_ID, MSGIDH, LEDS, TIMER_COUNT, FEATHER, APPLY_IN, TRIPPED, TRIPS, STATUS = range(9)
LOOPS, CLIMIT_EVENTS, FLIMIT_EVENTS, FEATHERED, RX_COUNT, SP_SEQ, CAN_ERRORS = range(9, 16)
VBUS_MV = 16  # the bus voltage as last read (ours: no such read is printed)
ADC_LAST = 17  # the FIFO word the last conversion left (the "stale" reading of read_curr)
DATA = 18  # data[4]: the words main copies into mailbox 2 after every loop
MBX2 = DATA + 4  # CANMBX2A..D: mailbox 2's data words
_N_SCALARS = MBX2 + 4


# --- RAM: per motor (3 slots each) ----------------------------------------------------------------
CMPR = _N_SCALARS  # compare register applied this PWM period (the shadow of the last period)
CMPR_SHADOW = CMPR + 3  # what c_int2 wrote this period (COMCON CLD = 01: active next period)
PWM_HIGH = CMPR_SHADOW + 3  # set_PWM's pwm_high_k, pwm_low_k, counter_k
PWM_LOW = PWM_HIGH + 3
COUNTER = PWM_LOW + 3  # feathering count 0..15
SP = COUNTER + 3  # VEL_SP words from the CAN mailbox (16 cnt/s per LSB)
LAST_CNT = SP + 3  # last 16-bit counter word read
POS = LAST_CNT + 3  # unwrapped 32-bit position (counts, long)
REF = POS + 3  # reference position, 1/16 count (long): the PI's integral state
DELTA = REF + 3  # counts moved in the last loop
OUT = DELTA + 3  # the controller output for set_PWM, -U_MAX..U_MAX (signed, Q4 of a compare)
INDEX_POS = OUT + 3  # position latched at the last index pulse
INDEX_COUNT = INDEX_POS + 3
CURRENT_MA = INDEX_COUNT + 3  # read_curr's result, mA
SP_REM = CURRENT_MA + 3  # set-point integration's remainder, 0..R_SP_DEN-1 (in 1/R_SP_DEN of Q4)
# --- peripheral registers (written by the plant) --------------------------------------------------
REG_CNT = SP_REM + 3  # T2CNT (the QEP of motor 0), then the two I/O ports of the HCTL-2016s:
REG_T2CNT, REG_PORT0, REG_PORT1 = REG_CNT, REG_CNT + 1, REG_CNT + 2  # port 0 high bytes, 1 low
REG_ADC = REG_CNT + 3  # ADCFIFO1 after a conversion of channel k (10-bit result, left-justified)
REG_INDEX = REG_ADC + 3  # index-pulse capture flags
REG_VBUS = REG_INDEX + 3  # ADCFIFO1 after a conversion of channel 3, the bus-voltage divider
RAM_SIZE = REG_VBUS + 1

# --- ROM -----------------------------------------------------------------------------------
(R_LOOP_TICKS, R_RESET_FEATHER, R_LATENCY, R_SP_NUM, R_SP_DEN, R_KP, R_KI, R_PI_SHIFT, R_IERR_MAX,
 R_ILIM_MA, R_KCL, R_LIM_IR, R_KV, R_KV_SHIFT, R_BOARD_ID, R_VBUS_MV_PER_CODE,
 R_ADC_STALE) = range(17)
ROM_SIZE = 17

# --- status word (FEEDBACK_b.status_b) -----------------------------------------------------
STATUS_TRIP = 1  # bit 0: PDPINT over-current trip latched
STATUS_CLIMIT = 2  # bit 1: the current check reduced a PWM in the last loop
STATUS_FLIMIT = 4  # bit 2: the fallback limit I*R - K_V*omega clipped a PWM in the last loop
STATUS_INDEX = 8  # bit 3: an index pulse was seen in the last loop (any motor)
# bits 4..7: the board ID; bits 8..15: control loops run, mod 256


def new_ram() -> np.ndarray:
    """Zeroed RAM and registers (the C startup clears .bss)."""
    return np.zeros(RAM_SIZE, dtype=np.int64)
