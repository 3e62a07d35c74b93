"""`servobus identify [--robot NAME|FILE.toml] --joint N [--method chirp|sines|step]
[--write-tunings [FILE.toml]]`: a robot's joint; `servobus identify --preset nxt [--levels
1,4,5]`: the NXT motor's power-level steps beside the paper's models (docs/presets.md, "NXT")."""

import argparse

from servobus.tools import units
from servobus.tools.cli import Commands

PRESETS = ("nxt",)  # the presets with a published identification to repeat
ROBOT_ONLY = ("robot", "joint", "method", "alpha", "sensing", "amplitude", "hold", "seed",
              "write_tunings")
PRESET_ONLY = ("levels", "start_deg")


def power_levels(text: str) -> list[int]:
    """'1,4,5' -> the NXT brick's power levels 1..5, each once, in the order given."""
    values = []
    for part in text.split(","):
        if part.strip() not in {"1", "2", "3", "4", "5"}:
            raise units.Bad(f"{text!r}: give power levels 1..5 separated by commas, e.g. 1,4,5")
        values.append(int(part))
    if len(set(values)) != len(values):
        raise units.Bad(f"{text!r}: a power level is named twice")
    return values


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    from servobus.bus.dbc_generate import JOINTS_MAX
    from servobus.host.identify import AMPLITUDE_A, METHODS
    from servobus.presets.board import SENSING_CHOICES

    parser = sub.add_parser("identify")
    parser.add_argument("--robot", metavar="NAME|FILE.toml",
                        help="a shipped time-triggered robot (`servobus robot list`) or a "
                             "description file (docs/robot-file.md); default spejbl")
    parser.add_argument("--joint", type=units.integer(1, JOINTS_MAX),
                        help="the joint to excite, 1..the robot's joints (required unless "
                             "--preset)")
    parser.add_argument("--method", choices=METHODS, help="default chirp")
    parser.add_argument("--seconds", type=units.EXPERIMENT_SECONDS,
                        help="excitation length, up to 1 h (default and minimum per method; "
                             "with --preset: each step's record, default 20 s)")
    parser.add_argument("--alpha", type=units.ALPHA, default=None,
                        help="inertia factor of every joint, 0.01..100 (default: the "
                             "description's)")
    parser.add_argument("--sensing", choices=SENSING_CHOICES, default=None,
                        help="every joint's current front end (default: the description's)")
    parser.add_argument("--amplitude", type=units.real(0.0, 1.0, lo_open=True),
                        help=f"excitation current, A, in (0, 1] (default {AMPLITUDE_A})")
    parser.add_argument("--hold", choices=("R2", "R2b"),
                        help="thesis tuning holding the joints (scaled by each joint's preset's "
                             "K_P; default R2)")
    parser.add_argument("--seed", type=units.SEED)
    parser.add_argument("--write-tunings", nargs="?", const="", default=None,
                        metavar="FILE.toml",
                        help="write the tuning designed from this identification as the "
                             "joint's [joint.N] tuning: into FILE.toml (a new file is a "
                             "description built on the robot), else into the --robot file")
    parser.add_argument("--preset", choices=PRESETS,
                        help="instead of a robot's joint: step this servo on one board from "
                             "rest at the paper's power levels and fit first-order models")
    parser.add_argument("--levels", type=power_levels,
                        help="with --preset: the power levels, 1..5 (default 1,4,5: the "
                             "paper's identified models)")
    parser.add_argument("--start-deg", type=units.real(0.0, 1.0, hi_open=True),
                        help="with --preset: the shaft's rest angle inside its first "
                             "tachometer count, degrees in [0, 1) (default 0.5)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_identify)


def _given(args: argparse.Namespace, names: tuple[str, ...]) -> list[str]:
    """The options among `names` given on the command line, as typed."""
    return ["--" + n.replace("_", "-") for n in names if getattr(args, n) is not None]


def _do_identify(args: argparse.Namespace) -> None:
    if args.preset is not None:
        _do_preset(args)
        return
    from servobus.robot import joint_tuning
    from servobus.robot.identification import Settings, described, hardware, identify_settings
    from servobus.tools.output import emit

    if wrong := _given(args, PRESET_ONLY):
        raise ValueError(f"{', '.join(wrong)}: only with --preset")
    if args.joint is None:
        raise ValueError("--joint N is required (or --preset nxt for the NXT motor's steps)")
    chosen = {k: getattr(args, k) for k in ("robot", "method", "amplitude", "hold", "seed")
              if getattr(args, k) is not None}
    settings = Settings(joint=args.joint, seconds=args.seconds, alpha=args.alpha,
                        sensing=args.sensing, **chosen)
    if args.write_tunings is not None:  # a target refused before the experiment, not after
        rf = described(settings.robot)
        joint_tuning.target(rf, args.write_tunings, args.joint)
    result = identify_settings(settings)
    if args.write_tunings is not None:
        result["written"] = joint_tuning.write(result, rf, args.write_tunings,
                                               float(hardware(rf).can_hz))
    emit(result, args.json, title="identified position plant")


def _do_preset(args: argparse.Namespace) -> None:
    from servobus.analysis import nxt_steps
    from servobus.tools.output import emit, emit_rows

    if wrong := _given(args, ROBOT_ONLY):
        raise ValueError(f"{', '.join(wrong)}: a robot's joint, not with --preset")
    result = nxt_steps.identify_levels(
        args.levels or list(nxt_steps.PAPER_MODELS),
        nxt_steps.DEFAULT_SECONDS if args.seconds is None else args.seconds,
        nxt_steps.DEFAULT_START_DEG if args.start_deg is None else args.start_deg)
    if args.json:
        emit(result, True)
        return
    print(f"{result['preset']}: {result['model']}, stepped from rest for {result['seconds']:g} s"
          f" at {result['start_deg']:g} degree into a count; true tau "
          f"{result['tau_true_ms']:.3f} ms ({result['tau_on_board_ms']:.3f} ms on the board: "
          "no current in the dead time)")
    rows = []
    for row in result["levels"]:
        for source in ("paper", "emulator"):
            if source in row:
                rows.append({"level": row["level"], "volts": row["volts"], "ts_s": row["ts_s"],
                             "model": source, **row[source]})
    emit_rows("Table 3 beside the emulator", rows)
    white = result["white_box"]
    print(f"the paper's white-box constants instead: DC gain {white['dc_gain_motor']:.3f} "
          f"(rad/s)/V ({white['dc_gain_output']:.4f} through N = 32), poles "
          f"{white['pole_real']:.0f} +- {white['pole_imag']:.0f}j rad/s (damping "
          f"{white['damping_ratio']:.2f})")
