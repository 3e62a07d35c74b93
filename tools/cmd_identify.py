"""`servobus identify --joint N [--method chirp|sines|step]`."""

import argparse

from servobus.host.identify import METHODS
from servobus.robot.identification import identify
from servobus.tools.cli import Commands
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("identify")
    parser.add_argument("--joint", type=int, required=True)
    parser.add_argument("--method", choices=METHODS, default="chirp")
    parser.add_argument("--seconds", type=float, help="excitation length (default per method)")
    parser.add_argument("--alpha", type=float, default=1.0, help="inertia factor of the joints")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_identify)


def _do_identify(args: argparse.Namespace) -> None:
    if args.seconds is not None and args.seconds <= 0:
        raise ValueError(f"--seconds must be positive, got {args.seconds}")
    emit(identify(args.joint, args.method, args.seconds, args.seed, args.alpha), args.json,
         title="identified position plant")
