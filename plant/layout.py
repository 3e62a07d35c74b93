"""Index layout of the plant's float parameter/state arrays and its integer state array.

The plant runs inside the same numba kernel as the firmware, so its parameters and state are
flat arrays addressed by these constants (see ``plant.build`` for how they are filled).
"""

# --- float parameters ----------------------------------------------------------------------
V_SUPPLY = 0
KT = 1  # = K_e
R_A = 2
B_VISC = 3
J_TOTAL = 4  # alpha * J
COULOMB = 5
LOAD_TORQUE = 6
LOCKED = 7  # 1.0: rotor locked (w = 0)
SENSE_BIPOLAR = 8  # 1.0: winding-bipolar; 0.0: supply-unipolar
AVERAGED = 9  # 1.0: duty-averaged plant (linear design view)
CENTRE_ALIGNED = 10  # 1.0: centre-aligned PWM; 0.0: edge-aligned
DEAD_COUNTS = 11
PWM_TOP = 12
PCLK_HZ = 13
ADC_PER_PWM = 14
ADC_CODES_PER_AMP = 15
ADC_ZERO_CODE = 16
ADC_MAX_CODE = 17
POT_LSB_PER_RAD = 18
POT_NOISE_LSB = 19
POT_BOW_LSB = 20
ENC_COUNTS_PER_MOTOR_RAD = 21
GEAR = 22
THERMO_CODES_PER_C = 23
BRIDGE_OHM = 24
THERMAL_R = 25
THERMAL_C = 26
AMBIENT_C = 27
ADC_AT_EDGE = 28  # 1.0: the sample taken at kT ends the window the controller reads (thesis)
OFFSET_BEFORE_RC_A = 29  # as-built amplifier offset acting on the PWM pulses, amperes
OFFSET_AFTER_RC_A = 30  # as-built amplifier offset acting on the filtered signal, amperes
N_PARAMS = 31

# --- float state ---------------------------------------------------------------------------
OMEGA = 0  # output shaft speed, rad/s
THETA = 1  # output shaft angle, rad (0 = pot mid-scale)
VC = 2  # RC filter output, in amperes of sensed current
TEMP_C = 3  # bridge temperature
I_MEAN = 4  # winding current averaged over the last PWM period (the "true" current)
N_STATE = 5

# --- integer state -------------------------------------------------------------------------
RNG = 0  # xorshift32 state of the pot noise
MOTOR_REV = 1  # whole motor revolutions (index pulse detection)
N_ISTATE = 2

# --- tables: rows of exp(-k / (pclk * tau)) for k = 0..PWM_TOP counts, and k / pclk ---------
TAB_RC = 0  # RC filter
TAB_CONDUCTING = 1  # mechanics with the winding shorted or driven: (K_t K_e / R + B) / J
TAB_OPEN = 2  # mechanics with the winding open (float, dead time): B / J
TAB_DT = 3  # not a decay: the segment length k / pclk in seconds (the lean kernel's divisions)
N_TABLES = 4
