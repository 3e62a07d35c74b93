"""Command-line options shared by the commands on a bus: which python-can bus, the
measurement frame size, and the robot whose DBC and schedule they take (light: no plant or
kernel imports; the robot description is read only when one is named)."""

import argparse
from typing import TYPE_CHECKING

from servobus.bus.factory import INTERFACES
from servobus.bus.schema import MEAS_BYTES
from servobus.tools import units
from servobus.tools.errors import ServobusError

if TYPE_CHECKING:
    from servobus.robot.robot_file import RobotFile


def add_bus_arguments(parser: argparse.ArgumentParser, default: str | None = "virtual",
                      help: str | None = None) -> None:
    """--interface (a python-can bus: not the in-process simulated one), --channel, and --fd
    (open it as CAN FD: python-can's fd=True)."""
    parser.add_argument("--interface", choices=INTERFACES[1:], default=default, help=help)
    parser.add_argument("--channel", default="servobus",
                        help="e.g. vcan0, a virtual channel name, ws://127.0.0.1:54701/")
    parser.add_argument("--fd", action="store_true",
                        help="open the bus as CAN FD (socketcan: on an interface of MTU 72; "
                             "a classic socket neither sends nor receives CAN FD frames)")


def add_meas_bytes_argument(parser: argparse.ArgumentParser, default: int | str | None,
                            help: str | None = None) -> None:
    """--meas-bytes: the 2-byte (position) or 6-byte (position, supply, current) MEAS frames
    (`default` None: the robot's; argparse.SUPPRESS: absent unless given)."""
    parser.add_argument("--meas-bytes", type=int, choices=MEAS_BYTES, default=default, help=help)


def add_frames_argument(parser: argparse.ArgumentParser) -> None:
    """--frames N: a live capture ends after N frames (as candump -n does), or at --duration."""
    parser.add_argument("--frames", type=units.FRAMES, default=None,
                        help="stop after this many frames (or at --duration, whichever is first)")


def add_robot_argument(parser: argparse.ArgumentParser, takes: str) -> None:
    """--robot NAME|FILE: a shipped robot or a description file, whose DBC and `takes` are the
    command's defaults (instead of --dbc)."""
    parser.add_argument("--robot", metavar="NAME|FILE",
                        help="a shipped robot (spejbl, spejbl-leg, guroo) or a robot "
                             f"description .toml: its DBC and {takes} are the defaults "
                             "(not with --dbc)")


def robot_of(args: argparse.Namespace, time_triggered: bool = False) -> "RobotFile | None":
    """The --robot description, read and checked against its DBC (None: not given); --dbc
    with it, a bad description, or a cyclic robot where `time_triggered`: a ServobusError."""
    if args.robot is None:
        return None
    if getattr(args, "dbc", None) is not None:  # a command without --dbc has none
        raise ServobusError("--robot names its own DBC (its bus.dbc), --dbc another: give one")
    from servobus.robot.file_keys import RobotFileError
    from servobus.robot.robot_check import check
    from servobus.robot.robot_file import load

    try:
        robot = load(args.robot)
        check(robot)
    except RobotFileError as err:
        raise ServobusError(f"--robot: {err}") from err
    if time_triggered and robot.schedule != "time-triggered":
        raise ServobusError(f"--robot {args.robot}: {robot.name} is a {robot.schedule} robot; "
                            "this command runs a time-triggered schedule (TICK, measurements, "
                            "actuations)")
    return robot
