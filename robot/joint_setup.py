"""A time-triggered description's joints made concrete for one run: each joint's options from
the description with the run's overrides on top (`servobus run --mode ...` sets every joint),
and the options the host holds once for all joints (its mode, anti-windup)."""

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from servobus.host.tunings import DEFAULT_ROBOT_KP, TUNINGS, Tuning
from servobus.robot.joint_options import Gains, JointOptions
from servobus.robot.robot_file import RobotFile

# the JointOptions fields a run's config (RobotConfig) may set for every joint
OVERRIDES = ("mode", "sensing", "plant", "anti_windup", "tuning")


def plant_seed(seed: int, joint: int) -> int:
    """The noise seed of joint j's hardware in a robot of seed `seed` (`servobus node` uses
    the same, so a board on a real bus matches its twin in `servobus run`)."""
    return seed * 100 + joint - 1


def joint_options(robot: RobotFile, config: Any = None) -> list[JointOptions]:
    """Every joint's options (joint 1 first): the description's, then `config`'s overrides
    (None, or a field left None: the description's; alphas: one for all, or one per joint)."""
    given = {key: value for key in OVERRIDES
             if (value := getattr(config, key, None)) is not None}
    if isinstance(given.get("tuning"), str):
        given["tuning"] = TUNINGS[given["tuning"]]
    alphas: Sequence[float] | None = getattr(config, "alphas", None)
    if alphas is not None and len(alphas) == 1:
        alphas = list(alphas) * len(robot.joints)
    if alphas is not None and len(alphas) != len(robot.joints):
        raise ValueError(f"alpha: give one number or {len(robot.joints)} (an inertia factor "
                         f"per joint of {robot.name}), got {len(alphas)}")
    out = []
    for k, joint in enumerate(robot.joints):
        if joint.options is None:
            raise ValueError(f"joint {joint.number} of {robot.name} is on a "
                             f"{joint.node}, not a servo board")
        options = dataclasses.replace(joint.options, **given)
        if alphas is not None:
            options = dataclasses.replace(options, alpha=float(alphas[k]))
        out.append(options)
    return out  # HOST_WIDE options: one value for all (checked at load, `given` sets all)


def pid_gains(options: list[JointOptions], kp: float, f_can: float) -> np.ndarray:
    """The host's PID gains, a row (r_P, r_I, r_D) per joint: a named or relative tuning on the
    plant of gain `kp` at the bus rate `f_can`, or the joint's explicit gains."""
    rows = [(g.r_p, g.r_i, g.r_d) if isinstance(g := o.tuning, Gains) else g.gains(kp, f_can)
            for o in options]
    return np.array(rows, dtype=float)


def host_gains(options: list[JointOptions], robot: RobotFile) -> np.ndarray:
    """The host's gains for `robot`'s joints: named and relative tunings scaled by the default
    robot's identified K_P at the robot's own bus rate (one sample per period)."""
    return pid_gains(options, DEFAULT_ROBOT_KP, 1e9 / robot.period_ns)


def tuning_name(options: list[JointOptions]) -> str:
    """The tuning's name when every joint has the same named one, else 'per-joint'."""
    tunings = {o.tuning for o in options}
    only = next(iter(tunings))
    return only.name if len(tunings) == 1 and isinstance(only, Tuning) else "per-joint"
