"""RC servos as the thesis' simulator models them (SPEC 5): a PD with limited slew rate.

Each servo decodes its pulse width into a reference angle (centre 1500 us, 573 us/rad) and drives
its output inertia J with torque tau = clip(KP (ref - theta) - KD omega, +-TORQUE); the output
speed is clipped to +-SPEED (the HS-705MG's 1.4 N m and 5.2 rad/s are the two bounds).  With
KP = 14 N m/rad, KD = 0.75 N m s/rad (critical damping of KP on J = 0.01 kg m^2, natural
frequency 37 rad/s) a large step is slew-limited (5.2 rad/s) and a small one (< 0.1 rad, below
the torque limit) settles like a critically damped second-order system.  Integrated by
semi-implicit Euler at the thesis simulator's 500 us step: the state always sits on that grid,
and ``advance_to`` runs the whole steps up to a time in one compiled call (``run_steps``), the
same floating-point operations in the same order as ``step`` (numpy, the model as written; the
two agree bit for bit, tests/robot/test_guroo_speed_parts.py).
"""

import numpy as np

from servobus.firmware import servo_board
from servobus.plant.kernel_cache import cached_njit
from servobus.presets import guroo as preset


def run_steps(theta: np.ndarray, omega: np.ndarray, ref: np.ndarray, max_error: np.ndarray,
              steps: int, kp: float, kd: float, inertia: float, torque: float, speed: float,
              dt: float) -> None:
    """`steps` integration steps of every servo, in place (``RCServoBank.step``'s arithmetic)."""
    for _ in range(steps):
        for k in range(theta.shape[0]):
            tau = min(max(kp * (ref[k] - theta[k]) - kd * omega[k], -torque), torque)
            w = min(max(omega[k] + tau / inertia * dt, -speed), speed)
            omega[k] = w
            theta[k] = theta[k] + w * dt
            error = abs(ref[k] - theta[k])
            if error > max_error[k]:
                max_error[k] = error


run_steps_fast = cached_njit(run_steps)


class RCServoBank:
    """n servos: angles, speeds, pulse-width references, on a fixed integration grid."""

    def __init__(self, n: int = 8, theta0: np.ndarray | None = None, t0_ns: int = 0,
                 step_ns: int = preset.SERVO_STEP_NS) -> None:
        if step_ns <= 0:
            raise ValueError(f"integration step must be positive, got {step_ns} ns")
        self.theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=float)
        self.omega = np.zeros(n)
        self.ref = np.zeros(n)
        self.t_ns = t0_ns
        self.step_ns = step_ns
        self.max_error = np.zeros(n)  # the largest |ref - theta| seen at a step
        self._dt = step_ns / 1e9
        self._kp, self._kd = preset.SERVO_KP_NM_RAD, preset.SERVO_KD_NM_S_RAD
        self._j = preset.SERVO_INERTIA_KG_M2
        self._tau, self._speed = preset.SERVO_TORQUE_NM, preset.SERVO_SPEED_RAD_S

    @property
    def constants(self) -> np.ndarray:
        """The model's constants in ``run_steps``' order (KP, KD, J, torque, speed, step in s),
        for a compiled caller."""
        return np.array([self._kp, self._kd, self._j, self._tau, self._speed, self._dt])

    def set_pulse(self, k: int, pulse_us: int) -> None:
        """Servo k's new pulse width: its reference angle from now on."""
        self.ref[k] = (pulse_us - servo_board.CENTER) / servo_board.US_PER_RAD

    def step(self) -> None:
        """One integration step of every servo (numpy: the model as written)."""
        tau = np.clip(self._kp * (self.ref - self.theta) - self._kd * self.omega,
                      -self._tau, self._tau)
        self.omega = np.clip(self.omega + tau / self._j * self._dt, -self._speed, self._speed)
        self.theta = self.theta + self.omega * self._dt
        self.t_ns += self.step_ns
        np.maximum(self.max_error, np.abs(self.ref - self.theta), out=self.max_error)

    def advance_to(self, t_ns: int) -> None:
        """Run every whole step that ends at or before t_ns (one compiled call)."""
        steps = (t_ns - self.t_ns) // self.step_ns
        if steps > 0:
            run_steps_fast(self.theta, self.omega, self.ref, self.max_error, steps, self._kp,
                           self._kd, self._j, self._tau, self._speed, self._dt)
            self.t_ns += steps * self.step_ns
