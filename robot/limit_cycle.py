"""The real robot's limit cycle at rest (SPEC 4.2 "Known real-robot defect"), on one emulated joint.

Set-up: one board (firmware + plant) and the host's PID, exchanging exactly what the CAN frames
carry through the firmware's own CAN handlers: at each tick the board latches its position and
applies the pending actuation; the host's output becomes the pending actuation for the next
tick.  The time-triggered protocol makes the bus invisible to the loop (an exact z^-1 whatever
the frame timing) and the emulated joints are mechanically independent, so this is the robot's
loop for one joint at ~100x the speed of the whole robot.

The joint is one of a described time-triggered robot (SPEJBL's joint 1 by default): its servo
preset, inertia factor, plant model, sensing and tuning are the description's, the tick its
period; sensing and tuning given in the config override the description's.  The joint holds
the position it starts at, after a kick of ``kick_lsb`` (the reference starts that far away;
the first ``settle_s`` are discarded).  Modes: ``cascade`` (host PID -> current
reference -> board PI) or ``voltage-pid`` (host PID -> PWM duty in the board's duty mode: the
thesis' plain PID on the PWM, no current loop).  The classifier is in ``analysis.hold_states``.
"""

import dataclasses
from dataclasses import dataclass
from typing import Literal

import numpy as np

from servobus.analysis.hold_states import WINDOW_S, classify, summarize
from servobus.bus.scheduler import NS_PER_S
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.host.pid import PidBank
from servobus.host.position_loop import voltage_plant
from servobus.host.tunings import DEFAULT_ROBOT_KP, Tuning, tuning
from servobus.plant.build import OffsetStage, PlantOptions, zero_offset
from servobus.plant.rig import TF_I_WINDING, TI_IREF, TI_MEAS, BoardRig
from servobus.presets.board import DEFAULT_BOARD, Sensing
from servobus.presets.firmware_image import Q12_AMP
from servobus.robot.joint_options import Gains, JointOptions
from servobus.robot.joint_setup import pid_gains
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile

Mode = Literal["cascade", "voltage-pid"]
HOLD_MODES: tuple[Mode, ...] = ("cascade", "voltage-pid")
DEFAULT_JOINT = ("spejbl", 1)  # the joint held unless told (its report omits robot and joint)


@dataclass(frozen=True)
class HoldConfig:
    """One long hold at a constant position of one joint of a described robot."""

    robot: str | RobotFile = DEFAULT_JOINT[0]
    joint: int = DEFAULT_JOINT[1]
    sensing: Sensing | None = None  # None: the joint's, from the description
    tuning: str | None = None  # a name of host.tunings.TUNINGS; None: the joint's
    integral: bool = True
    load_torque: float = 0.0  # N m on the output shaft
    mode: Mode = "cascade"
    seconds: float = 60.0
    seed: int = 0
    kick_lsb: int = 3
    settle_s: float = 2.0
    zero_offset_a: float | None = None  # None: the board's as-built offset
    offset_stage: OffsetStage = "after-rc"


@dataclass(frozen=True)
class HeldJoint:
    """The joint a hold runs: its options (the config's overrides applied) and tick rate."""

    name: str  # 'spejbl joint 1'
    options: JointOptions
    f: float  # the robot's tick rate, Hz

    @property
    def per_tick(self) -> int:
        """PWM periods per tick."""
        return round(DEFAULT_BOARD.pwm_hz / self.f)


@dataclass
class HoldTrace:
    """Per tick: position (LSB), reference, command (A or duty), measured and true current (A,
    means over the tick); per PWM period: the same currents and the board's i_w (A); the joint
    held."""

    position: np.ndarray
    reference: float
    command: np.ndarray
    measured_a: np.ndarray
    true_a: np.ndarray
    fine_measured_a: np.ndarray
    fine_true_a: np.ndarray
    fine_iw_a: np.ndarray
    joint: HeldJoint


def held_joint(cfg: HoldConfig) -> HeldJoint:
    """The joint of `cfg.robot` the hold runs (ValueError naming the robot's joints)."""
    rf = checked(cfg.robot)
    if rf.schedule != "time-triggered":
        raise ValueError(f"--robot {rf.name}: a {rf.schedule} robot; the hold runs a "
                         "time-triggered robot's servo board and host PID")
    if not 1 <= cfg.joint <= len(rf.joints):
        raise ValueError(f"--joint must be 1..{len(rf.joints)} (the joints of {rf.name}), "
                         f"got {cfg.joint}")
    options = rf.joints[cfg.joint - 1].options
    assert options is not None  # a time-triggered robot's joints are on boards
    given: dict = {"sensing": cfg.sensing} if cfg.sensing is not None else {}
    if cfg.tuning is not None:
        given["tuning"] = tuning(cfg.tuning)
    return HeldJoint(f"{rf.name} joint {cfg.joint}", dataclasses.replace(options, **given),
                     NS_PER_S / rf.period_ns)


def tuning_label(joint: HeldJoint) -> str:
    """The held joint's tuning as the report names it: its name, or 'gains' (explicit)."""
    held = joint.options.tuning
    return held.name if isinstance(held, Tuning) else "gains"


def controller(cfg: HoldConfig, joint: HeldJoint) -> PidBank:
    """The host PID of the joint's tuning (in A as a run scales it, or in duty for
    voltage-pid), I term optional."""
    if cfg.mode == "cascade":
        bank = PidBank(pid_gains([joint.options], DEFAULT_ROBOT_KP, joint.f))
    elif isinstance(joint.options.tuning, Gains):
        raise ValueError("--mode voltage-pid: the joint's tuning is explicit gains in A per "
                         "LSB; give a named tuning (--tuning R2)")
    else:
        plant = voltage_plant(joint.options.preset)
        bank = PidBank.of(joint.options.tuning, plant.kp, joint.f, 1)
    if not cfg.integral:
        bank.r_i[:] = 0.0
    return bank


def plant_options(cfg: HoldConfig, joint: HeldJoint) -> PlantOptions:
    """The joint's hardware for this hold."""
    return PlantOptions(sensing=joint.options.sensing,  # type: ignore[arg-type]
                        plant=joint.options.plant,  # type: ignore[arg-type]
                        alpha=joint.options.alpha, rotor="free", load_torque=cfg.load_torque,
                        seed=cfg.seed, zero_offset_a=cfg.zero_offset_a,
                        offset_stage=cfg.offset_stage)


def simulate(cfg: HoldConfig, joint: HeldJoint) -> HoldTrace:
    """Run the hold; deterministic for a given config."""
    if cfg.mode not in HOLD_MODES:
        raise ValueError(f"--mode {cfg.mode!r}: use one of {', '.join(HOLD_MODES)}")
    if cfg.seconds < cfg.settle_s + 2 * WINDOW_S:
        raise ValueError(f"--seconds must be at least {cfg.settle_s + 2 * WINDOW_S:g}")
    if not -1.0 <= cfg.load_torque <= 1.0:
        raise ValueError(f"--load-torque {cfg.load_torque}: keep it within +-1 N m (stall 2.4)")
    mode = m.MODE_CURRENT if cfg.mode == "cascade" else m.MODE_DUTY
    rig = BoardRig(joint.options.preset, options=plant_options(cfg, joint), mode=mode)
    pid = controller(cfg, joint)
    per_tick = joint.per_tick
    ticks = round(cfg.seconds * joint.f)
    rig.run(per_tick, record=False)  # one full pot block before the first tick
    cols = np.zeros((ticks, 4))
    fine = []
    reference = float("nan")
    for k in range(ticks):
        board.can_tick(rig.ram, rig.rom)
        x = float(rig.ram[m.POS_TX])
        if k == 0:
            reference = x + cfg.kick_lsb
        u = float(pid.step(np.array([reference]), np.array([x]))[0])
        rig.actuate(u)
        tr = rig.run(per_tick)
        meas = rig.amps(tr.ints[:, TI_MEAS])
        cols[k] = x, u, meas.mean(), tr.floats[:, TF_I_WINDING].mean()
        fine.append(np.column_stack([meas, tr.floats[:, TF_I_WINDING],
                                     tr.ints[:, TI_IREF] / Q12_AMP]))
    rows = np.concatenate(fine)  # ticks >= 1: the seconds were checked above
    return HoldTrace(cols[:, 0], reference, cols[:, 1], cols[:, 2], cols[:, 3],
                     rows[:, 0], rows[:, 1], rows[:, 2], joint)


def analyze(cfg: HoldConfig) -> tuple[dict, HoldTrace, list[str]]:
    """The report of one hold (JSON keys of `servobus analyze limit-cycle`), its trace and
    the state of every window after the settling time."""
    joint = held_joint(cfg)
    trace = simulate(cfg, joint)
    f = joint.f
    skip = round(cfg.settle_s * f)
    pos, cmd = trace.position[skip:], trace.command[skip:]
    states = classify(pos, cmd, f)
    robot = cfg.robot if isinstance(cfg.robot, str) else cfg.robot.name
    which = {} if (robot, cfg.joint) == DEFAULT_JOINT else {"robot": robot, "joint": cfg.joint}
    report = {
        **which, "sensing": joint.options.sensing, "mode": cfg.mode,
        "tuning": tuning_label(joint), "integral": cfg.integral,
        "load_torque_nm": cfg.load_torque, "seconds": cfg.seconds, "seed": cfg.seed,
        "zero_offset_a": zero_offset(DEFAULT_BOARD, plant_options(cfg, joint)),
        "offset_stage": cfg.offset_stage, "reference_lsb": trace.reference,
        "mean_error_lsb": float(np.mean(pos - trace.reference)),
    }
    report |= summarize(states, pos, cmd, f, "iw_swing_a" if cfg.mode == "cascade"
                        else "duty_swing")
    return report, trace, states
