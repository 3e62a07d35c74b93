"""Firmware constants (the "flash image") derived from the hardware and the servo preset.

Current units inside the firmware are moving-sum counts: the sum of 12 ADC samples.  With the
as-built front end (3.0 A <-> 1024 LSB) one ampere is 12 * 1024 / 3 = 4096 counts, so the Q12
ampere of the CAN actuation message maps 1:1; the bipolar front end spans +-3 A, 2048 counts/A.

PI design (SPEC 2.3): G_S(1) is the DC gain duty -> measured current in controller units,
(V / R_a) * counts_per_amp / PWM_TOP counts per PWM count; K = 0.6 / G_S(1), n = 0.674.  G_S(1) is
the same under either --adc-window (the window only delays the samples), so the design is too.
"""

import math
from dataclasses import dataclass

import numpy as np

from servobus.firmware import memory as m
from servobus.presets.board import BoardHardware, Sensing
from servobus.presets.servos import ServoPreset

PI_ZERO_N = 0.674
PI_GAIN_FRACTION = 0.6
Q15 = 1 << 15
Q12_AMP = 1 << 12
LOCAL_P_GAIN_PER_RAD = 15.0 / math.pi  # duty per radian (SPEC 2.6)
LOCAL_P_HZ = 1000


@dataclass(frozen=True)
class CurrentLoopDesign:
    """The PI design in physical and integer form."""

    gs1: float  # counts per PWM count
    k: float  # PWM counts per count
    n: float
    k_p_q15: int
    k_i_q15: int
    counts_per_amp: float


def current_loop_design(servo: ServoPreset, hw: BoardHardware, sensing: Sensing,
                        n: float = PI_ZERO_N) -> CurrentLoopDesign:
    """K = 0.6 / G_S(1) with the zero at n, rounded to Q15 integers."""
    counts_per_amp = hw.adc_codes_per_amp(sensing) * m.MA_LEN
    gs1 = servo.stall_current_a * counts_per_amp / hw.pwm_top
    k = PI_GAIN_FRACTION / gs1
    return CurrentLoopDesign(gs1=gs1, k=k, n=n, k_p_q15=round(k * Q15),
                             k_i_q15=round(k * (1.0 - n) * Q15), counts_per_amp=counts_per_amp)


def build_rom(servo: ServoPreset, hw: BoardHardware, sensing: Sensing) -> np.ndarray:
    """All firmware constants as the int64 ROM array the firmware reads."""
    design = current_loop_design(servo, hw, sensing)
    rom = np.zeros(m.ROM_SIZE, dtype=np.int64)
    rom[m.K_P] = design.k_p_q15
    rom[m.K_I] = design.k_i_q15
    rom[m.IW_MAX] = round(hw.iw_max_a * Q12_AMP)
    rom[m.U_MAX] = hw.pwm_top
    rom[m.U_MAX_Q15] = hw.pwm_top * Q15
    rom[m.SIGNED_SENSE] = 0 if sensing == "supply-unipolar" else 1
    rom[m.ADC_ZERO_SUM] = hw.adc_zero_code(sensing) * m.MA_LEN
    rom[m.IREF_TO_SUM_Q15] = round(design.counts_per_amp / Q12_AMP * Q15)
    rom[m.OC_LIMIT] = round(hw.over_current_a * design.counts_per_amp)
    rom[m.OC_PERIODS] = round(hw.over_current_s * hw.pwm_hz)
    rom[m.OT_LIMIT] = hw.thermometer_code(hw.over_temperature_c)
    rom[m.POS_BLOCK] = hw.periods_per_tick
    p_block = hw.pwm_hz // LOCAL_P_HZ
    rom[m.P_BLOCK] = p_block
    counts_per_lsb = LOCAL_P_GAIN_PER_RAD / hw.pot_lsb_per_rad * hw.pwm_top
    rom[m.P_GAIN_Q8] = round(counts_per_lsb / p_block * 256)
    return rom
