"""The servo board's hardware (SPEC 2): clocks, PWM, ADC, analog front end, sensors, thermal.

Numbers the SPEC gives are used as given; the others are our choices, marked "chosen" and
explained in docs/decisions.md.
"""

import math
from dataclasses import dataclass
from typing import Literal

Sensing = Literal["supply-unipolar", "winding-bipolar"]
SENSING_CHOICES: tuple[Sensing, ...] = ("supply-unipolar", "winding-bipolar")
AdcWindow = Literal["ends-at-edge", "previous-period"]
ADC_WINDOW_CHOICES: tuple[AdcWindow, ...] = ("ends-at-edge", "previous-period")


@dataclass(frozen=True)
class BoardHardware:
    """Everything on the board between the MCU pins and the motor/shaft."""

    pclk_hz: int = 60_000_000
    pwm_hz: int = 20_000
    adc_per_pwm: int = 6  # N: ADC samples per PWM period, coherent with PWM
    adc_bits: int = 10
    adc_vref: float = 3.3
    shunt_ohm: float = 0.11
    full_scale_a: float = 3.0  # 3.0 A <-> 3.3 V (unipolar); bipolar spans +-3.0 A (chosen)
    # as-built amplifier input offset referred to the shunt: -2.2 mV / 0.11 ohm (chosen, the
    # typical |V_os| of a general-purpose single-supply op-amp; docs/limit-cycle.md)
    zero_offset_a: float = -0.02
    rc_r_ohm: float = 15e3
    rc_c_f: float = 10e-9
    dead_time_s: float = 1e-6
    pot_lsb_per_pi: float = 832.0
    pot_noise_lsb: float = 0.5  # uniform +-0.5 LSB before rounding: |error| <= 1 LSB
    pot_bow_lsb: float = 1.5  # track non-uniformity, parabolic bow peak (chosen)
    encoder_counts_per_motor_rev: int = 2000  # HEDS5540, x4 (GuRoo)
    encoder_gear: float = 156.0  # GuRoo gearbox
    thermo_mv_per_c: float = 10.0  # LM35-style board thermometer (chosen)
    bridge_ohm: float = 0.2  # two MOSFET R_ds(on) in the current path (chosen)
    thermal_r_k_per_w: float = 40.0  # bridge to ambient (chosen)
    thermal_c_j_per_k: float = 2.0  # (chosen)
    ambient_c: float = 25.0
    over_temperature_c: float = 85.0  # trip threshold (chosen)
    over_current_a: float = 2.5  # trip threshold on the decimated current (chosen)
    over_current_s: float = 5e-3  # ... sustained this long (chosen)
    iw_max_a: float = 1.0  # reference clamp (SPEC 2.3)
    can_hz: int = 250

    @property
    def pwm_top(self) -> int:
        """PWM counter period in PCLK counts (3000 = 100 % duty)."""
        return self.pclk_hz // self.pwm_hz

    @property
    def adc_hz(self) -> int:
        """Current sampling rate f_s = N f_PWM."""
        return self.pwm_hz * self.adc_per_pwm

    @property
    def rc_tau_s(self) -> float:
        """Anti-alias filter time constant T_RC."""
        return self.rc_r_ohm * self.rc_c_f

    @property
    def dead_counts(self) -> int:
        """Dead time in PWM counter counts."""
        return round(self.dead_time_s * self.pclk_hz)

    @property
    def adc_codes(self) -> int:
        """Number of ADC codes (1024)."""
        return 1 << self.adc_bits

    def adc_codes_per_amp(self, sensing: Sensing) -> float:
        """ADC LSB per ampere of sensed current."""
        span = self.full_scale_a if sensing == "supply-unipolar" else 2.0 * self.full_scale_a
        return self.adc_codes / span

    def adc_zero_code(self, sensing: Sensing) -> int:
        """ADC reading at zero current (0 unipolar, mid-scale bipolar)."""
        return 0 if sensing == "supply-unipolar" else self.adc_codes // 2

    @property
    def pot_lsb_per_rad(self) -> float:
        """Potentiometer scale, 832 LSB per pi rad."""
        return self.pot_lsb_per_pi / math.pi

    @property
    def periods_per_tick(self) -> int:
        """PWM periods per CAN tick (80)."""
        return self.pwm_hz // self.can_hz

    def thermometer_code(self, temp_c: float) -> int:
        """ADC reading of the board thermometer at a temperature."""
        return math.floor(temp_c * self.thermo_mv_per_c * 1e-3 / self.adc_vref * self.adc_codes
                          + 0.5)


DEFAULT_BOARD = BoardHardware()
