"""`servobus analyze current-loop`: the linear design view of the current loop."""

import argparse

from presets.board import DEFAULT_BOARD, SENSING_CHOICES
from presets.servos import HSR_5995TG
from tools.current_loop_analysis import analyze, report_dict
from tools.output import emit


def add_subparser(sub: argparse._SubParsersAction) -> None:
    """Register the subcommand and its topics."""
    parser = sub.add_parser("analyze", help="linear analysis of the control loops")
    topics = parser.add_subparsers(dest="topic", required=True)
    current = topics.add_parser("current-loop", help="lifted G(z), PI design, closed-loop step")
    current.add_argument("--sensing", choices=SENSING_CHOICES, default="winding-bipolar",
                         help="front end whose gain sets the controller units")
    current.add_argument("--json", action="store_true")
    current.set_defaults(func=_do_current_loop)


def _do_current_loop(args: argparse.Namespace) -> None:
    report = analyze(HSR_5995TG, DEFAULT_BOARD, args.sensing)
    emit(report_dict(report, DEFAULT_BOARD), args.json, title="current loop (linear model)")
