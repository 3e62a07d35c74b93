"""Emulated boards of a time-triggered robot (SPEJBL's by default, or any description) for a host
you write yourself: its boards and time trigger on a simulated ``can.Bus(interface="servobus",
channel=…)`` of this process (in simulated time: the simulation runs forward while your code
waits in ``recv``).  The same nodes serve `servobus node` on a real bus (in real time).
"""

from collections.abc import Sequence

from servobus.bus.node import attach_sim
from servobus.bus.sim_interface import SIMULATED, shared_medium
from servobus.plant.board_node import BoardNode
from servobus.robot.node_build import NodeOptions, node_names, real_bus_nodes
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile


def emulate(channel: str, joints: Sequence[int] | None = None, tick: bool = True,
            seed: int = 0, robot: str | RobotFile = "spejbl") -> list[BoardNode]:
    """Put the boards of `joints` (None: every joint) of `robot` (a shipped name, a
    description file) and, with `tick`, its time trigger on the simulated bus `channel` of this
    process; your own ``can.Bus(interface="servobus", channel=channel)`` is then the host.  The
    boards are returned for inspection (their reports, their RAM); board j's plant seed is
    ``seed * 100 + j - 1``, as in `servobus run`.  The channel runs at the robot's bit rates
    (made so if it is new; a channel made at others is refused); on a CAN FD robot open your
    host's bus with ``fd=True``."""
    described = checked(robot)
    if described.schedule != "time-triggered":
        raise ValueError(f"{described.name} is a {described.schedule} robot: emulate takes a "
                         "time-triggered one")
    count = len(described.joints)
    chosen = list(joints) if joints is not None else list(range(1, count + 1))
    if bad := [j for j in chosen if not 1 <= j <= count]:
        raise ValueError(f"joint {bad[0]}: {described.name} has joints 1..{count}")
    board_of = {j: n.name for n in described.nodes if n.kind == "board" for j in n.joints}
    options = NodeOptions(seed)
    names = [board_of[j] for j in chosen]
    nodes = real_bus_nodes(described, [*names, *(node_names(described, ["time-trigger"])
                                                 if tick else [])], options)
    medium = shared_medium(channel, described.bitrate, SIMULATED, described.data_bitrate)
    for node in nodes:
        attach_sim(node, medium)
    boards: list[BoardNode] = nodes[:len(names)]
    return boards
