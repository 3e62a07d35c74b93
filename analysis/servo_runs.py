"""Experiments on one emulated servo board (``BoardRig``: integer firmware on the switching
plant) that measure a servo preset the way its source measured the real servo.

* ``duty_step``: open-loop duty (MODE_DUTY, the CAN actuation path), free rotor, from rest:
  the shaft speed and winding current per PWM period from the period the duty is applied.
* ``locked_current``: the same drive with the rotor locked: the winding current.
* ``position_step``: the servo's own position loop (MODE_LOCAL_P) from rest at 0 to a
  set-point, as a POSREF frame delivers it: the shaft angle per PWM period.
* ``first_order_fit``: the thesis' step fit of a speed response.
* ``reading_spread``: the position sensor read at rest, many times at many angles.

Speeds, currents and angles are the plant's (the true shaft, not a sensor's estimate): the
figures are the motor's, measured through the board's bridge, firmware and sensor in the loop.
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import curve_fit

from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant import layout as p
from servobus.plant import sensors
from servobus.plant.build import PlantKind, PlantOptions, Rotor
from servobus.plant.rig import TF_I_WINDING, TF_OMEGA, TF_THETA, TI_DUTY, BoardRig
from servobus.presets.servos import ServoPreset


@dataclass(frozen=True)
class Run:
    """Per-PWM-period plant values from the period the command took effect; t is the end of
    each period in seconds after that instant."""

    t: np.ndarray
    omega: np.ndarray  # rad/s at the output
    theta: np.ndarray  # rad
    current: np.ndarray  # winding current averaged over the period, A

    def tail_mean(self, values: np.ndarray, fraction: float = 0.25) -> float:
        """The mean of the last `fraction` of a column (a steady state's value)."""
        return float(np.mean(values[-max(1, round(len(values) * fraction)):]))

    def mean_speed(self, fraction: float = 0.25) -> float:
        """The mean speed over the last `fraction` of the run, from the angle it turned: at
        partial duty the speed ripples within each PWM period, and the period-end samples
        see one phase of it."""
        k = max(1, round(len(self.t) * fraction))
        return float((self.theta[-1] - self.theta[-k - 1]) / (self.t[-1] - self.t[-k - 1]))


def _record(rig: BoardRig, periods: int, from_drive: bool = False) -> Run:
    """Run `periods` PWM periods; t = 0 at the start of the first, or with `from_drive` of the
    first period the bridge drives (a duty applied at a tick reaches the PWM a period later)."""
    trace = rig.run(periods)
    start = int(np.argmax(trace.ints[:, TI_DUTY] != 0)) if from_drive else 0
    f = trace.floats[start:]
    t = np.arange(1, len(f) + 1) / rig.hw.pwm_hz
    return Run(t=t, omega=f[:, TF_OMEGA].copy(), theta=f[:, TF_THETA].copy(),
               current=f[:, TF_I_WINDING].copy())


def duty_step(servo: ServoPreset, duty: float, periods: int, rotor: Rotor = "free",
              plant: PlantKind = "switching") -> Run:
    """A duty step from rest (duty a fraction of full, through the actuation's Q12 value)."""
    rig = BoardRig(servo, options=PlantOptions(plant=plant, rotor=rotor), mode=m.MODE_DUTY)
    rig.command_current(duty)
    return _record(rig, periods, from_drive=True)


def locked_current(servo: ServoPreset, duty: float, periods: int = 80) -> float:
    """The mean winding current with the rotor locked over `periods` PWM periods of a duty
    step (short enough that no over-current trip floats the bridge: 80 periods are 4 ms)."""
    run = duty_step(servo, duty, periods, rotor="locked")
    return float(np.mean(run.current))


def first_order_fit(run: Run) -> tuple[float, float]:
    """Least-squares (Levenberg-Marquardt) fit of w(t) = b1 (1 - exp(-t / tau)), the thesis'
    step fit: (b1 in rad/s, tau in s)."""
    guess = (run.tail_mean(run.omega), float(run.t[-1]) / 10.0)
    (b1, tau), _ = curve_fit(lambda t, b1, tau: b1 * (1.0 - np.exp(-t / tau)), run.t,
                             run.omega, p0=guess)
    return float(b1), float(tau)


def _noiseless_reading(rig: BoardRig, theta: float) -> int:
    """The sensor's reading at `theta` without its noise (its quantisation and bow kept)."""
    params = rig.params.copy()
    params[p.POT_NOISE_LSB] = 0.0
    return sensors.pot_code(params, _at_angle(rig.state, theta), rig.istate.copy())


def position_step(servo: ServoPreset, theta_to: float, seconds: float) -> Run:
    """The servo's own loop, the shaft at rest at angle 0, given a POSREF frame with the
    reading of `theta_to` (rad) at t = 0; `seconds` of the response."""
    rig = BoardRig(servo, mode=m.MODE_LOCAL_P)
    board.can_posref(rig.ram, _noiseless_reading(rig, theta_to))
    return _record(rig, round(seconds * rig.hw.pwm_hz))


def reading_spread(servo: ServoPreset, angles: int = 16, readings: int = 500) -> int:
    """The largest departure (LSB) of a reading from the median of its angle's readings, the
    rotor at rest at `angles` angles across the sensor's range, `readings` readings each."""
    rig = BoardRig(servo, options=PlantOptions(rotor="locked"))
    half_range = 0.45 * (sensors.POT_CODES - 1) / rig.params[p.POT_LSB_PER_RAD]
    worst = 0
    for theta in np.linspace(-half_range, half_range, angles):
        state = _at_angle(rig.state, float(theta))
        codes = np.array([sensors.pot_code(rig.params, state, rig.istate)
                          for _ in range(readings)])
        worst = max(worst, int(np.max(np.abs(codes - np.median(codes)))))
    return worst


def _at_angle(state: np.ndarray, theta: float) -> np.ndarray:
    """A copy of the plant state with the shaft at `theta`."""
    moved = state.copy()
    moved[p.THETA] = theta
    return moved


def at_supply(servo: ServoPreset, volts: float) -> ServoPreset:
    """The servo on another supply (a figure the source gives at another voltage)."""
    return replace(servo, supply_v=volts)
