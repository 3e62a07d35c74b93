"""A time-triggered robot on the simulated bus, built from its description (a robot file:
``robot.robot_file``; SPEJBL's by default): the time trigger, a servo board per joint in one
BoardBank, the PID host.

Robot-level fault lines (besides the bus faults of ``bus.faults``):

    node 5 silent at 1.0s [for 50ms]     the board of ID 5 (SPEJBL: JOINT_5) stops talking
                                         (and listening)
    tick drop at 2.0s                    the time trigger does not send that tick
    host delay 3ms at 1.5s               the host's computation at 1.5 s takes 3 ms longer
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from servobus.bus.busload import busload
from servobus.bus.faults import BUS_FAULTS, FaultScriptError
from servobus.bus.scheduler import NS_PER_S
from servobus.bus.schema import TIME_TRIGGERED_REQUIRED, Schema
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.host.period_log import PeriodLog
from servobus.host.pid import AntiWindup, PidBank
from servobus.host.supervisor import Supervisor
from servobus.host.trajectory import Trajectory
from servobus.host.tunings import DEFAULT_ROBOT_KP, Tuning
from servobus.presets.board import DEFAULT_BOARD, Sensing
from servobus.robot.advance import ENGINES
from servobus.robot.engine_sync import CompiledEngine, unsupported
from servobus.robot.joint_setup import joint_options, tuning_name
from servobus.robot.node_build import board_nodes, host_node, tick_node, trajectory_of
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile
from servobus.robot.run_base import RobotRun
from servobus.robot.script_lines import script_time, script_words

# verb -> its words (upper case: a value); `fit_words` names a word that does not fit
ACTIONS = {"release": "release N at T", "engage": "engage N at T", "freeze": "freeze N at T",
           "pause": "pause at T", "resume": "resume at T", "scrub": "scrub F at T"}
# the robot's own fault lines (the rest are bus faults)
ROBOT_FAULTS = {"node": "node N silent at T [for D]", "tick": "tick drop at T",
                "host": "host delay D at T"}


def _joint(kind: str, line: str, arg: str, joints: int) -> int:
    """The joint N (1..joints) of an action ('release N at T') or a fault ('node N silent …')."""
    if not arg.isdigit() or not 1 <= int(arg) <= joints:
        raise FaultScriptError(f"{kind} {line!r}: joints are 1..{joints}"
                               f"{' or all' if kind == 'action' else ''}, got {arg!r}")
    return int(arg)


def _scrub_fraction(line: str, arg: str) -> float:
    """The F of 'scrub F at T': where in the current interval to jump, 0..1."""
    try:
        fraction = float(arg)
    except ValueError:
        fraction = math.nan
    if not 0.0 <= fraction <= 1.0:  # NaN fails this too
        raise FaultScriptError(f"action {line!r}: scrub takes a fraction 0..1 of the current "
                               f"interval, got {arg!r}")
    return fraction


@dataclass
class RobotConfig:
    """Everything `servobus run` can vary: the robot (a shipped name, a description file, or a
    loaded one) and the run; an option left None is the description's (SPEJBL's: cascade,
    supply-unipolar, switching, alpha 1, 2-byte MEAS, soft anti-windup, R2, 200 us), one given
    here applies to every joint."""

    robot: str | RobotFile = "spejbl"
    mode: str | None = None
    sensing: Sensing | None = None
    plant: str | None = None
    alphas: Sequence[float] | None = None  # one for all joints, or one per joint
    seed: int = 0
    faults: Sequence[str] = ()
    log_path: str | None = None
    realtime_factor: float | None = None
    meas_bytes: int | None = None
    anti_windup: AntiWindup | None = None
    tuning: str | Tuning | None = None  # a name of host.tunings.TUNINGS, or a Tuning
    trajectory: Trajectory | None = None  # None: the description's, else the shipped gait
    compute_ns: int | None = None  # the host's computation per period
    actions: Sequence[str] = ()
    keep_records: bool = False  # keep every period's record and load window (for a plot)
    engine: str = "auto"
    duration_s: float | None = None  # the run's length, when known: every fault and action in it


@dataclass
class Robot(RobotRun):
    """A ready-to-run time-triggered robot; `run` advances it and `report` summarises."""

    config: RobotConfig = field(default_factory=RobotConfig)

    def __post_init__(self) -> None:
        cfg = self.config
        if cfg.engine not in ENGINES:
            raise ValueError(f"engine {cfg.engine!r}: use {', '.join(ENGINES)}")
        rf = self.description = checked(cfg.robot)
        if rf.schedule != "time-triggered":
            raise ValueError(f"{rf.name} is a {rf.schedule} robot: a time-triggered one runs "
                             "here (a cyclic one on robot.described.DescribedRobot)")
        self.joint_options = joints = joint_options(rf, cfg)
        self.joints = n = len(joints)
        self.mode = joints[0].mode
        self.meas_bytes = cfg.meas_bytes if cfg.meas_bytes is not None else rf.meas_bytes
        host_keys = rf.node_keys[next(s.name for s in rf.nodes if s.kind == "host")]
        compute_ns = cfg.compute_ns if cfg.compute_ns is not None else host_keys["compute_ns"]
        self.schema = Schema(rf.dbc, required=TIME_TRIGGERED_REQUIRED)
        self.trajectory = cfg.trajectory or trajectory_of(rf)
        if self.trajectory.poses.shape[1] != n:
            raise ValueError(f"the trajectory has {self.trajectory.poses.shape[1]} joints, "
                             f"{rf.name} {n}")
        self._start(rf, self.schema, cfg.realtime_factor, cfg.keep_records)
        start = self.trajectory.poses[0]
        self.boards = board_nodes(rf, range(1, n + 1), joints, self.schema, cfg.seed,
                                  self.meas_bytes,
                                  theta0=[(x - 512.0) / o.preset.sensed_by(
                                      DEFAULT_BOARD).pot_lsb_per_rad
                                          for x, o in zip(start, joints, strict=True)])
        self.bank = self.boards[0].bank
        for rig, x in zip(self.bank.rigs, start, strict=True):
            rig.ram[m.XW_REF] = int(x)
        # in local-p the host runs no PID (it sends set-points): no tuning to name
        self.tuning_name = "none (local-p)" if self.mode == "local-p" else tuning_name(joints)
        self.tick = tick_node(rf, self.schema, cfg.seed)
        records = (PeriodLog(None), Supervisor(history=None)) if cfg.keep_records else \
            (PeriodLog(), Supervisor())  # else the latest periods only (bounded memory)
        self.host = host_node(rf, self.schema, joints, self.trajectory, self.meas_bytes,
                              compute_ns, records=records[0], supervisor=records[1])
        ctl = self.host.controller  # the host's gains, a row per joint, for the report
        assert isinstance(ctl, PidBank)  # host_node builds one
        self.gains = np.stack((ctl.r_p, ctl.r_i, ctl.r_d), axis=1)
        self.host_delays: list[tuple[int, int]] = []
        self.host.extra_delay = self._host_delay
        self._end_ns = None if cfg.duration_s is None else round(cfg.duration_s * NS_PER_S)
        bus_faults = self._robot_faults(cfg.faults)
        self.engine, self.engine_fallback = self._choose_engine(
            cfg.engine, bus_faults, lambda: unsupported(self))
        self._check_times(self._end_ns)
        if self.engine == "reference":
            self._reference_medium([self.tick, *self.boards, self.host], bus_faults,
                                   self.schema.sent_ids(self.meas_bytes), cfg.seed, self._end_ns)
        else:
            if self.engine == "compiled":
                self.compiled = CompiledEngine(self)
            nodes: list[Any] = [self.tick, *self.boards, self.host]
            self.lean = self._wire({n.name: n for n in nodes})
        for line in cfg.actions:
            self._schedule_action(line)
        self._open_log(cfg.log_path)

    def _host_delay(self, now: int) -> int:
        for k, (at, extra) in enumerate(self.host_delays):
            if now >= at:
                del self.host_delays[k]
                return extra
        return 0

    def _robot_faults(self, lines: Sequence[str]) -> list[str]:
        """Apply the robot-level faults; return the bus-level lines."""
        rest = []
        for line in lines:
            first = (line.split() or [""])[0]
            if first not in ROBOT_FAULTS:
                if first not in BUS_FAULTS:
                    script_words("fault", line, ROBOT_FAULTS)  # an error naming the word
                rest.append(line)
                continue
            values = script_words("fault", line, ROBOT_FAULTS)
            if first == "node":
                rest.append(self._node_fault(line))
            elif first == "tick":
                at_ns = script_time("fault", line, values[0])
                period = self.tick.period_ns
                self._timed.append((line, round(at_ns / period) * period,
                                    f"the tick nearest {at_ns / 1e9:g} s, at"))
                self.tick.skip_at_ns.append(at_ns)
            else:
                delay, at = values
                at_ns = script_time("fault", line, at)
                self._timed.append((line, at_ns, "at"))
                self.host_delays.append((at_ns, script_time("fault", line, delay)))
        return rest

    def _tuning_detail(self, names: list[str]) -> dict[str, Any]:
        """The tuning and its gains: one named tuning's corner frequencies, loop gain and gains;
        else each board's gains; in local-p each board's own loop (its servo's law)."""
        if self.mode == "local-p":
            return {name: {"servo": o.preset.name, "k_theta": o.preset.position_gain,
                           "k_omega": o.preset.k_omega, "loop_hz": o.preset.loop_hz}
                    for name, o in zip(names, self.joint_options, strict=True)}
        tuning = self.joint_options[0].tuning
        r_p, r_i, r_d = (float(x) for x in self.gains[0])
        if self.tuning_name == "per-joint" or not isinstance(tuning, Tuning):
            return {name: dict(zip(("r_p", "r_i", "r_d"), map(float, row), strict=True))
                    for name, row in zip(names, self.gains, strict=True)}
        return {"omega_d": tuning.omega_d, "omega_i": tuning.omega_i,
                "K_times_KP": tuning.k_kp, "kp": DEFAULT_ROBOT_KP, "r_p": r_p, "r_i": r_i,
                "r_d": r_d}

    def _schedule_action(self, line: str) -> None:
        """Operator actions at a time before the run's end: 'release 3 at 1s', 'freeze all at
        2s', 'engage 3 at 3s', 'pause at 1s', 'resume at 2s', 'scrub 0.5 at 2.5s'; an unknown
        word, an argument out of its range or a time after the end is an error (never ignored
        or clamped)."""
        words = line.split()
        verb = words[0] if words else ""
        if verb in ("pause", "resume") and len(words) == 4:
            raise FaultScriptError(f"action {line!r}: {verb} takes no argument "
                                   f"(use {ACTIONS[verb]})")
        if words[1:2] == ["at"] and verb == "scrub":
            _scrub_fraction(line, "")  # the fraction left out: its error
        if words[1:2] == ["at"] and verb in ("release", "engage", "freeze"):
            _joint("action", line, "", self.joints)  # the joint left out: its error
        *args, at_text = script_words("action", line, ACTIONS)
        host, player = self.host, self.host.player
        if verb in ("release", "engage", "freeze"):
            joint = 0 if args[0] == "all" else _joint("action", line, args[0], self.joints)
            action = lambda: getattr(host, verb)(joint)  # noqa: E731
        elif verb == "scrub":
            fraction = _scrub_fraction(line, args[0])
            action = lambda: player.scrub(fraction)  # noqa: E731
        else:
            action = lambda: setattr(player, "paused", verb == "pause")  # noqa: E731
        self.env.schedule(script_time("action", line, at_text, self._end_ns), action)

    def report(self, wall_s: float, compile_s: float = 0.0) -> dict:
        """The final report (`servobus run --json` keys); `wall_s` the run's wall time,
        `compile_s` numba's compiles for it (not in `wall_s`)."""
        sup = self.host.supervisor
        rms, worst = self.host.records.tracking(self.joints)
        names = [b.name for b in self.boards]
        trips = {names[k]: int(r.ram[m.STATUS]) for k, r in enumerate(self.bank.rigs)
                 if r.ram[m.STATUS]}
        timeouts = {names[k]: int(r.ram[m.ACT_TIMEOUTS])
                    for k, r in enumerate(self.bank.rigs) if r.ram[m.ACT_TIMEOUTS]}
        timed_out = [names[k] for k, r in enumerate(self.bank.rigs)
                     if board.actuation_timed_out(r.ram)]
        predicted = busload(self.schema, meas_bytes=self.meas_bytes,
                            local_p=self.mode == "local-p")["exact"]
        return {
            "tuning": self.tuning_name, "mode": self.mode,
            "tuning_detail": self._tuning_detail(names),
            **self.run_fields(wall_s, compile_s),
            "ticks": sup.ticks, "slips": sup.slips,
            "servo_faults": {names[j - 1]: n for j, n in sorted(sup.servo_faults.items())},
            "host_window_measured_s": sup.window_stats(),
            "host_window_predicted_s": predicted["host_window_s"],
            "host_window_thesis_predicted_s": predicted["host_window_thesis_s"],
            "host_window_used_max_s": sup.used_max_ns / 1e9,
            "deadline_misses": sup.deadline_misses,
            "tracking_rms_lsb": rms,
            "tracking_max_lsb": worst,
            "current_limit_events": self.host.limit_events,
            "trips": trips,
            "actuation_timeouts": timeouts,
            "actuation_timed_out_at_end": timed_out,
            "rx_faults": self.host.rx_faults + sum(b.rx_faults for b in self.boards),
            "tx_faults": self.host.tx_faults + self.tick.tx_faults +
            sum(b.tx_faults for b in self.boards),
            **self.bus_fields(predicted["load_pct_mean"]),
        }
