"""`servobus identify [--robot NAME|FILE.toml] --joint N [--method chirp|sines|step]
[--write-tunings [FILE.toml]]`."""

import argparse

from servobus.tools import units
from servobus.tools.cli import Commands


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    from servobus.bus.dbc_generate import JOINTS_MAX
    from servobus.host.identify import AMPLITUDE_A, METHODS
    from servobus.presets.board import SENSING_CHOICES

    parser = sub.add_parser("identify")
    parser.add_argument("--robot", default="spejbl", metavar="NAME|FILE.toml",
                        help="a shipped time-triggered robot (spejbl, spejbl-leg) or a "
                             "description file (docs/robot-file.md)")
    parser.add_argument("--joint", type=units.integer(1, JOINTS_MAX), required=True,
                        help="the joint to excite, 1..the robot's joints")
    parser.add_argument("--method", choices=METHODS, default="chirp")
    parser.add_argument("--seconds", type=units.EXPERIMENT_SECONDS,
                        help="excitation length, up to 1 h (default and minimum per method)")
    parser.add_argument("--alpha", type=units.ALPHA, default=None,
                        help="inertia factor of every joint, 0.01..100 (default: the "
                             "description's)")
    parser.add_argument("--sensing", choices=SENSING_CHOICES, default=None,
                        help="every joint's current front end (default: the description's)")
    parser.add_argument("--amplitude", type=units.real(0.0, 1.0, lo_open=True),
                        default=AMPLITUDE_A, help="excitation current, A, in (0, 1]")
    parser.add_argument("--hold", choices=("R2", "R2b"), default="R2",
                        help="thesis tuning holding the joints (scaled by each joint's preset's "
                             "K_P)")
    parser.add_argument("--seed", type=units.SEED, default=0)
    parser.add_argument("--write-tunings", nargs="?", const="", default=None,
                        metavar="FILE.toml",
                        help="write the tuning designed from this identification as the "
                             "joint's [joint.N] tuning: into FILE.toml (a new file is a "
                             "description built on the robot), else into the --robot file")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_identify)


def _do_identify(args: argparse.Namespace) -> None:
    from servobus.robot import joint_tuning
    from servobus.robot.identification import Settings, described, hardware, identify_settings
    from servobus.tools.output import emit

    settings = Settings(joint=args.joint, method=args.method, seconds=args.seconds,
                        seed=args.seed, alpha=args.alpha, sensing=args.sensing,
                        amplitude=args.amplitude, hold=args.hold, robot=args.robot)
    if args.write_tunings is not None:  # a target refused before the experiment, not after
        rf = described(args.robot)
        joint_tuning.target(rf, args.write_tunings, args.joint)
    result = identify_settings(settings)
    if args.write_tunings is not None:
        result["written"] = joint_tuning.write(result, rf, args.write_tunings,
                                               float(hardware(rf).can_hz))
    emit(result, args.json, title="identified position plant")
