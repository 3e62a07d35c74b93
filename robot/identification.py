"""`servobus identify`: excite one joint of the emulated robot and fit P(z), with the fit band,
the model's known delays and the standard errors of q, K_P and T_m stated in the result."""

import math
from dataclasses import asdict, dataclass, replace

import numpy as np

from servobus.bus.schema import JOINTS
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
from servobus.presets.board import DEFAULT_BOARD, SENSING_CHOICES, Sensing
from servobus.presets.servos import HSR_5995TG
from servobus.robot.assembly import Robot, RobotConfig

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
    alpha: float = 1.0
    sensing: Sensing = "supply-unipolar"
    amplitude: float = AMPLITUDE_A
    hold: str = "R2"  # the thesis tuning that holds the joints during the experiment

    def validated(self) -> "Settings":
        """These settings with the default length filled in; ValueError on nonsense."""
        if not 1 <= self.joint <= JOINTS:
            raise ValueError(f"--joint must be 1..{JOINTS}, got {self.joint}")
        if self.sensing not in SENSING_CHOICES:
            raise ValueError(f"--sensing must be one of {', '.join(SENSING_CHOICES)}")
        if not 0.0 < self.amplitude <= 1.0:
            raise ValueError(f"--amplitude must be in (0, 1] A, got {self.amplitude}")
        if self.hold not in THESIS_TUNINGS:
            raise ValueError(f"--hold must be one of {', '.join(THESIS_TUNINGS)}")
        if not self.alpha > 0:
            raise ValueError(f"--alpha must be positive, got {self.alpha}")
        seconds = DEFAULT_SECONDS[self.method] if self.seconds is None else self.seconds
        if not seconds >= MIN_SECONDS[self.method]:
            raise ValueError(f"--seconds {seconds:g} is too short for the {self.method} method: "
                             f"at least {MIN_SECONDS[self.method]:g} s")
        return replace(self, seconds=float(seconds))


def _run(s: Settings) -> tuple[np.ndarray, np.ndarray, float]:
    """(sent current, measured position, f) while the excitation was on, on the emulated
    robot."""
    assert s.seconds is not None
    start = 512.0 - (150.0 if s.method == "step" else 0.0)
    robot = Robot(RobotConfig(trajectory=hold_pose(start), seed=s.seed, alphas=[s.alpha] * JOINTS,
                              sensing=s.sensing))
    f = float(DEFAULT_BOARD.can_hz)
    # the holding PID is scaled by the preset's physical K_P, not by a stored identification:
    # the experiment must not depend on its own previous result
    kp = physical_plant(HSR_5995TG, DEFAULT_BOARD).kp
    hold = PidBank.of(THESIS_TUNINGS[s.hold], kp, f, JOINTS)
    wrapped = ExcitedController(hold, s.joint,
                                excitation(s.method, f, s.seconds, s.amplitude),
                                open_loop=s.method == "step")
    robot.host.controller = wrapped
    robot.run(s.seconds + 0.1)
    n = len(wrapped.signal)  # the periods in which the excitation was on
    return np.array(wrapped.sent[:n]), np.array(wrapped.measured[:n]), f


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
    u, y, f = _run(s)
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
    physics = physical_plant(HSR_5995TG, DEFAULT_BOARD, s.alpha)
    return {
        "settings": asdict(s), "samples": len(u), "model": MODEL, "known_delays": KNOWN_DELAYS,
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

