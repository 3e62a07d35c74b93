"""Fill the plant's parameter, state and table arrays from the presets and run options."""

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from servobus.plant import layout as p
from servobus.plant import prng
from servobus.presets.board import AdcWindow, BoardHardware, Sensing
from servobus.presets.servos import ServoPreset

PlantKind = Literal["switching", "averaged"]
PwmAlign = Literal["edge", "centre"]
Rotor = Literal["locked", "free"]
OffsetStage = Literal["before-rc", "after-rc"]
OFFSET_STAGES: tuple[OffsetStage, ...] = ("after-rc", "before-rc")


@dataclass(frozen=True)
class PlantOptions:
    """How the hardware around one board is simulated."""

    sensing: Sensing = "supply-unipolar"
    adc_window: AdcWindow = "ends-at-edge"  # or "previous-period" (docs/decisions.md, Timing)
    plant: PlantKind = "switching"
    pwm: PwmAlign = "edge"
    rotor: Rotor = "free"
    alpha: float = 1.0  # load inertia factor, J_total = alpha * J
    load_torque: float = 0.0  # N m, external load on the output shaft
    theta0: float = 0.0  # initial shaft angle, rad (0 = pot mid-scale)
    temp0_c: float | None = None  # initial bridge temperature (None: ambient)
    seed: int = 0
    zero_offset_a: float | None = None  # as-built amplifier offset, A (None: the board's)
    offset_stage: OffsetStage = "after-rc"


def zero_offset(hw: BoardHardware, opt: PlantOptions) -> float:
    """The front end's offset at zero current in amperes: none in the corrected design."""
    if opt.sensing == "winding-bipolar":
        return 0.0
    return hw.zero_offset_a if opt.zero_offset_a is None else opt.zero_offset_a


def build_params(servo: ServoPreset, hw: BoardHardware, opt: PlantOptions) -> np.ndarray:
    """The float parameter array read by the plant functions."""
    prm = np.zeros(p.N_PARAMS)
    prm[p.V_SUPPLY] = servo.supply_v
    prm[p.KT] = servo.kt
    prm[p.R_A] = servo.r_a
    prm[p.B_VISC] = servo.b
    prm[p.J_TOTAL] = opt.alpha * servo.j
    prm[p.COULOMB] = servo.coulomb
    prm[p.LOAD_TORQUE] = opt.load_torque
    prm[p.LOCKED] = 1.0 if opt.rotor == "locked" else 0.0
    prm[p.SENSE_BIPOLAR] = 1.0 if opt.sensing == "winding-bipolar" else 0.0
    prm[p.AVERAGED] = 1.0 if opt.plant == "averaged" else 0.0
    prm[p.CENTRE_ALIGNED] = 1.0 if opt.pwm == "centre" else 0.0
    prm[p.DEAD_COUNTS] = hw.dead_counts
    prm[p.PWM_TOP] = hw.pwm_top
    prm[p.PCLK_HZ] = hw.pclk_hz
    prm[p.ADC_PER_PWM] = hw.adc_per_pwm
    prm[p.ADC_CODES_PER_AMP] = hw.adc_codes_per_amp(opt.sensing)
    prm[p.ADC_ZERO_CODE] = hw.adc_zero_code(opt.sensing)
    prm[p.ADC_MAX_CODE] = hw.adc_codes - 1
    sensor = servo.sensed_by(hw)
    prm[p.POT_LSB_PER_RAD] = sensor.pot_lsb_per_rad
    prm[p.POT_NOISE_LSB] = sensor.pot_noise_lsb
    prm[p.POT_BOW_LSB] = sensor.pot_bow_lsb
    prm[p.ENC_COUNTS_PER_MOTOR_RAD] = hw.encoder_counts_per_motor_rev / (2.0 * math.pi)
    prm[p.GEAR] = hw.encoder_gear
    prm[p.THERMO_CODES_PER_C] = hw.thermo_mv_per_c * 1e-3 / hw.adc_vref * hw.adc_codes
    prm[p.BRIDGE_OHM] = hw.bridge_ohm
    prm[p.THERMAL_R] = hw.thermal_r_k_per_w
    prm[p.THERMAL_C] = hw.thermal_c_j_per_k
    prm[p.AMBIENT_C] = hw.ambient_c
    prm[p.ADC_AT_EDGE] = 1.0 if opt.adc_window == "ends-at-edge" else 0.0
    offset = zero_offset(hw, opt)
    prm[p.OFFSET_BEFORE_RC_A] = offset if opt.offset_stage == "before-rc" else 0.0
    prm[p.OFFSET_AFTER_RC_A] = offset if opt.offset_stage == "after-rc" else 0.0
    return prm


def build_tables(servo: ServoPreset, hw: BoardHardware, opt: PlantOptions) -> np.ndarray:
    """Decay factors exp(-rate * k / pclk) for every segment length k = 0..PWM_TOP, and k / pclk."""
    t = np.arange(hw.pwm_top + 1) / hw.pclk_hz
    j = opt.alpha * servo.j
    tables = np.empty((p.N_TABLES, hw.pwm_top + 1))
    tables[p.TAB_RC] = np.exp(-t / hw.rc_tau_s)
    tables[p.TAB_CONDUCTING] = np.exp(-t * servo.damping / j)
    tables[p.TAB_OPEN] = np.exp(-t * servo.b / j)
    tables[p.TAB_DT] = t
    return tables


def build_state(hw: BoardHardware, opt: PlantOptions) -> tuple[np.ndarray, np.ndarray]:
    """Initial float and integer plant state."""
    state = np.zeros(p.N_STATE)
    state[p.THETA] = opt.theta0
    state[p.TEMP_C] = hw.ambient_c if opt.temp0_c is None else opt.temp0_c
    istate = np.zeros(p.N_ISTATE, dtype=np.int64)
    istate[p.RNG] = prng.seed_state(opt.seed)
    istate[p.MOTOR_REV] = math.floor(opt.theta0 * hw.encoder_gear / (2.0 * math.pi))
    return state, istate
