"""The position loop in the design view (SPEC 4.2): P(z), PID, closed loop, stability in alpha.

P(z) = K_P / (z (z - 1) (z - q)): input the current reference (A), output the pot reading (LSB),
one step each of ZOH/averaging, bus and compute delay, an integrator and the mechanical pole
q = exp(-T / T_m).

How K_P scales with the inertia factor alpha (T_m,b = alpha T_m): under current control the
torque is K_t i and the only damping is the viscous B, which the load does not change, so the
static speed per ampere K_t / B stays fixed.  The first difference of P obeys
d = K_P u / (1 - q) at steady state, hence K_P(alpha) = K_P (1 - q^(1/alpha)) / (1 - q).
"""

import math
from dataclasses import dataclass

import numpy as np

from servobus.analysis.step_metrics import StepMetrics, step_metrics
from servobus.host.tunings import Tuning
from servobus.presets.board import DEFAULT_BOARD, BoardHardware
from servobus.presets.servos import HSR_5995TG, ServoPreset


@dataclass(frozen=True)
class PositionPlant:
    """K_P (LSB per A per step) and the mechanical pole q at the bus rate f."""

    kp: float
    q: float
    f: float = 250.0

    @property
    def tm_s(self) -> float:
        """Mechanical time constant T_m = -T / ln q."""
        return -1.0 / (self.f * math.log(self.q))

    def with_alpha(self, alpha: float) -> "PositionPlant":
        """The plant with its inertia scaled by alpha (K_P scaled as the module explains)."""
        q = self.q ** (1.0 / alpha)
        return PositionPlant(self.kp * (1.0 - q) / (1.0 - self.q), q, self.f)


def first_order_plant(speed: float, tm_s: float, hw: BoardHardware) -> PositionPlant:
    """P(z) of a joint whose speed answers its input with gain `speed` (rad/s per unit) and
    time constant `tm_s`, seen through the pot at the bus rate."""
    f = float(hw.can_hz)
    q = math.exp(-1.0 / (f * tm_s))
    return PositionPlant((1.0 - q) * speed / f * hw.pot_lsb_per_rad, q, f)


def physical_plant(servo: ServoPreset, hw: BoardHardware, alpha: float = 1.0) -> PositionPlant:
    """P(z) of the emulated joint under current control, from the preset's physics: K_t/B rad/s
    per A, T_m = J/B."""
    return first_order_plant(servo.kt / servo.b, alpha * servo.j / servo.b, hw)


def voltage_plant(servo: ServoPreset = HSR_5995TG,
                  hw: BoardHardware = DEFAULT_BOARD) -> PositionPlant:
    """P(z) under duty drive (no current loop): V K_t / (K_t^2 + R_a B) rad/s per unit duty,
    T_m = J R_a / (K_t^2 + R_a B)."""
    den = servo.kt * servo.kt + servo.r_a * servo.b
    return first_order_plant(servo.supply_v * servo.kt / den, servo.j * servo.r_a / den, hw)


def critical_omega(plant: PositionPlant) -> float:
    """Phase crossover of P (phase = -180 deg), rad/s."""
    from scipy import optimize  # lazy: `servobus run` needs the plant, not the design

    def phase(w: float) -> float:
        z = complex(math.cos(w / plant.f), math.sin(w / plant.f))
        # for 0 < wT < pi every factor has a positive imaginary part: angles in (0, pi)
        return -w / plant.f - float(np.angle(z - 1.0)) - float(np.angle(z - plant.q))

    return float(optimize.brentq(lambda w: phase(w) + math.pi, 1e-2, math.pi * plant.f * 0.999))


Gains = tuple[float, float, float]


def closed_loop(plant: PositionPlant, gains: Gains) -> tuple[np.ndarray, np.ndarray]:
    """Reference -> position transfer function (num, den in powers of z^-1) for PID gains
    (r_P, r_I, r_D)."""
    rp, ri, rd = gains
    # C(z) = [rp (z-1) z + ri z + rd (z-1)^2] / [z (z-1)], in z^-1: divide by z^2
    c_num = np.array([rp + rd, -rp + ri - 2 * rd, rd])
    c_den = np.array([1.0, -1.0, 0.0])
    p_num = np.array([0.0, 0.0, 0.0, plant.kp])  # K_P z^-3
    p_den = np.array([1.0, -(1.0 + plant.q), plant.q])
    l_num = np.convolve(c_num, p_num)
    l_den = np.convolve(c_den, p_den)
    size = max(len(l_num), len(l_den))
    l_num = np.pad(l_num, (0, size - len(l_num)))
    l_den = np.pad(l_den, (0, size - len(l_den)))
    return l_num, l_den + l_num


def largest_pole(plant: PositionPlant, gains: Gains) -> float:
    """Modulus of the largest closed-loop pole."""
    return float(np.max(np.abs(np.roots(closed_loop(plant, gains)[1]))))


def step_response(plant: PositionPlant, gains: Gains, seconds: float = 6.0) -> np.ndarray:
    """Unit-step response of the linear closed loop, one value per bus period."""
    from scipy import signal

    num, den = closed_loop(plant, gains)
    return np.asarray(signal.lfilter(num, den, np.ones(round(seconds * plant.f))))


def step_figures(plant: PositionPlant, gains: Gains) -> StepMetrics:
    """Overshoot and 1 % settling of the closed-loop step."""
    return step_metrics(step_response(plant, gains), 1.0, band=0.01)


def alpha_max(plant: PositionPlant, gains: Gains, top: float = 200.0) -> float:
    """Largest inertia factor alpha >= 1 up to which the loop (gains fixed, designed for
    alpha = 1) stays stable: a scan, then bisection at the first unstable point."""
    if largest_pole(plant, gains) >= 1.0:
        return float("nan")
    grid = np.geomspace(1.0, top, 400)
    stable = [largest_pole(plant.with_alpha(a), gains) < 1.0 for a in grid]
    if all(stable):
        return top
    k = stable.index(False)
    lo, hi = grid[k - 1], grid[k]
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if largest_pole(plant.with_alpha(mid), gains) < 1.0 else (lo, mid)
    return float(lo)


def design(plant: PositionPlant, overshoot_pct: float = 10.0,
           name: str = "designed") -> tuple[Tuning, bool]:
    """The thesis' rule: w_D at the phase crossover of P, w_I = w_D / 5, then K: of the stable
    loop gains with at most `overshoot_pct` overshoot, the one that settles (1 %) fastest.  The
    loop is conditionally stable and overshoot is not monotonic in K; when no gain reaches the
    target (a plant close to a double integrator), the least-overshoot gain is taken and the
    second value returned is False."""
    w_d = critical_omega(plant)
    w_i = w_d / 5.0
    candidates = []
    for k_kp in np.geomspace(1e-5, 1.0, 240):
        gains = Tuning(name, w_d, w_i, float(k_kp)).gains(plant.kp, plant.f)
        if largest_pole(plant, gains) < 1.0:
            fig = step_figures(plant, gains)
            candidates.append((fig.overshoot_pct, fig.settling_periods, float(k_kp)))
    if not candidates:
        raise ValueError(f"no stable gain for {plant}")
    meeting = [c for c in candidates if c[0] <= overshoot_pct]
    if meeting:
        return Tuning(name, w_d, w_i, min(meeting, key=lambda c: c[1])[2]), True
    return Tuning(name, w_d, w_i, min(candidates)[2]), False
