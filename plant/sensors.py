"""Position and temperature sensors: potentiometer, quadrature encoder, board thermometer.

Potentiometer: 832 LSB per pi rad around mid-scale 512, a slight parabolic bow (track
non-uniformity) and seeded uniform noise of +-0.5 LSB before rounding (|error| <= 1 LSB).
Encoder: HEDS5540 x4 on the motor shaft into a 16-bit wrapping counter, index once per motor
revolution.  Thermometer: 10 mV/degC into the 10-bit ADC; first-order thermal model of the bridge.
"""

import math

from numba.extending import register_jitable

from servobus.plant import layout as p
from servobus.plant import prng

POT_CODES = 1024
TWO_PI = 2.0 * math.pi


@register_jitable
def pot_code(params, state, istate) -> int:
    """One potentiometer conversion at the present shaft angle."""
    ideal = POT_CODES / 2 + state[p.THETA] * params[p.POT_LSB_PER_RAD]
    u = min(max(ideal / (POT_CODES - 1), 0.0), 1.0)
    noise = (2.0 * prng.next_uniform(istate, p.RNG) - 1.0) * params[p.POT_NOISE_LSB]
    code = math.floor(ideal + params[p.POT_BOW_LSB] * 4.0 * u * (1.0 - u) + noise + 0.5)
    return int(min(max(code, 0), POT_CODES - 1))


@register_jitable
def encoder_counter(params, state) -> int:
    """The 16-bit hardware counter reading (x4 decoded, wraps)."""
    motor = state[p.THETA] * params[p.GEAR]
    return math.floor(motor * params[p.ENC_COUNTS_PER_MOTOR_RAD]) & 0xFFFF


@register_jitable
def encoder_index(params, state, istate) -> int:
    """1 when the motor crossed a whole revolution (index pulse) since the last call."""
    rev = math.floor(state[p.THETA] * params[p.GEAR] / TWO_PI)
    fired = 1 if rev != istate[p.MOTOR_REV] else 0
    istate[p.MOTOR_REV] = rev
    return fired


@register_jitable
def thermometer_code(params, state) -> int:
    """Thermometer conversion at the present bridge temperature."""
    code = math.floor(state[p.TEMP_C] * params[p.THERMO_CODES_PER_C] + 0.5)
    return int(min(max(code, 0), POT_CODES - 1))


@register_jitable
def thermal_update(params, state, i2_mean: float, dt: float) -> None:
    """One Euler step of the bridge temperature heated by I^2 R_bridge (tau ~ 80 s >> dt)."""
    heat = i2_mean * params[p.BRIDGE_OHM]
    loss = (state[p.TEMP_C] - params[p.AMBIENT_C]) / params[p.THERMAL_R]
    state[p.TEMP_C] += dt * (heat - loss) / params[p.THERMAL_C]
