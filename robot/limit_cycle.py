"""The real robot's limit cycle at rest (SPEC 4.2 "Known real-robot defect"), on one emulated joint.

Set-up: one board (firmware + plant) and the host's PID, exchanging exactly what the CAN frames
carry through the firmware's own CAN handlers: at each tick the board latches its position and
applies the pending actuation; the host's output becomes the pending actuation for the next
tick.  The time-triggered protocol makes the bus invisible to the loop (an exact z^-1 whatever
the frame timing) and the emulated joints are mechanically independent, so this is the robot's
loop for one joint at ~100x the speed of the whole robot.

The joint holds the position it starts at, after a kick of ``kick_lsb`` (the reference starts
that far away; the first ``settle_s`` are discarded).  Modes: ``cascade`` (host PID -> current
reference -> board PI) or ``voltage-pid`` (host PID -> PWM duty in the board's duty mode: the
thesis' plain PID on the PWM, no current loop).  The classifier is in ``analysis.hold_states``.
"""

from dataclasses import dataclass
from typing import Literal

import numpy as np

from servobus.analysis.hold_states import WINDOW_S, classify, summarize
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.host.pid import PidBank
from servobus.host.position_loop import voltage_plant
from servobus.host.tunings import tuning
from servobus.plant.build import OffsetStage, PlantOptions, zero_offset
from servobus.plant.rig import TF_I_WINDING, TI_IREF, TI_MEAS, BoardRig
from servobus.presets.board import DEFAULT_BOARD, Sensing
from servobus.presets.firmware_image import Q12_AMP
from servobus.robot.joint_setup import default_plant

Mode = Literal["cascade", "voltage-pid"]
HOLD_MODES: tuple[Mode, ...] = ("cascade", "voltage-pid")


@dataclass(frozen=True)
class HoldConfig:
    """One long hold at a constant position."""

    sensing: Sensing = "supply-unipolar"
    tuning: str = "R2"
    integral: bool = True
    load_torque: float = 0.0  # N m on the output shaft
    mode: Mode = "cascade"
    seconds: float = 60.0
    seed: int = 0
    kick_lsb: int = 3
    settle_s: float = 2.0
    zero_offset_a: float | None = None  # None: the board's as-built offset
    offset_stage: OffsetStage = "after-rc"


@dataclass
class HoldTrace:
    """Per tick: position (LSB), reference, command (A or duty), measured and true current (A,
    means over the tick); per PWM period: the same currents and the board's i_w (A)."""

    position: np.ndarray
    reference: float
    command: np.ndarray
    measured_a: np.ndarray
    true_a: np.ndarray
    fine_measured_a: np.ndarray
    fine_true_a: np.ndarray
    fine_iw_a: np.ndarray


def controller(cfg: HoldConfig) -> PidBank:
    """The host PID of the chosen tuning (in A, or in duty for voltage-pid), I term optional."""
    plant = default_plant() if cfg.mode == "cascade" else voltage_plant()
    bank = PidBank.of(tuning(cfg.tuning), plant.kp, plant.f, 1)
    if not cfg.integral:
        bank.r_i[:] = 0.0
    return bank


def plant_options(cfg: HoldConfig) -> PlantOptions:
    """The joint's hardware for this hold."""
    return PlantOptions(sensing=cfg.sensing, rotor="free", load_torque=cfg.load_torque,
                        seed=cfg.seed, zero_offset_a=cfg.zero_offset_a,
                        offset_stage=cfg.offset_stage)


def simulate(cfg: HoldConfig) -> HoldTrace:
    """Run the hold; deterministic for a given config."""
    if cfg.mode not in HOLD_MODES:
        raise ValueError(f"--mode {cfg.mode!r}: use one of {', '.join(HOLD_MODES)}")
    if cfg.seconds < cfg.settle_s + 2 * WINDOW_S:
        raise ValueError(f"--seconds must be at least {cfg.settle_s + 2 * WINDOW_S:g}")
    if not -1.0 <= cfg.load_torque <= 1.0:
        raise ValueError(f"--load-torque {cfg.load_torque}: keep it within +-1 N m (stall 2.4)")
    mode = m.MODE_CURRENT if cfg.mode == "cascade" else m.MODE_DUTY
    rig = BoardRig(options=plant_options(cfg), mode=mode)
    pid = controller(cfg)
    per_tick = DEFAULT_BOARD.periods_per_tick
    ticks = round(cfg.seconds * DEFAULT_BOARD.can_hz)
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
                     rows[:, 0], rows[:, 1], rows[:, 2])


def analyze(cfg: HoldConfig) -> tuple[dict, HoldTrace, list[str]]:
    """The report of one hold (JSON keys of `servobus analyze limit-cycle`), its trace and
    the state of every window after the settling time."""
    trace = simulate(cfg)
    f = float(DEFAULT_BOARD.can_hz)
    skip = round(cfg.settle_s * f)
    pos, cmd = trace.position[skip:], trace.command[skip:]
    states = classify(pos, cmd, f)
    report = {
        "sensing": cfg.sensing, "mode": cfg.mode, "tuning": cfg.tuning,
        "integral": cfg.integral, "load_torque_nm": cfg.load_torque, "seconds": cfg.seconds,
        "seed": cfg.seed, "zero_offset_a": zero_offset(DEFAULT_BOARD, plant_options(cfg)),
        "offset_stage": cfg.offset_stage, "reference_lsb": trace.reference,
        "mean_error_lsb": float(np.mean(pos - trace.reference)),
    }
    report |= summarize(states, pos, cmd, f, "iw_swing_a" if cfg.mode == "cascade"
                        else "duty_swing")
    return report, trace, states
