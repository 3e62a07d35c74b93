"""`servobus identify --joint N [--method chirp|sines|step] [--write-tunings]`."""

import argparse

from servobus.bus.schema import JOINTS
from servobus.tools import units
from servobus.tools.cli import Commands


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    from servobus.host.identify import AMPLITUDE_A, METHODS
    from servobus.presets.board import SENSING_CHOICES

    parser = sub.add_parser("identify")
    parser.add_argument("--joint", type=units.integer(1, JOINTS), required=True,
                        help=f"1..{JOINTS}")
    parser.add_argument("--method", choices=METHODS, default="chirp")
    parser.add_argument("--seconds", type=units.EXPERIMENT_SECONDS,
                        help="excitation length, up to 1 h (default and minimum per method)")
    parser.add_argument("--alpha", type=units.ALPHA, default=1.0,
                        help="inertia factor of the joints, 0.01..100")
    parser.add_argument("--sensing", choices=SENSING_CHOICES, default="supply-unipolar")
    parser.add_argument("--amplitude", type=units.real(0.0, 1.0, lo_open=True),
                        default=AMPLITUDE_A, help="excitation current, A, in (0, 1]")
    parser.add_argument("--hold", choices=("R2", "R2b"), default="R2",
                        help="thesis tuning holding the joints (scaled by the preset's K_P)")
    parser.add_argument("--seed", type=units.SEED, default=0)
    parser.add_argument("--write-tunings", action="store_true",
                        help="store this identification and the tuning designed from it in "
                             "host/tunings.py")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_identify)


def _do_identify(args: argparse.Namespace) -> None:
    from servobus.robot.identification import Settings, identify_settings
    from servobus.robot.tunings_file import write_tunings
    from servobus.tools.output import emit

    settings = Settings(args.joint, args.method, args.seconds, args.seed, args.alpha,
                        args.sensing, args.amplitude, args.hold)
    result = identify_settings(settings)
    if args.write_tunings:
        result["written"] = write_tunings(result)
    emit(result, args.json, title="identified position plant")
