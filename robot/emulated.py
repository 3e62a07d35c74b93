"""Emulated boards of a time-triggered robot (SPEJBL's by default, or any description) for a host
you write yourself: its boards and time trigger on a simulated ``can.Bus(interface="servobus",
channel=…)`` of this process (in simulated time: the simulation runs forward while your code
waits in ``recv``).  The same nodes serve `servobus node` on a real bus (in real time).
"""

from collections.abc import Sequence

from servobus.bus.node import attach_sim
from servobus.bus.schema import TIME_TRIGGERED_REQUIRED, Schema
from servobus.bus.sim_interface import shared_medium
from servobus.plant.board_node import BoardNode
from servobus.robot.joint_setup import joint_options
from servobus.robot.node_build import board_nodes, tick_node
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile

TICK_PERIOD_NS = 4_000_000  # SPEJBL's 250 Hz time trigger


def emulate(channel: str, joints: Sequence[int] | None = None, tick: bool = True,
            seed: int = 0, robot: str | RobotFile = "spejbl") -> list[BoardNode]:
    """Put the boards of `joints` (None: every joint) of `robot` (a shipped name, a
    description file) and, with `tick`, its time trigger on the simulated bus `channel` of this
    process; your own ``can.Bus(interface="servobus", channel=channel)`` is then the host.  The
    boards are returned for inspection (their reports, their RAM); board j's plant seed is
    ``seed * 100 + j - 1``, as in `servobus run`."""
    described = checked(robot)
    if described.schedule != "time-triggered":
        raise ValueError(f"{described.name} is a {described.schedule} robot: emulate takes a "
                         "time-triggered one")
    chosen = list(joints) if joints is not None else list(range(1, len(described.joints) + 1))
    every = joint_options(described)
    if bad := [j for j in chosen if not 1 <= j <= len(every)]:
        raise ValueError(f"joint {bad[0]}: {described.name} has joints 1..{len(every)}")
    schema = Schema(described.dbc, required=TIME_TRIGGERED_REQUIRED)
    medium = shared_medium(channel)
    boards = board_nodes(described, chosen, [every[j - 1] for j in chosen], schema, seed,
                         described.meas_bytes, max_step_ns=described.period_ns,
                         filter_bus=len(chosen) == 1)
    for board in boards:
        attach_sim(board, medium)
    if tick:
        attach_sim(tick_node(described, schema, seed), medium)
    return boards
