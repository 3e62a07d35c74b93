"""Memory map of the servo board: RAM cells and flash constants as indices into int64 arrays.

The firmware state is one flat integer array (``ram``) and its constants another (``rom``),
exactly as the C firmware would lay out its globals.  Flat arrays of integers run unchanged in
CPython and in numba kernels, and make "one memory cell" in the SPEC literally one cell.

    ram: [ MA_BUF0 .. MA_BUF0+11 | MA_HEAD MA_SUM | PI_INTEG | PWM_ACTIVE PWM_SHADOW ... ]
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# --- RAM ---------------------------------------------------------------------------------
MA_LEN = 12  # moving-sum length M = 2N
MA_BUF0 = 0  # circular buffer of the last 12 ADC samples
MA_HEAD = MA_BUF0 + MA_LEN  # index of the oldest sample (next to overwrite)
MA_SUM = MA_HEAD + 1  # running sum of the buffer
PI_INTEG = MA_SUM + 1  # PI integrator (Q15 PWM counts), the anti-windup memory cell
PI_MEAS = PI_INTEG + 1  # last signed measured current (sum counts) seen by the PI
PWM_ACTIVE = PI_MEAS + 1  # signed duty in PWM counts applied in this PWM period
PWM_PREV = PWM_ACTIVE + 1  # duty applied in the previous PWM period (sign workaround)
PWM_SHADOW = PWM_PREV + 1  # duty written by the ISR, applied from the next period
BRIDGE_ACTIVE = PWM_SHADOW + 1  # bridge state in this period (BRIDGE_* below)
BRIDGE_SHADOW = BRIDGE_ACTIVE + 1
MODE = BRIDGE_SHADOW + 1  # MODE_* below
IW_REF = MODE + 1  # clamped current reference in Q12 amperes (4096 = 1 A)
IW_COUNTS = IW_REF + 1  # the clamped reference in moving-sum counts (the PI's input)
IW_PENDING = IW_COUNTS + 1  # reference received over CAN, applied at the next tick
XW_REF = IW_PENDING + 1  # local-P mode position reference (pot LSB)
POS_SUM = XW_REF + 1  # pot block accumulator (80 samples)
POS_COUNT = POS_SUM + 1
POS_OUT = POS_COUNT + 1  # last block mean (pot LSB), the value sent on a tick
POS_SEQ = POS_OUT + 1  # number of completed blocks
POS_TX = POS_SEQ + 1  # position latched at the last tick, the measurement message value
P_SUM = POS_TX + 1  # local-P 20-sample pot accumulator (1 kHz loop)
P_COUNT = P_SUM + 1
ENC_LAST = P_COUNT + 1  # last raw 16-bit counter reading
ENC_POS = ENC_LAST + 1  # unwrapped encoder position (counts)
ENC_INDEX_POS = ENC_POS + 1  # unwrapped position latched at the last index pulse
ENC_INDEX_COUNT = ENC_INDEX_POS + 1
OC_COUNT = ENC_INDEX_COUNT + 1  # consecutive PWM periods above the over-current limit
STATUS = OC_COUNT + 1  # latched fault bits (STATUS_* below)
TEMP_RAW = STATUS + 1  # last thermometer reading (ADC LSB)
TICKS = TEMP_RAW + 1  # CAN ticks received
DUTY_REF = TICKS + 1  # duty mode: PWM duty from the host (PWM counts), applied at the tick
ACT_SILENT = DUTY_REF + 1  # ticks since the last actuation (or POSREF) frame; 1 is normal
ACT_TIMEOUTS = ACT_SILENT + 1  # actuation timeouts entered since reset
P_PREV = ACT_TIMEOUTS + 1  # local-P: the previous block's pot sum (velocity); -1: none yet
RAM_SIZE = P_PREV + 1

# --- firmware constants ------------------------------------------------------------------
ACT_TIMEOUT_PERIODS = 3  # periods in a row without actuation that time out (12 ms at 250 Hz)

# --- ROM (constants derived from the hardware by presets.firmware_image) -------------------
K_P = 0  # PI proportional gain, Q15 (PWM counts per sum count)
K_I = 1  # PI integral gain K(1 - n), Q15
IW_MAX = 2  # reference clamp, Q12 A
U_MAX = 3  # PWM counter top (3000 counts = 100 % duty)
SIGNED_SENSE = 4  # 1: winding-bipolar front end; 0: supply-unipolar (sign workaround)
ADC_ZERO_SUM = 5  # moving-sum value at zero current (12 * ADC offset)
IREF_TO_SUM_Q15 = 6  # Q12 A -> moving-sum counts, Q15
OC_LIMIT = 7  # over-current limit in moving-sum counts (magnitude)
OC_PERIODS = 8  # consecutive periods above OC_LIMIT that trip
OT_LIMIT = 9  # over-temperature limit in thermometer ADC LSB
POS_BLOCK = 10  # pot block length (80)
P_BLOCK = 11  # local-P loop decimation (20 PWM periods -> 1 kHz)
P_GAIN_Q8 = 12  # local-P gain, Q8 PWM counts per (pot LSB * P_BLOCK)
U_MAX_Q15 = 13  # U_MAX << 15: the PI output limit before the final shift
P_VEL_Q8 = 14  # local-P velocity gain, Q8 PWM counts per pot-sum change between blocks
ROM_SIZE = 15

# --- enumerations -------------------------------------------------------------------------
MODE_FLOAT = 0  # released: all switches off (puppet animation)
MODE_CURRENT = 1  # cascade inner loop: PI current controller
MODE_LOCAL_P = 2  # the board's position loop on the duty (the servo preset's law)
MODE_DUTY = 3  # host drives the PWM duty directly (voltage PID on the host, no current loop)
# The one mode enum: value = MODE_* above.  The same 8-bit value is COMMAND.mode (set_mode),
# STATUS_j.mode_j and ANNOUNCE_j.board_mode_j, named by the DBC's VAL_ tables (bus.schema checks)
MODE_NAMES = ("float", "cascade", "local_p", "duty")
# the modes a description, `servobus run --mode` and the CPU budget name: their MODE_* values
BOARD_MODES = {"cascade": MODE_CURRENT, "local-p": MODE_LOCAL_P}
BRIDGE_PWM = 0  # drive/brake PWM with the signed duty
BRIDGE_FLOAT = 1  # all four switches off
STATUS_OVER_CURRENT = 1
STATUS_OVER_TEMPERATURE = 2


def new_ram() -> "np.ndarray":
    """Zeroed RAM, as after reset (numpy imported here: the constants above are also read by
    light modules, e.g. the bus schema's mode names, that must not pay for numpy)."""
    import numpy as np

    return np.zeros(RAM_SIZE, dtype=np.int64)
