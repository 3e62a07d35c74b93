"""`servobus identify`: excite one joint of the emulated robot and fit P(z)."""

import numpy as np

from servobus.host.identify import (
    AMPLITUDE_A,
    ExcitedController,
    Method,
    chirp_responses,
    excitation,
    fit_response,
    fit_step,
    hold_pose,
    sine_responses,
)
from servobus.host.position_loop import physical_plant
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import HSR_5995TG
from servobus.robot.assembly import Robot, RobotConfig

DEFAULT_SECONDS = {"chirp": 30.0, "sines": 20.0, "step": 0.4}
MIN_RESPONSE_LSB = 0.5  # frequency points whose position amplitude is below this are dropped


def identify(joint: int, method: Method, seconds: float | None = None, seed: int = 0,
             alpha: float = 1.0) -> dict:
    """Run the identification experiment on the simulated robot and fit the model."""
    if not 1 <= joint <= 12:
        raise ValueError(f"--joint must be 1..12, got {joint}")
    seconds = seconds or DEFAULT_SECONDS[method]
    start = 512.0 - (150.0 if method == "step" else 0.0)
    robot = Robot(RobotConfig(trajectory=hold_pose(start), seed=seed, alphas=[alpha] * 12))
    f = float(DEFAULT_BOARD.can_hz)
    wrapped = ExcitedController(robot.host.controller, joint, excitation(method, f, seconds),
                                open_loop=method == "step")
    robot.host.controller = wrapped
    robot.run(seconds + 0.1)
    u, y = np.array(wrapped.sent), np.array(wrapped.measured)
    physics = physical_plant(HSR_5995TG, DEFAULT_BOARD, alpha)
    result: dict = {"joint": joint, "method": method, "seconds": seconds, "samples": len(u)}
    if method == "step":
        q, kp = fit_step(0.2, y[3:], f)  # the step reaches the joint 2-3 periods later
        result |= {"q": q, "kp": kp}
    else:
        n = min(len(u), len(y))
        pick = sine_responses if method == "sines" else chirp_responses
        hz, resp = pick(u[:n], y[:n], f)
        keep = np.abs(resp) * AMPLITUDE_A >= MIN_RESPONSE_LSB  # above the pot's resolution
        hz, resp = hz[keep], resp[keep]
        q, kp, rms = fit_response(hz, resp, f)
        result |= {"q": q, "kp": kp, "fit_rms_log": rms, "points": len(hz)}
    result["tm_s"] = -1.0 / (f * np.log(result["q"]))
    result["physics"] = {"q": physics.q, "kp": physics.kp, "tm_s": physics.tm_s}
    return result
