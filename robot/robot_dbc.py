"""The DBC a description's robot would have, generated for the shapes the generators make: a
time-triggered robot of a time trigger, servo boards and a host (bus.dbc_generate), or a cyclic
robot of a central, high-power boards and at most one servo board (bus.dbc_generate_cyclic)."""

import cantools

from servobus.bus.dbc_generate import TimeTriggeredBus, generate
from servobus.bus.dbc_generate_cyclic import CyclicBoard, CyclicBus
from servobus.bus.dbc_generate_cyclic import generate as generate_cyclic
from servobus.robot.robot_file import RobotFile


def generated(robot: RobotFile) -> cantools.database.can.Database:
    """The robot's DBC, generated (every kind of either schedule is one the generators make)."""
    if robot.schedule == "cyclic":
        return _cyclic(robot)
    boards = {j: n.name for n in robot.nodes if n.kind == "board" for j in n.joints}
    (tick,) = (n.name for n in robot.nodes if n.kind == "time-trigger")
    (host,) = (n.name for n in robot.nodes if n.kind == "host")
    return generate(TimeTriggeredBus(
        robot.title, tuple(boards[j] for j in sorted(boards)), robot.groups,
        robot.period_ns // 1_000_000, robot.bitrate, tick, host, robot.data_bitrate))


def _cyclic(robot: RobotFile) -> cantools.database.can.Database:
    """A cyclic robot's DBC (the loader has checked its shape: IDs, joint counts)."""
    (central,) = (n.name for n in robot.nodes if n.kind == "central")
    boards = {kind: tuple(CyclicBoard(n.name, n.board, n.joints) for n in robot.nodes
                          if n.kind == kind) for kind in ("hp-board", "servo-board")}
    return generate_cyclic(CyclicBus(
        robot.title, boards["hp-board"], next(iter(boards["servo-board"]), None),
        robot.period_ns // 1_000_000, robot.bitrate, central, robot.data_bitrate))


def dbc_text(robot: RobotFile) -> str:
    """The generated DBC as text, lines ending in LF like the shipped DBCs (cantools writes
    CRLF)."""
    return generated(robot).as_dbc_string().replace("\r\n", "\n")
