"""The GuRoo humanoid's parameters (SPEC 5), each with its source: one file for the whole robot.

Sections: the high-power board (TMS320F243 DSP, PWM, timers), its motors and sensors (Maxon RE 36
with the 156:1 gearhead, HEDS5540 encoders, current sense), the RC servo board (Hitec HS-705MG),
and the bus and the central computer.  Values read from a datasheet name it; values derived from
others say how.  ``Board``, ``HP_SHAPE`` and ``SERVO_SHAPE``: GuRoo's boards as its description
(robots/guroo.toml) names them, the nodes' defaults when built alone.
"""

from dataclasses import dataclass

from servobus.firmware import guroo_memory as g
from servobus.firmware import servo_board

# --- the robot (SPEC 5) -------------------------------------------------------------------------
HP_BOARDS = 5  # high-power boards, 3 DC motors each: joints 1..15 (legs, abdomen)
MOTORS_PER_BOARD = g.MOTORS
SERVO_BOARD_ID = 6  # the RC servo board's DIP-switch ID: joints 16..23 (arms, head)
SERVOS = 8
DC_JOINTS = HP_BOARDS * MOTORS_PER_BOARD
JOINTS = DC_JOINTS + SERVOS  # 23


@dataclass(frozen=True)
class Board:
    """A board of a cyclic robot: its node name (the DBC's BU_), board ID and joints."""

    name: str
    board: int
    joints: tuple[int, ...]


HP_SHAPE = tuple(Board(f"HP_{b}", b, tuple(range(3 * b - 2, 3 * b + 1)))
                 for b in range(1, HP_BOARDS + 1))
SERVO_SHAPE = Board("SERVO_BOARD", SERVO_BOARD_ID, tuple(range(DC_JOINTS + 1, JOINTS + 1)))
BOARD_IDS = g.BOARD_IDS  # get_ID's BOARD_ID (firmware.guroo_memory)
SERVO_WORDS = servo_board.WORDS_PER_FRAME  # servo set-points per SERVO_SP frame (its ROM)
servo_frames = servo_board.servo_frames  # the SERVO_SP frames of n servos

# --- the high-power board: TMS320F243 (SPEC 5; TI SPRS064 data sheet; thesis Appendix B) -------
CPU_HZ = 20_000_000  # 20 MHz clock, 20 MIPS (one instruction cycle per clock)
T1PR = g.T1PR  # init_board's timer-1 period register (printed: 200)
T1_PERIOD_CLOCKS = {  # CPU clocks per timer-1 (PWM) period under each reading of up-count mode
    "txpr+1": T1PR + 1,  # the counter runs 0..T1PR (the default; assumed: TI SPRU276)
    "txpr": T1PR,  # the thesis' own arithmetic, "100kHz = 20MHz/200" (L1244; docs)
}
T1_PERIODS = tuple(T1_PERIOD_CLOCKS)
T1_PERIOD = "txpr+1"
ADC_FIFOS = ("fresh", "stale")  # read_curr's double start: one conversion per call (default), or
# two queued, ADCFIFO1 then holding the previous call's channel (docs/guroo-firmware.md)
PDPINTS = ("hi-z-latched", "masked-no-trip")  # EVIMRA masks PDPINT's interrupt: the pin still
# floats the outputs and latches (default), or with the interrupt masked nothing happens
PWM_HZ = CPU_HZ // T1_PERIOD_CLOCKS[T1_PERIOD]  # 99 502 Hz (99 502.5 rounded down): in counts
FEATHER_CYCLES = 16  # feathering: the low 4 bits choose how many of 16 PWM cycles get +1 count
LOOP_DIVIDER_2002 = 400  # printed main: bl_control once count reaches 400 (4.02 ms, 248.8 Hz)
LOOP_PERIOD_2KHZ_NS = 500_000  # the redesign's 500 us periodic interrupt (2 kHz)
THESIS_LOOP_S = 1.28e-3  # measured per control loop on the 2001 board (thesis)
DEAD_BAND_NS = 100  # DBTCN = 0x02E0: 2 clocks on every complementary pair (printed)

# --- the emulated loop time: when bl_control's outputs reach set_PWM after its sensors are read
LOOP_TIME_2KHZ_NS = 69_752  # the 2 kHz routine: 0.0698 ms by analysis.guroo_budget's op count


# --- the high-power board's motors and sensors (task B; SPEC 5; thesis) ---------------------------
# Maxon RE 36, 32 V winding: the RE 36 data sheet's winding table is not among the stored pages,
# so the constants below are derived from SPEC 5's output figures (and marked "assumed" where the
# SPEC gives nothing): 51 rpm x 156 = 7956 rpm, the GP 42 C gearhead's 8000 rpm input limit, taken
# as the no-load speed at the winding's nominal 32 V.
GEAR_RATIO = 156  # GP 42 C three-stage planetary gearhead (SPEC 5)
GEAR_EFFICIENCY = 0.72  # assumed: maxon's figure for three-stage GP 42 C gearheads
WINDING_V = 32.0  # the winding's nominal voltage (thesis App. E)
SUPPLY_V = 42.0  # the motor rail: 42 V battery packs straight to the bridges (thesis)
PACK_OHM = 0.2  # assumed: two packs in parallel, their internal resistance (the rail sags)
NO_LOAD_RAD_S = 51 * GEAR_RATIO * 2 * 3.141592653589793 / 60  # 833 rad/s at the motor (derived)
KE = WINDING_V / NO_LOAD_RAD_S  # 0.0384 V s/rad = torque constant N m/A (derived, SI units)
CONT_TORQUE_NM = 10.0  # output, continuous (SPEC 5)
PEAK_TORQUE_NM = 19.0  # output, intermittent (SPEC 5)
CONT_CURRENT_A = 2.0  # the motors' continuous rating (thesis: 4 A peak, 2 A continuous)
PEAK_CURRENT_A = 4.0
R_WINDING = 2.0  # ohm, assumed (the order of the RE 36's 30-48 V windings; stall ~16 A)
L_WINDING = 0.3e-3  # H, assumed
L_SERIES = L_WINDING  # the board's series inductors double the motor inductance (thesis)
J_ROTOR = 67e-7  # kg m^2, assumed (RE 36 rotor, 67 g cm^2)
J_LINK = 0.10  # kg m^2 at the joint: assumed leg link (about 2.5 kg at 0.2 m), gravity-free
COULOMB_NM = 0.07 * KE  # N m at the motor: assumed 70 mA no-load current
VISCOUS_NM_S = 2e-6  # N m s/rad at the motor, assumed (gearhead drag)
ENCODER_LINES = 500  # HEDS5540 (SPEC 5)
COUNTS_PER_REV = 4 * ENCODER_LINES  # x4 decoding: 2000 counts per motor revolution
COUNTS_PER_JOINT_DEG = COUNTS_PER_REV * GEAR_RATIO / 360  # 866.7 (SPEC 5: ~867)
# current sense, the 2001 board: a shunt in the bridge's low-side return, amplified (shunt and
# gain not given); the front end here is the one read_curr's own scale implies, 17 mA per code
# from 152 mA: 5 V / 1024 / 17 mA = 0.287 V/A into the ADC, code 0 up to 152 mA
SENSE_MA_PER_CODE = 17  # read_curr: current * 17 + 152
SENSE_OFFSET_MA = 152
SENSE_RC_OHM = 150e3  # RC low pass before the amplifier: the 2002 redesign's 150 kohm, 100 pF
SENSE_RC_F = 100e-12  # (fc = 10.6 kHz; the 2001 board's is not given)
ADC_BITS = 10  # F243 ADC (TI SPRS064), 0..5 V
SENSE_NOISE_LSB = 2.0  # assumed: the amplifier's noise, +-2 codes uniform (seeded generator)
ADC_NOISE_LSB = 0.5  # assumed: +-0.5 LSB uniform conversion noise (seeded generator)
VBUS_MV_PER_CODE = 50  # assumed bus-voltage divider on ADC channel 3: 51.2 V full scale
VBUS_NOISE_LSB = 1.0  # assumed: +-1 code uniform (seeded generator)
PDPINT_TRIP_A = 8.0  # trimmer setting, assumed: the comparators trip at 8 A
CURRENT_LIMIT_A = PEAK_CURRENT_A  # bl_control's current check (thesis: "checked against limits")
# velocity PI: chosen here; the thesis' values are not published (hand-tuned).  Output (set_PWM's
# -1600..1600) = (KP * velocity error + KI * position error) >> PI_SHIFT, errors in 1/16 count
# per loop and 1/16 count; tuned on this plant for the walking pattern's velocities.
PI_SHIFT = 8
GAINS_2002 = (38, 23)  # (KP, KI) for the 248.8 Hz loop
GAINS_2KHZ = (381, 57)  # (KP, KI) for the 2 kHz loop
# the firmware's loop constants (tunings and data, not physics; plant.guroo_build puts them in ROM)
LOOPS = ("2002", "2khz")  # the printed main: loop in main, 248.8 Hz; the redesign: 2 kHz interrupt
IERR_MAX_Q4 = 16000  # anti-windup: REF held within 1000 counts (1.15 joint degrees) of position
KCL_PER_A_IR = 2  # current check: output pulled back by twice I*R per amp over the limit
KV_SHIFT = 8  # back-EMF constant K_V in the output's Q4 units per count per loop, x 2^KV_SHIFT

# --- the bus and the central computer (SPEC 5) ----------------------------------------------------
BITRATE = 1_000_000  # CAN 1 Mbit/s, PCA82C250 transceivers
SETPOINT_PERIOD_NS = 2_000_000  # velocity set-points broadcast every 2 ms

# --- the RC servo board: Hitec HS-705MG (SPEC 5; the PD model's constants assumed, as stated) ---
SERVO_TORQUE_NM = 1.4  # output torque (SPEC 5: 1.4 N m): the PD's torque limit
SERVO_SPEED_RAD_S = 5.2  # output speed (SPEC 5: 5.2 rad/s, 0.20 s / 60 deg): the slew-rate limit
SERVO_INERTIA_KG_M2 = 0.01  # assumed: output stage + a 0.3 kg, 0.3 m arm link (m l^2 / 3 ~ 0.009)
SERVO_KP_NM_RAD = 14.0  # assumed: the torque limit reached at 0.1 rad (5.7 deg) of error
SERVO_KD_NM_S_RAD = 0.75  # critical damping of KP on the inertia: 2 sqrt(KP J) = 0.748
SERVO_STEP_NS = 500_000  # the thesis' simulator's integration step (500 us)
# the pulse-width scale (1500 us at 0 rad, 573 us/rad, 900..2100 us) is the servo board's ROM:
# firmware/servo_board.py
