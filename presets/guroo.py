"""The GuRoo humanoid's parameters (SPEC 5), each with its source: one file for the whole robot.

Sections: the high-power board (TMS320F243 DSP, PWM, timers), its motors and sensors (Maxon RE 36
with the 156:1 gearhead, HEDS5540 encoders, current sense), the RC servo board (Hitec HS-705MG),
and the bus and the central computer.  Values read from a datasheet name it; values derived from
others say how.
"""

# --- the robot (SPEC 5) -------------------------------------------------------------------------
HP_BOARDS = 5  # high-power boards, 3 DC motors each: joints 1..15 (legs, abdomen)
MOTORS_PER_BOARD = 3
SERVO_BOARD_ID = 6  # the RC servo board's DIP-switch ID: joints 16..23 (arms, head)
SERVOS = 8
DC_JOINTS = HP_BOARDS * MOTORS_PER_BOARD
JOINTS = DC_JOINTS + SERVOS  # 23

# --- the high-power board: TMS320F243 (SPEC 5; TI SPRS064 data sheet) ----------------------------
CPU_HZ = 20_000_000  # 20 MHz clock, 20 MIPS (one instruction cycle per clock)
PWM_PERIOD_COUNTS = 200  # timer-1 period register: 100 kHz PWM at 20 MHz, 200 duty steps
PWM_HZ = CPU_HZ // PWM_PERIOD_COUNTS  # 100 kHz: the timer-1 period interrupt
FEATHER_CYCLES = 16  # feathering: the low 4 bits choose how many of 16 PWM cycles get +1 count
LOOP_DIVIDER_2002 = 400  # 2002 source: bl_control every 400 timer interrupts = 4 ms (250 Hz)
LOOP_PERIOD_2KHZ_NS = 500_000  # the redesign's 500 us periodic interrupt (2 kHz)
THESIS_LOOP_S = 1.28e-3  # measured per control loop on the 2001/2002 boards (thesis)

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
SERVO_STATUS_PERIOD_NS = 4_000_000  # SERVO_STATUS every 4 ms (dbc/guroo.dbc GenMsgCycleTime)
# the pulse-width scale (1500 us at 0 rad, 573 us/rad, 900..2100 us) is the servo board's ROM:
# firmware/servo_board.py
