"""A cyclic robot described in a file (robot.robot_file: a central, 1..15 high-power boards, at
most one servo board) on the simulated bus: its nodes built by kind, the load meter, fault
scripts, the log, the run loop, the report.  The same node objects run on a real bus
(`servobus node CENTRAL|HP_b|SERVO_BOARD --robot ...`).  The nodes are built central first, then the
high-power boards, then the servo board, each kind in the file's order.

Two media, one set of nodes: the period engine's LeanBus (``engine="period"``, the default where
it applies: frames as bytes, the same arbitration, bit times and delivery order as the reference
medium; each node hears the frames the DBC names it a receiver of, its hot frames as bytes
through its ``byte_handlers``, the rare ones as can.Message), and the reference path's python-can
Medium (``engine="reference"``, and every run with a bus fault script: error frames, silent
nodes).  Both give the same log frame by frame (tests/robot/test_guroo_run.py,
tests/robot/test_cyclic_shapes.py), and so does the compiled engine (``guroo_sync``).

Robot-level fault lines (besides the bus faults of ``bus.faults``):

    node 3 silent at 1.0s [for 50ms]     board 3 (its DIP-switch ID) stops talking and listening
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from servobus.bus.busload_cyclic import busload_cyclic
from servobus.bus.faults import BUS_FAULTS
from servobus.bus.node import Node
from servobus.bus.scheduler import NS_PER_S
from servobus.bus.schema import Schema
from servobus.presets.guroo import Board
from servobus.robot.description import NodeSpec
from servobus.robot.file_keys import RobotFileError
from servobus.robot.node_kinds import READINGS
from servobus.robot.robot_file import RobotFile
from servobus.robot.run_base import RobotRun


@dataclass
class DescribedConfig:
    """What `servobus run --robot NAME` can vary for a described robot."""

    seed: int = 0
    faults: Sequence[str] = ()
    log_path: str | None = None
    realtime_factor: float | None = None
    keep_records: bool = False  # keep the load windows and the tracking samples (for a plot)
    loop: str | None = None  # every high-power board's loop (None: each board's from the file)
    gait_path: str | None = None  # the central's gait (None: the file's trajectory)
    engine: str = "auto"
    duration_s: float | None = None  # the run's length, when known: every fault in it


KIND_ORDER = ("central", "hp-board", "servo-board")  # the order the nodes are built in


def _board(spec: NodeSpec) -> Board:
    """A board of the central's shape from its spec."""
    return Board(spec.name, spec.board, spec.joints)


def build_node(spec: NodeSpec, robot: RobotFile, schema: Schema, config: DescribedConfig
               ) -> Node:
    """The node of `spec` in `robot` (GuRoo's kinds), seeded from the run's seed and its board
    ID; an hp-board with its file's loop (unless the run's `loop` overrides it) and readings of
    the printed firmware (node_kinds.READINGS)."""
    seed = config.seed * 100 + spec.board
    if spec.kind == "central":
        from servobus.host.guroo_central import CentralNode
        from servobus.host.guroo_trajectory import default_walk, load

        gait_path = config.gait_path or robot.trajectory
        gait = load(gait_path) if gait_path else default_walk()
        hp = tuple(_board(n) for n in robot.nodes if n.kind == "hp-board")
        servo = next((_board(n) for n in robot.nodes if n.kind == "servo-board"), None)
        return CentralNode(schema, gait, hp=hp, servo=servo, name=spec.name,
                           keep_samples=config.keep_records)
    if spec.kind == "hp-board":
        from servobus.plant.guroo_node import GurooBoardNode

        keys = robot.node_keys[spec.name]
        loop = config.loop or keys["loop"]
        readings = {key: keys[key] for key in READINGS}  # the listing's readings, as the file's
        return GurooBoardNode(schema, spec.board, joints=spec.joints, name=spec.name, loop=loop,
                              seed=seed, **readings)
    if spec.kind == "servo-board":
        from servobus.plant.servo_board import ServoBoardNode

        return ServoBoardNode(schema, shape=_board(spec), seed=seed)
    raise ValueError(f"no node of kind {spec.kind!r} on the generic assembly")


def robot_schema(robot: RobotFile) -> Schema:
    """The robot's DBC, checked against its description (``robot_check``: RobotFileError naming
    what is wrong), with the messages its nodes cannot run without."""
    from servobus.robot.robot_check import check, cyclic_signals

    check(robot)
    return Schema(robot.dbc, required=tuple(cyclic_signals(robot)))


class DescribedRobot(RobotRun):
    """A ready-to-run cyclic robot; `run` advances it and `report` summarises."""

    def __init__(self, robot_file: RobotFile, config: DescribedConfig,
                 node_factory: Callable[[NodeSpec, RobotFile, Schema, DescribedConfig], Node]
                 = build_node) -> None:
        if robot_file.schedule != "cyclic":
            raise RobotFileError(f"{robot_file.path}: a {robot_file.schedule} robot runs on "
                                 "its own assembly, not as a cyclic described robot")
        self.robot_file, self.config = robot_file, config
        self._start(robot_file, robot_schema(robot_file), config.realtime_factor,
                    config.keep_records)
        self.specs = tuple(sorted(robot_file.nodes, key=lambda n: KIND_ORDER.index(n.kind)))
        self.nodes = {spec.name: node_factory(spec, robot_file, self.schema, config)
                      for spec in self.specs}
        bus_faults = [self._robot_fault(line) for line in config.faults]
        self.engine, self.engine_fallback = self._choose_engine(config.engine, bus_faults,
                                                                self._unsupported)
        end = None if config.duration_s is None else round(config.duration_s * NS_PER_S)
        self._check_times(end)  # once the lines and the engine are known to be right
        if self.engine == "compiled":
            from servobus.robot import guroo_sync

            self.compiled = guroo_sync.GurooEngine(self)
        if self.engine == "reference":
            self._reference_medium(self.nodes.values(), bus_faults,
                                   {int(m.frame_id) for m in self.schema.db.messages},
                                   config.seed, end)
        else:
            self.lean = self._wire(self.nodes)
        self._open_log(config.log_path)

    def _unsupported(self) -> str | None:
        """Why the compiled engine cannot take this robot's periods (None: it can)."""
        from servobus.robot.guroo_sync import unsupported

        why = unsupported(self)
        if why is None and self.config.realtime_factor is not None:
            why = "a run paced to wall time (--realtime) runs period by period"
        return why

    def _robot_fault(self, line: str) -> str:
        """'node N silent at T [for D]' as the bus fault on board N's node; other lines as
        they are."""
        first = (line.split() or [""])[0]
        return line if first in BUS_FAULTS else self._node_fault(line)

    def report(self, wall_s: float, compile_s: float = 0.0) -> dict[str, Any]:
        """The final report: the run (`wall_s` its wall time, `compile_s` numba's compiles for
        it, not in `wall_s`), the bus, and every node's own report."""
        bus = self.bus_fields(busload_cyclic(self.schema)["exact"]["load_pct_mean"])
        nodes = {name: node.report() for name, node in self.nodes.items()}  # type: ignore[attr-defined]
        return {
            "robot": self.robot_file.name, **self.run_fields(wall_s, compile_s),
            "frames": self.frames, **bus,
            "rx_faults": sum(getattr(n, "rx_faults", 0) for n in self.nodes.values()),
            "tx_faults": sum(getattr(n, "tx_faults", 0) for n in self.nodes.values()),
            "nodes": nodes,
        }
