"""A check shared by the commands that take a robot (`run`, `bench`, `budget`)."""

import argparse

from servobus.tools.errors import ServobusError


def guroo_only_loop(args: argparse.Namespace) -> None:
    """--loop belongs to --robot guroo (an error, never ignored, for the SPEJBL robot)."""
    if args.robot != "guroo" and args.loop != "2002":
        raise ServobusError("--loop applies to --robot guroo")
