"""The --loop option the commands that take a robot share (`run`, `bench`, `budget`)."""

import argparse
from typing import Any

from servobus.presets import guroo
from servobus.tools.errors import ServobusError

LOOP_OPTION: dict[str, Any] = {"choices": guroo.LOOPS, "default": argparse.SUPPRESS,
               "help": "guroo: the boards' control loop, every 400 timer interrupts (2002 "
                       "source, 250 Hz; the default) or a 500 us interrupt (2 kHz)"}


def robot_loop(args: argparse.Namespace) -> str:
    """GuRoo's --loop (the 2002 source's unless given); an error, never ignored, for the SPEJBL
    robot, even when it names the default."""
    if "loop" not in vars(args):
        return guroo.LOOPS[0]
    if args.robot != "guroo":
        raise ServobusError("--loop applies to --robot guroo")
    return str(args.loop)
