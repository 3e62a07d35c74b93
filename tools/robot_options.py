"""The --loop option the commands that take a robot share (`run`, `bench`, `budget`)."""

import argparse
from typing import Any

from servobus.presets import guroo
from servobus.tools.errors import ServobusError

LOOP_OPTION: dict[str, Any] = {"choices": guroo.LOOPS, "default": argparse.SUPPRESS,
               "help": "guroo: the boards' control loop, every 400 timer interrupts (the "
                       "printed main, 248.8 Hz; the default) or a 500 us interrupt (2 kHz)"}


def robot_loop(args: argparse.Namespace, robot: Any = None) -> str | None:
    """--loop for every hp-board (None: not given, each board's own; the 2002 source's by
    default); an error, never ignored, for a robot without hp-boards, even when it names the
    default.  `robot`: the RobotFile (None: the robot named by --robot, shipped)."""
    if "loop" not in vars(args):
        return None
    kinds = {n.kind for n in robot.nodes} if robot is not None else \
        ({"hp-board"} if args.robot == "guroo" else set())
    if "hp-board" not in kinds:
        raise ServobusError(f"--loop applies to a robot with hp-boards (guroo), not --robot "
                            f"{args.robot}")
    return str(args.loop)
