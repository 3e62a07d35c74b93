"""Firmware constants (the "flash image") derived from the hardware and the servo preset.

Current units inside the firmware are moving-sum counts: the sum of 12 ADC samples.  With the
as-built front end (3.0 A <-> 1024 LSB) one ampere is 12 * 1024 / 3 = 4096 counts, so the Q12
ampere of the CAN actuation message maps 1:1; the bipolar front end spans +-3 A, 2048 counts/A.

PI design (SPEC 2.3): G_S(1) is the DC gain duty -> measured current in controller units,
(V / R_a) * counts_per_amp / PWM_TOP counts per PWM count; K = 0.6 / G_S(1), n = 0.674.  G_S(1) is
the same under either --adc-window (the window only delays the samples), so the design is too.
"""

from dataclasses import dataclass

import numpy as np

from servobus.firmware import memory as m
from servobus.presets.board import BoardHardware, Sensing
from servobus.presets.servos import ServoPreset

PI_ZERO_N = 0.674
PI_GAIN_FRACTION = 0.6
Q15 = 1 << 15
Q12_AMP = 1 << 12


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
    p_block, p_gain_q8, p_vel_q8 = local_p_gains(servo, hw)
    rom[m.P_BLOCK], rom[m.P_GAIN_Q8], rom[m.P_VEL_Q8] = p_block, p_gain_q8, p_vel_q8
    return rom


def local_p_gains(servo: ServoPreset, hw: BoardHardware) -> tuple[int, int, int]:
    """The local position loop's block length and Q8 gains from the servo's law (volts per
    rad, volts per rad/s) on its sensor: PWM counts per pot-sum LSB, and per pot-sum change
    between blocks (a speed of that change * loop_hz / (block * LSB per rad)).  A gain the
    32-bit ROM word cannot hold, or a nonzero one that rounds to 0, is a ValueError."""
    if hw.pwm_hz % servo.loop_hz:
        raise ValueError(f"{servo.name}: loop_hz {servo.loop_hz} does not divide the PWM rate "
                         f"{hw.pwm_hz} Hz")
    block = hw.pwm_hz // servo.loop_hz
    lsb_per_rad = servo.sensed_by(hw).pot_lsb_per_rad
    counts_per_volt = hw.pwm_top / servo.supply_v
    gains = []
    for name, volts, per in (("k_theta", servo.position_gain, 1.0 / block),
                             ("k_omega", servo.k_omega, servo.loop_hz / block)):
        q8 = round(volts * counts_per_volt / lsb_per_rad * per * 256)
        if abs(q8) >= 1 << 31:
            raise ValueError(f"{servo.name}: {name} {volts:g} is {q8} in Q8 PWM counts, beyond "
                             "the firmware's 32-bit gain")
        if volts != 0.0 and q8 == 0:
            raise ValueError(f"{servo.name}: {name} {volts:g} rounds to 0 in Q8 PWM counts at "
                             f"{servo.loop_hz} Hz: the loop would not act on it")
        gains.append(q8)
    return block, gains[0], gains[1]
