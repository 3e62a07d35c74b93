"""Servo presets (SPEC 3 and 6): each a plant referred to its output shaft and its own controller,
with the derivation of every number (docs/presets.md holds the papers' figures beside ours).

Plant: R_a i + K_e w = duty V;  J dw/dt = K_t i - B w - F_c sign(w) - load, K_t = K_e.  The winding
is a pure resistance (the switching model solves it exactly per PWM segment); a motor-side
constant becomes an output one through the gear: K = N k, B = N^2 b.

Controller: the firmware mode the servo's own controller runs in.  "cascade": the board's current
loop under the host's position PID (SPEJBL's HSR-5995TG).  "local-p": the board closes the
position loop itself from POSREF set-points, the AX-12's law U = k_theta (theta_ref - theta) +
k_omega (w_ref - w) at w_ref = 0 (set-points carry no speed), every 1/loop_hz s, U clipped to the
supply (firmware.local_p; a P law has k_omega = 0).
"""

import math
from dataclasses import dataclass, replace

from servobus.presets import nxt
from servobus.presets.board import BoardHardware
from servobus.presets.sg90 import ARTICLE

# SPEC 2.6: SPEJBL's first-version local P loop, r = 15/pi duty per rad at 1 kHz
LOCAL_P_DUTY_PER_RAD = 15.0 / math.pi


@dataclass(frozen=True)
class ServoPreset:
    """A servo: electrical and mechanical constants referred to its output shaft, its own
    controller, and its position sensor where it is not the board's pot."""

    name: str
    supply_v: float
    kt: float  # N m / A (= K_e in V s / rad)
    r_a: float  # ohm
    b: float  # N m s / rad
    j: float  # kg m^2, servo + test arm (alpha = 1)
    coulomb: float  # N m
    derivation: str
    mode: str = "cascade"  # the firmware mode of its own controller (module docstring)
    k_theta: float | None = None  # V per rad of position error (local-p); None: SPEC 2.6's
    k_omega: float = 0.0  # V s / rad: the law's K_omega (U gains -K_omega w at w_ref = 0)
    loop_hz: int = 1000  # the local position loop's rate (a divisor of the PWM rate)
    pot_lsb_per_pi: float | None = None  # its position sensor's scale; None: the board's pot
    pot_noise_lsb: float | None = None  # ... its noise (None: the board's)
    pot_bow_lsb: float | None = None  # ... its track's bow (None: the board's)

    @property
    def position_gain(self) -> float:
        """The local position loop's K_theta in V per rad: its own, else SPEJBL's first version's
        15/pi duty per rad at this servo's supply (SPEC 2.6)."""
        return LOCAL_P_DUTY_PER_RAD * self.supply_v if self.k_theta is None else self.k_theta

    @property
    def damping(self) -> float:
        """N m s / rad against the shaft's speed with the winding conducting: K^2 / R_a + B."""
        return self.kt * self.kt / self.r_a + self.b

    def steady_speed(self, volts: float) -> float:
        """Output speed, rad/s, the motor settles at with `volts` across it (forward, free)."""
        return max(self.kt * volts / self.r_a - self.coulomb, 0.0) / self.damping

    @property
    def stall_current_a(self) -> float:
        """Current at full duty with the rotor locked."""
        return self.supply_v / self.r_a

    def sensed_by(self, hw: BoardHardware) -> BoardHardware:
        """The board hardware with this servo's own position sensor in place of the pot."""
        return replace(
            hw, pot_lsb_per_pi=hw.pot_lsb_per_pi if self.pot_lsb_per_pi is None else
            self.pot_lsb_per_pi,
            pot_noise_lsb=hw.pot_noise_lsb if self.pot_noise_lsb is None else self.pot_noise_lsb,
            pot_bow_lsb=hw.pot_bow_lsb if self.pot_bow_lsb is None else self.pot_bow_lsb)


HSR_5995TG = ServoPreset(
    name="hsr-5995tg",
    supply_v=7.0,
    kt=0.834,
    r_a=2.43,
    b=0.046,
    j=4.75e-3,
    coulomb=0.01,
    derivation=(
        "Hitec HSR-5995TG in SPEJBL: static gain 2.30*pi rad/s per unit duty at 7 V, "
        "T_m = 14.3 ms with test arm, stall ~2.4 N m. K_e = 0.834 and R_a = 2.43 give stall "
        "2.9 A / 2.4 N m; B = 0.046 gives no-load current ~0.4 A; J from T_m. Controller: the "
        "cascade (host PID, board current PI); local-p: SPEC 2.6's 15/pi duty per rad at 1 kHz."
    ),
)

AX12_GEAR = 254  # AX-12 datasheet: 1/254 reduction (not in Lima et al.)
AX12_K_S = 0.006810  # V s / rad on the motor shaft (Lima et al., mean of 13 measurements)
AX12 = ServoPreset(
    name="ax-12",
    supply_v=12.0,  # datasheet: 12 V nominal (9-12 V)
    kt=AX12_K_S * AX12_GEAR,  # 1.730 V s / rad at the output
    r_a=8.0,
    b=0.01278,  # at the output: on the motor shaft it would be 2,200 x K_s^2 / R_a
    j=7.0e-3,
    coulomb=1.71e-5,
    mode="local-p",
    k_theta=30.0,
    k_omega=-1.2,
    loop_hz=1000,
    pot_lsb_per_pi=1023.0 / 300.0 * 180.0,  # 0..1023 over 300 degrees (datasheet)
    derivation=(
        "Dynamixel AX-12 (Lima et al., SPEC 6.1): R_a = 8 ohm, K_s = 0.00681 V s/rad taken on "
        "the motor shaft (at the output the no-load speed at 12 V would be 1,760 rad/s), through "
        "the datasheet's 254:1 gear: 1.730 V s/rad; its no-load speed at 12 V is then 6.7 rad/s "
        "(datasheet 59 rpm = 6.2 rad/s). Friction B_v = 0.01278, F_c = 1.71e-5 at the output "
        "(B_v on the motor shaft would stop the motor). Supply 12 V (datasheet). J = 7e-3 kg m^2 "
        "chosen: a 1e-7 kg m^2 rotor through 254^2 plus a 50 g, 10 cm arm (neither published). "
        "L_a = 5 mH omitted (tau_e = 0.625 ms, 1/30 of the step's time constant). Controller: "
        "U = 30 (theta_ref - theta) - 1.2 (w_ref - w) in V, rad, rad/s (units not in the paper: "
        "SI chosen), w_ref = 0, at 1 kHz (chosen), clipped to the supply; no torque limit "
        "beyond it (the model's stall torque is 2.6 N m, the datasheet's 1.5 N m)."
    ),
)

NXT_R = 6.8562  # ohm (Hurbain)
NXT_B = 1.1278e-3  # N m s / rad (Hurbain)
# K from the measured line's slope: a = K / (K^2 + B R), the root near 1 / a
NXT_KT = (1.0 + math.sqrt(1.0 - 4.0 * nxt.GAIN ** 2 * NXT_B * NXT_R)) / (2.0 * nxt.GAIN)
NXT_DAMPING = NXT_KT ** 2 / NXT_R + NXT_B  # N m s / rad with the winding conducting
NXT = ServoPreset(
    name="nxt",
    supply_v=nxt.BATTERY_V,  # the paper's battery (Table 2)
    kt=NXT_KT,  # 0.630 V s / rad at the output
    r_a=NXT_R,
    b=NXT_B,
    j=nxt.TAU_S * NXT_DAMPING,
    coulomb=nxt.OFFSET * NXT_DAMPING,
    mode="local-p",
    k_theta=20.0,
    k_omega=0.0,
    loop_hz=1000,
    pot_lsb_per_pi=180.0,  # the tachometer: 1 degree per count
    pot_noise_lsb=0.0,
    pot_bow_lsb=0.0,
    derivation=(
        "LEGO NXT motor (Pinto & Bermudez, SPEC 6.2), following what the paper measured, not its "
        "white-box constants (which contradict each other and its measurements): the identified "
        "gains 1.466, 1.520, 1.527 (rad/s)/V at 2.50, 6.57, 7.51 V are w = 1.556 V - 0.227 rad/s "
        "(least squares, within 0.1 %), i.e. K = 0.630 V s/rad with Hurbain's R_a = 6.856 ohm "
        "and B = 1.128e-3, and Coulomb friction 0.227 x 0.0591 = 0.0134 N m. J from a "
        "mechanical time constant of 2.23 ms: stepped from rest, speed measured as the brick "
        "does (1 degree count differences over T_s), a first-order motor gives |p| = tau / T_s "
        "at T_s = 0.1 s, and 2.23 ms is the geometric mean of the paper's 0.1 s models' |p| "
        "(0.01837, 0.02715); its 0.01 s model's |p| is set by a 2-count first sample and does "
        "not resolve tau (docs/presets.md). Supply: the 7.63 V battery. Sensor: the "
        "tachometer, 1 degree per count, no noise. Controller (not in the paper, chosen): P, "
        "20 V/rad at 1 kHz."
    ),
)

SG90 = ServoPreset(
    name="sg90",
    supply_v=ARTICLE.supply_v,  # the article's experiment at 5 V (V_nom = 6 V)
    kt=ARTICLE.k_t * ARTICLE.gear,  # 0.25 N m / A at the output
    r_a=ARTICLE.r,  # V_nom / i_stall = 10 ohm
    b=ARTICLE.b_fit * ARTICLE.gear ** 2,  # the article's fitted b on the motor shaft, x G^2
    j=ARTICLE.link_inertia,  # the article's MuJoCo link, 3.28e-6 kg m^2
    coulomb=0.0,
    mode="local-p",
    k_theta=ARTICLE.k_p,  # the article's fitted k_p, V/rad
    k_omega=0.0,
    loop_hz=20_000,  # an analog servo's loop: every PWM period
    derivation=(
        "TowerPro SG90 (the MuJoCo article, SPEC 6.3; presets/sg90.py): G = 55.5, R = V_nom / "
        "i_stall = 10 ohm, k_t = k_e = (0.15 / G) / 0.6 = 4.50e-3 on the motor (0.25 at the "
        "output), b the article's fit 1.404e-6 (computed: 1.409e-6) x G^2. With k_e = k_t the "
        "model's no-load speed is 0.68 deg/ms at 5 V (0.81 at 6 V), not the datasheet's 0.66: "
        "the preset reproduces the article's model. J: the article's one-joint MuJoCo link (a "
        "16 g cylinder hinged through its centre), no rotor. Controller: the article's P, "
        "V = clip(8.897 e, +-5 V), at every 50 us PWM period."
    ),
)

SERVOS = {p.name: p for p in (HSR_5995TG, AX12, NXT, SG90)}
