"""`servobus identify`: excite one joint of a described time-triggered robot (SPEJBL by default)
and fit P(z), with the fit band, the model's known delays and the standard errors of q, K_P and
T_m stated in the result."""

import math
from dataclasses import asdict, dataclass, replace

import numpy as np

from servobus.bus.scheduler import NS_PER_S
from servobus.host.identify import (
    AMPLITUDE_A,
    CHIRP_BAND_HZ,
    CHIRP_START_HZ,
    KNOWN_DELAYS,
    MODEL,
    SINE_HZ,
    ExcitedController,
    Fit,
    Method,
    chirp_responses,
    excitation,
    fit_response,
    fit_step,
    hold_pose,
    sine_responses,
)
from servobus.host.pid import PidBank
from servobus.host.position_loop import PositionPlant, physical_plant
from servobus.host.tunings import THESIS_TUNINGS
from servobus.presets.board import DEFAULT_BOARD, SENSING_CHOICES, BoardHardware, Sensing
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.joint_options import JointOptions
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile

DEFAULT_ROBOT = "spejbl"  # the robot `identify` runs unless told (its report omits the name)
DEFAULT_SECONDS = {"chirp": 30.0, "sines": 20.0, "step": 0.4}
# below these the experiment cannot hold what the fit needs (see the checks in `identify`)
MIN_SECONDS = {"chirp": 5.0, "sines": 10.0, "step": 0.2}
MIN_RESPONSE_LSB = 0.5  # frequency points whose position amplitude is below this are dropped
MIN_POINTS = 5  # fewer usable frequency points than this (10 residuals, 2 unknowns): no fit
MIN_STEP_LSB = 3.0  # the step's final speed, LSB per period, below which d is quantisation
# the model's first difference d[k] = y[k] - y[k-1] after a step at k = 0 is b1 (1 - q^(k-2)):
# zero up to k = 2 (the three known delays), so the fit's t = 0 is k = 2
STEP_START = 2
Z95 = 1.96  # two-sided 95 % normal quantile


@dataclass(frozen=True)
class Settings:
    """Everything that determines an identification run (stored with its results)."""

    joint: int = 1
    method: Method = "chirp"
    seconds: float | None = None
    seed: int = 0
    alpha: float | None = None  # every joint's inertia factor; None: the description's
    sensing: Sensing | None = None  # every joint's front end; None: the description's
    amplitude: float = AMPLITUDE_A
    hold: str = "R2"  # the thesis tuning that holds the joints during the experiment
    robot: str = DEFAULT_ROBOT  # a shipped time-triggered robot's name or a description file

    def validated(self) -> "Settings":
        """These settings with the default length filled in; ValueError on nonsense (a
        description that does not load is a RobotFileError naming the file)."""
        rf = described(self.robot)
        if not 1 <= self.joint <= len(rf.joints):
            raise ValueError(f"--joint must be 1..{len(rf.joints)} (the joints of {rf.name}), "
                             f"got {self.joint}")
        if self.sensing is not None and self.sensing not in SENSING_CHOICES:
            raise ValueError(f"--sensing must be one of {', '.join(SENSING_CHOICES)}")
        if not 0.0 < self.amplitude <= 1.0:
            raise ValueError(f"--amplitude must be in (0, 1] A, got {self.amplitude}")
        if self.hold not in THESIS_TUNINGS:
            raise ValueError(f"--hold must be one of {', '.join(THESIS_TUNINGS)}")
        if self.alpha is not None and not self.alpha > 0:
            raise ValueError(f"--alpha must be positive, got {self.alpha}")
        seconds = DEFAULT_SECONDS[self.method] if self.seconds is None else self.seconds
        if not seconds >= MIN_SECONDS[self.method]:
            raise ValueError(f"--seconds {seconds:g} is too short for the {self.method} method: "
                             f"at least {MIN_SECONDS[self.method]:g} s")
        return replace(self, seconds=float(seconds))


def described(robot: str | RobotFile) -> RobotFile:
    """The robot to identify on, checked: a time-triggered one (its host's current references
    are what the experiment excites)."""
    rf = checked(robot)
    if rf.schedule != "time-triggered":
        raise ValueError(f"--robot {robot if isinstance(robot, str) else rf.name}: a "
                         f"{rf.schedule} robot; identify excites a time-triggered robot's host")
    return rf


def hardware(rf: RobotFile) -> BoardHardware:
    """The board hardware at the robot's bus rate (a time-triggered period divides 100 ms, so
    the rate is a whole number of hertz)."""
    return replace(DEFAULT_BOARD, can_hz=NS_PER_S // rf.period_ns)


def _run(s: Settings, rf: RobotFile) -> tuple[np.ndarray, np.ndarray, float, JointOptions]:
    """(sent current, measured position, f, the joint's options) while the excitation was on,
    on the robot `rf` running its cascade firmware."""
    assert s.seconds is not None
    start = 512.0 - (150.0 if s.method == "step" else 0.0)
    n = len(rf.joints)
    robot = Robot(RobotConfig(robot=rf, trajectory=hold_pose(start, n), seed=s.seed,
                              alphas=None if s.alpha is None else [s.alpha] * n,
                              sensing=s.sensing, mode="cascade"))
    hw = hardware(rf)
    f = float(hw.can_hz)
    # the holding PID is scaled by each joint's preset's physical K_P, not by a stored
    # identification: the experiment must not depend on its own previous result
    tuning = THESIS_TUNINGS[s.hold]
    hold = PidBank(np.array([tuning.gains(physical_plant(o.preset, hw).kp, f)
                             for o in robot.joint_options]))
    wrapped = ExcitedController(hold, s.joint,
                                excitation(s.method, f, s.seconds, s.amplitude),
                                open_loop=s.method == "step")
    robot.host.controller = wrapped
    robot.run(s.seconds + 0.1)
    k = len(wrapped.signal)  # the periods in which the excitation was on
    return (np.array(wrapped.sent[:k]), np.array(wrapped.measured[:k]), f,
            robot.joint_options[s.joint - 1])


def _step(s: Settings, y: np.ndarray, f: float) -> tuple[Fit, dict]:
    """The step fit, refused when the shaft moves too little or hits the pot's end."""
    if y.max() >= 1020 or y.min() <= 3:
        raise ValueError("step method: the joint reached the end of the pot range; "
                         "shorten --seconds or lower --amplitude")
    d = np.diff(y)[STEP_START - 1:]
    fit, b1 = fit_step(s.amplitude, d, f)
    if not b1 >= MIN_STEP_LSB:
        raise ValueError(f"step method: the shaft moves {b1:.2g} LSB per period at "
                         f"{s.amplitude:g} A (< {MIN_STEP_LSB:g}): the first difference is "
                         "pot quantisation, q cannot be resolved; use --method chirp or sines, "
                         "or a larger --amplitude")
    return fit, {"fit_window_s": [STEP_START / f, len(y) / f],
                 "final_speed_lsb_per_period": b1, "fit_rms_lsb": fit.rms, "points": len(d)}


def _frequency(s: Settings, u: np.ndarray, y: np.ndarray, f: float) -> tuple[Fit, dict]:
    """The frequency-response fit on the points above the pot's resolution."""
    pick = sine_responses if s.method == "sines" else chirp_responses
    hz, resp = pick(u, y, f)  # _run cuts both to the periods the excitation was on
    keep = np.isfinite(resp) & (np.abs(resp) * s.amplitude >= MIN_RESPONSE_LSB)
    hz, resp = hz[keep], resp[keep]
    if len(hz) < MIN_POINTS:
        raise ValueError(f"{s.method} method: only {len(hz)} frequency points move the joint "
                         f"by {MIN_RESPONSE_LSB} LSB or more (need {MIN_POINTS}); "
                         "lengthen --seconds or raise --amplitude")
    fit = fit_response(hz, resp, f)
    excited = [CHIRP_START_HZ, f / 2] if s.method == "chirp" else [SINE_HZ[0], SINE_HZ[-1]]
    return fit, {"excited_hz": excited, "fit_band_hz": [float(hz.min()), float(hz.max())],
                 "points": len(hz), "fit_rms_log": fit.rms}


def identify_settings(settings: Settings) -> dict:
    """Run the identification experiment on the simulated robot and fit the model."""
    s = settings.validated()
    rf = described(s.robot)
    u, y, f, joint = _run(s, rf)
    fit, how = _step(s, y, f) if s.method == "step" else _frequency(s, u, y, f)
    if not (fit.kp > 0 and 0.0 < fit.q < 1.0):
        raise ValueError(f"{s.method} fit failed: K_P = {fit.kp:.3g}, q = {fit.q:.3g}")
    tm = PositionPlant(fit.kp, fit.q, f).tm_s
    tm_se = fit.q_se / (f * fit.q * math.log(fit.q) ** 2)  # delta method through T_m(q)
    warnings = [f"{name} is uncertain: standard error {se / v:.0%} of the value"
                for name, v, se in (("q", fit.q, fit.q_se), ("K_P", fit.kp, fit.kp_se))
                if se > 0.25 * v]
    if fit.q >= 0.9998:
        warnings.append("q is at the fit's upper bound")
    physics = physical_plant(joint.preset, hardware(rf), joint.alpha)
    shown = asdict(s) | {"alpha": joint.alpha, "sensing": joint.sensing}  # as the joint ran
    if s.robot == DEFAULT_ROBOT:
        del shown["robot"]
    return {
        "settings": shown, "samples": len(u), "model": MODEL, "known_delays": KNOWN_DELAYS,
        "band_requested_hz": list(CHIRP_BAND_HZ) if s.method == "chirp" else None, **how,
        "q": fit.q, "kp": fit.kp, "tm_s": tm,
        "std_error": {"q": fit.q_se, "kp": fit.kp_se, "tm_s": tm_se},
        "ci95": {"q": [fit.q - Z95 * fit.q_se, fit.q + Z95 * fit.q_se],
                 "kp": [fit.kp - Z95 * fit.kp_se, fit.kp + Z95 * fit.kp_se],
                 "tm_s": [tm - Z95 * tm_se, tm + Z95 * tm_se]},
        "corr_kp_q": fit.cov_kp_q / (fit.kp_se * fit.q_se) if fit.kp_se * fit.q_se else 0.0,
        "uncertainty": "standard errors from the fit's Jacobian and residual variance, "
                       "s^2 (J^T J)^-1 (residuals taken as independent: model misfit counts "
                       "as noise); ci95 = value +- 1.96 standard errors",
        "warnings": warnings,
        "physics": {"q": physics.q, "kp": physics.kp, "tm_s": physics.tm_s},
    }

