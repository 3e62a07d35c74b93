"""`servobus preset list|check|table`: the servo presets, and each one's published figures
beside the emulated board's (``analysis.preset_check``)."""

import argparse

from servobus.tools.cli import Commands


def add_subparser(sub: Commands) -> None:
    """Register the subcommand and its three actions."""
    from servobus.presets.servos import SERVOS

    parser = sub.add_parser("preset")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    lister = actions.add_parser("list", help="the servo presets, one line each",
                                description="The servo presets: name, supply, controller.")
    lister.add_argument("--json", action="store_true")
    lister.set_defaults(func=_do_list)
    checker = actions.add_parser(
        "check", help="a preset's published figures beside the emulator's",
        description="Run the experiments that measure a preset's published figures on the "
                    "emulated board; print source, emulator, ratio, and whether the emulator "
                    "is within the source's printed precision (or the tolerance a figure "
                    "states, +- x).")
    checker.add_argument("name", metavar="NAME", help=f"one of: {', '.join(SERVOS)}")
    checker.add_argument("--json", action="store_true")
    checker.set_defaults(func=_do_check)
    table = actions.add_parser("table", help="every preset's check as one Markdown table",
                               description="The checks of the named presets (default: all) as "
                                           "one Markdown table, docs/presets.md's.")
    table.add_argument("names", nargs="*", metavar="NAME")
    table.set_defaults(func=_do_table)


def _do_list(args: argparse.Namespace) -> None:
    from servobus.presets.servos import SERVOS
    from servobus.tools.output import emit, emit_rows

    rows = [{"name": s.name, "supply_v": s.supply_v, "mode": s.mode,
             "source": s.derivation.partition(" (")[0].partition(":")[0]}
            for s in SERVOS.values()]
    if args.json:
        emit({"presets": rows}, True)
    else:
        emit_rows("servo presets", rows)


def _do_check(args: argparse.Namespace) -> None:
    from servobus.analysis.preset_check import as_json, check, row
    from servobus.tools.output import emit, emit_rows

    figures = check(args.name)
    if args.json:
        emit({"preset": args.name, "figures": [as_json(f) for f in figures]}, True)
        return
    emit_rows(f"{args.name}: published figures beside the emulator's",
              [{k: v for k, v in row(f).items() if k != "note"} for f in figures])
    notes = [f"  {f.name}: {f.note}" for f in figures if f.note]
    if notes:
        print("notes:", *notes, sep="\n")


def _do_table(args: argparse.Namespace) -> None:
    from servobus.analysis.preset_check import check, markdown
    from servobus.presets.servos import SERVOS

    print(markdown({name: check(name) for name in args.names or SERVOS}), end="")
