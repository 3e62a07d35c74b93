"""`servobus step`: a current-reference step of one board on its simulated hardware."""

import argparse

from servobus.analysis.current_step import run_step, step_report
from servobus.tools import units
from servobus.tools.board_options import add_plant_arguments, plant_options
from servobus.tools.cli import Commands
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("step")
    parser.add_argument("--iw", type=units.real(-1.0, 1.0), default=1.0,
                        help="reference step in A (|iw| <= 1)")
    parser.add_argument("--periods", type=units.integer(1, 1_000_000), default=200,
                        help="PWM periods after the step (1 .. 1e6)")
    add_plant_arguments(parser)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--plot", type=units.PNG, metavar="FILE.png",
                        help="plot the step to a PNG file")
    parser.set_defaults(func=_do_step)


def _do_step(args: argparse.Namespace) -> None:
    options = plant_options(args)
    run = run_step(options, args.iw, args.periods)
    if args.plot:
        from servobus.analysis.step_plot import plot_step

        plot_step(run, options, args.plot)
    emit(step_report(run), args.json, title="current step")
