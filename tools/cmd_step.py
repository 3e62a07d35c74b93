"""`servobus step`: a step of one board on its simulated hardware, the plant a servo preset's:
a current-reference step of its current loop, or (--position-deg) a position set-point step of
a local-p servo's own position loop."""

import argparse

from servobus.presets.servos import SERVOS, ServoPreset
from servobus.tools import units
from servobus.tools.board_options import add_plant_arguments, plant_options
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit

POSITION_SECONDS = 1.0  # a position step's default length


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("step")
    parser.add_argument("--preset", choices=tuple(SERVOS), default="hsr-5995tg",
                        help="the servo: its plant, its position sensor and (local-p) its own "
                             "position loop (default hsr-5995tg, SPEJBL's)")
    parser.add_argument("--iw", type=units.real(-1.0, 1.0), default=None,
                        help="current reference step in A (|iw| <= 1; default 1)")
    parser.add_argument("--position-deg", type=units.real(-360.0, 360.0), default=None,
                        metavar="D", help="a position step instead: the set-point D degrees "
                                          "from mid-scale, in the servo's own mode (local-p)")
    parser.add_argument("--periods", type=units.integer(1, 1_000_000), default=None,
                        help="PWM periods after the step (1 .. 1e6; default 200, a position "
                             "step 1 s)")
    add_plant_arguments(parser, rotor_default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--plot", type=units.PNG, metavar="FILE.png",
                        help="plot the current step to a PNG file")
    parser.set_defaults(func=_do_step)


def _do_step(args: argparse.Namespace) -> None:
    servo = SERVOS[args.preset]
    if args.position_deg is None:
        args.rotor = args.rotor or "locked"
        _current_step(args, servo)
        return
    for option, given in (("--iw", args.iw), ("--plot", args.plot)):
        if given is not None:
            raise ServobusError(f"{option} is the current step's; --position-deg steps the "
                                "position")
    if args.rotor == "locked":
        raise ServobusError("--rotor locked: a position step needs the shaft free to turn")
    args.rotor = "free"
    from servobus.analysis.position_step import position_step_report, run_position_step
    from servobus.presets.board import DEFAULT_BOARD

    periods = args.periods or round(POSITION_SECONDS * DEFAULT_BOARD.pwm_hz)
    try:
        run = run_position_step(servo, plant_options(args), args.position_deg, periods)
    except ValueError as err:
        raise ServobusError(str(err)) from err
    emit(position_step_report(run), args.json, title=f"{servo.name} position step")


def _current_step(args: argparse.Namespace, servo: ServoPreset) -> None:
    """The current-reference step (the default): its report, and its plot with --plot."""
    from servobus.analysis.current_step import run_step, step_report

    options = plant_options(args)
    run = run_step(options, 1.0 if args.iw is None else args.iw, args.periods or 200, servo)
    if args.plot:
        from servobus.analysis.step_plot import plot_step

        plot_step(run, options, args.plot)
    emit(step_report(run), args.json, title="current step")
