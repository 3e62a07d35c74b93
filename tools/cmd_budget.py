"""`servobus budget --cpu`: firmware cycles per interrupt and CPU load of the LPC2119 (SPEJBL)
or, with --robot guroo, of the GuRoo high-power board's TMS320F243."""

import argparse

from servobus.presets import guroo
from servobus.presets.board import DEFAULT_BOARD
from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit
from servobus.tools.robot_options import LOOP_OPTION, robot_loop


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("budget")
    parser.add_argument("--cpu", action="store_true", help="firmware CPU budget")
    parser.add_argument("--ticks", type=units.integer(1, 10_000), default=None,
                        help="CAN periods of counted workload, 1 .. 10000 (spejbl: 4 ms ticks, "
                             "default 25; guroo: 2 ms set-point broadcasts, default 50)")
    parser.add_argument("--hand-only", action="store_true",
                        help="skip the machine-code cycle count (oracle extra) beside the table")
    parser.add_argument("--robot", choices=("spejbl", "guroo"), default="spejbl",
                        help="whose board firmware: spejbl (LPC2119) or guroo (TMS320F243)")
    parser.add_argument("--loop", **LOOP_OPTION)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_budget)


def _do_budget(args: argparse.Namespace) -> None:
    if not args.cpu:
        raise ServobusError("say which budget: --cpu")
    loop = robot_loop(args) or guroo.LOOPS[0]
    if args.robot == "guroo":
        from servobus.analysis.guroo_budget import measure as measure_guroo

        emit(measure_guroo(loop, args.ticks or 50), args.json,
             title="GuRoo high-power board CPU budget")
        return
    from servobus.analysis.arm_budget import recording_if_available
    from servobus.analysis.cpu_budget import budget_dict, machine_code_dict, measure

    record = None if args.hand_only else recording_if_available()
    costs, pct = measure(DEFAULT_BOARD, args.ticks or 25, record)  # one run: counted and recorded
    result = budget_dict(costs, pct, DEFAULT_BOARD)
    if not args.hand_only:
        result["machine_code"] = machine_code_dict(DEFAULT_BOARD, costs, record)
    emit(result, args.json, title="firmware CPU budget")
