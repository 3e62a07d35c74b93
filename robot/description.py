"""Robot descriptions: which nodes a robot has, which board carries which joints, its schema and
its schedule's base period — data, from which `servobus run --robot NAME` assembles the robot.

The SPEJBL robot runs on its own assembly (``robot.assembly``: the compiled and period engines
are written for its time-triggered schedule); every other described robot runs on the generic
assembly (``robot.described``) over the reference path, its nodes built by kind.
"""

from dataclasses import dataclass

from servobus.bus.schema import SPEJBL_REQUIRED, Schema, shipped_dbc
from servobus.presets import guroo


@dataclass(frozen=True)
class NodeSpec:
    """One node: its name on the bus (the DBC's BU_), what it is, its board ID and joints."""

    name: str
    kind: str  # spejbl: time-trigger, board, host; guroo: central, hp-board, servo-board
    board: int = 0
    joints: tuple[int, ...] = ()


@dataclass(frozen=True)
class RobotDescription:
    """A robot: its name, schema file (shipped in servobus.dbc), joints, nodes and period."""

    name: str
    title: str
    dbc: str
    required: tuple[str, ...]  # messages its nodes cannot run without
    joints: int
    period_ns: int  # the schedule's base period: a run pauses only at its boundaries
    nodes: tuple[NodeSpec, ...]

    def schema(self) -> Schema:
        """The robot's loaded message schema."""
        return Schema(shipped_dbc(self.dbc), required=self.required)

    def node(self, board: int) -> NodeSpec:
        """The node with DIP-switch/board ID `board` (ValueError: no such board)."""
        for spec in self.nodes:
            if spec.board == board and spec.joints:
                return spec
        boards = sorted(s.board for s in self.nodes if s.joints)
        raise ValueError(f"{self.name} has boards {boards[0]}..{boards[-1]}, not {board}")


SPEJBL = RobotDescription(
    name="spejbl", title="SPEJBL biped: 12 joints, 250 Hz time-triggered current references",
    dbc="servobus.dbc", required=SPEJBL_REQUIRED, joints=12, period_ns=4_000_000,
    nodes=(NodeSpec("TIME_TRIGGER", "time-trigger"),
           *(NodeSpec(f"JOINT_{j}", "board", j, (j,)) for j in range(1, 13)),
           NodeSpec("HOST", "host")))

GUROO = RobotDescription(
    name="guroo", title="GuRoo humanoid: 23 joints, velocity set-points every 2 ms",
    dbc="guroo.dbc", required=("VEL_SP_1", "FEEDBACK_1", "SERVO_SP_1"), joints=guroo.JOINTS,
    period_ns=guroo.SETPOINT_PERIOD_NS,
    nodes=(NodeSpec("CENTRAL", "central"),
           *(NodeSpec(f"HP_{b}", "hp-board", b,
                      tuple(range(3 * b - 2, 3 * b + 1))) for b in range(1, guroo.HP_BOARDS + 1)),
           NodeSpec("SERVO_BOARD", "servo-board", guroo.SERVO_BOARD_ID,
                    tuple(range(guroo.DC_JOINTS + 1, guroo.JOINTS + 1)))))

ROBOTS = {d.name: d for d in (SPEJBL, GUROO)}
