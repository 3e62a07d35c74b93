"""The DBC a description's robot would have, generated (bus.dbc_generate) for the shape the
generator makes: a time-triggered robot of a time trigger, servo boards and a host."""

import cantools

from servobus.bus.dbc_generate import TimeTriggeredBus, generate
from servobus.robot.file_keys import RobotFileError
from servobus.robot.robot_file import RobotFile

GENERATED_KINDS = {"time-trigger", "board", "host"}


def generated(robot: RobotFile) -> cantools.database.can.Database:
    """The robot's DBC, generated (RobotFileError: a robot whose DBC is written by hand)."""
    kinds = {n.kind for n in robot.nodes}
    if robot.schedule != "time-triggered" or not kinds <= GENERATED_KINDS:
        raise RobotFileError(f"{robot.path}: bus.dbc: {robot.dbc.name} is written by hand: the "
                             "generator makes time-triggered robots of "
                             f"{', '.join(sorted(GENERATED_KINDS))} nodes, this one has "
                             f"{', '.join(sorted(kinds - GENERATED_KINDS))}")
    boards = {j: n.name for n in robot.nodes if n.kind == "board" for j in n.joints}
    (tick,) = (n.name for n in robot.nodes if n.kind == "time-trigger")
    (host,) = (n.name for n in robot.nodes if n.kind == "host")
    return generate(TimeTriggeredBus(
        robot.title, tuple(boards[j] for j in sorted(boards)), robot.groups,
        robot.period_ns // 1_000_000, robot.bitrate, tick, host))


def dbc_text(robot: RobotFile) -> str:
    """The generated DBC as text, lines ending in LF like the shipped DBCs (cantools writes
    CRLF)."""
    return generated(robot).as_dbc_string().replace("\r\n", "\n")
