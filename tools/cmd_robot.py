"""`servobus robot new|check|dbc|list`: robot description files (docs/robot-file.md) started,
checked, their DBCs generated, the shipped ones listed."""

import argparse
import json
from pathlib import Path

from servobus.bus.dbc_generate import JOINTS_MAX
from servobus.bus.frame_bits_fd import bit_times_ns
from servobus.robot import robot_file
from servobus.robot.robot_check import check
from servobus.robot.robot_dbc import dbc_text
from servobus.robot.robot_new import write_new
from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit, emit_rows, refuse_overwrite


def add_subparser(sub: Commands) -> None:
    """Register the subcommand and its four actions."""
    parser = sub.add_parser("robot")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = actions.add_parser("new", help="write a new time-triggered description and its DBC",
                             description="Write NAME.toml (a time trigger, a servo board per "
                                         "joint, the host; every option at its default) and "
                                         "its generated NAME.dbc into --out.")
    new.add_argument("name", metavar="NAME")
    new.add_argument("--joints", type=units.integer(1, JOINTS_MAX), required=True,
                     help=f"1..{JOINTS_MAX}")
    new.add_argument("--period", type=units.period_ns(1_000_000, 100_000_000), default="4ms",
                     help="the TICK period, whole ms dividing the boards' 100 ms STATUS "
                          "(default 4ms)")
    new.add_argument("--data-bitrate", type=units.data_bitrate, metavar="RATE",
                     help="a CAN FD bus with this data bit rate (e.g. 5M; nominal 1M): every "
                          "frame FD with bit rate switch")
    new.add_argument("--out", default=".", metavar="DIR", help="folder (default: here)")
    new.add_argument("--force", action="store_true", help="overwrite existing files")
    new.set_defaults(func=_do_new)
    checker = actions.add_parser("check", help="check a description and its DBC; a summary",
                                 description="Check a description file (or a shipped robot's "
                                             "name) and its DBC; print a summary.")
    checker.add_argument("robot", metavar="FILE.toml|NAME")
    checker.add_argument("--json", action="store_true")
    checker.set_defaults(func=_do_check)
    dbc = actions.add_parser("dbc", help="generate a description's DBC",
                             description="Generate the DBC of a description (time-triggered: "
                                         "time trigger, boards, host; cyclic: central, "
                                         "hp-boards, servo board): to stdout, or --out.")
    dbc.add_argument("robot", metavar="FILE.toml|NAME")
    dbc.add_argument("--out", type=units.output_file((".dbc",)), metavar="FILE.dbc",
                     help="write the DBC here (an existing file only with --force)")
    dbc.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    dbc.set_defaults(func=_do_dbc)
    lister = actions.add_parser("list", help="the shipped descriptions",
                                description="The shipped robot descriptions.")
    lister.add_argument("--json", action="store_true")
    lister.set_defaults(func=_do_list)


def _do_new(args: argparse.Namespace) -> None:
    folder = Path(args.out)
    for path in (folder / f"{args.name}.toml", folder / f"{args.name}.dbc"):
        refuse_overwrite(path, args.force)
    if args.period % 1_000_000:
        raise ServobusError(f"--period {args.period / 1e6:g} ms: whole milliseconds")
    if args.data_bitrate is not None:
        try:  # the description's nominal rate is 1 Mbit/s
            bit_times_ns(1_000_000, args.data_bitrate)
        except ValueError as err:
            raise ServobusError(f"--data-bitrate {args.data_bitrate}: {err}") from None
    toml, dbc = write_new(args.name, args.joints, folder, args.period // 1_000_000,
                          data_bitrate=args.data_bitrate)
    summary = check(robot_file.load(str(toml)))  # the new robot is a right one
    joints = summary["joints"]
    print(f"wrote {toml} and {dbc} ({joints} joint{'s' * (joints != 1)}, "
          f"{summary['period_used_pct']:.0f} % of the period used by its frames)")


def _do_check(args: argparse.Namespace) -> None:
    summary = check(robot_file.load(args.robot))
    emit(summary, args.json, title=f"robot {summary['name']}: ok")


def _do_dbc(args: argparse.Namespace) -> None:
    robot = robot_file.load(args.robot)
    text = dbc_text(robot)
    if args.out is None:
        print(text, end="")
        return
    refuse_overwrite(args.out, args.force)
    Path(args.out).write_text(text)
    n = len(robot.joints)
    print(f"wrote {args.out} ({robot.name}: {n} joint{'' if n == 1 else 's'})")


def _do_list(args: argparse.Namespace) -> None:
    rows = []
    for name in robot_file.shipped():
        robot = robot_file.load(name)
        rows.append({"name": name, "joints": len(robot.joints), "nodes": len(robot.nodes),
                     "period_ms": robot.period_ns / 1e6, "dbc": robot.dbc.name,
                     "title": robot.title})
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        emit_rows("shipped robots", rows)
