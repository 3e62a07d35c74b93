"""`servobus` command line: one small module per subcommand, each a thin call into the library.

Errors are printed as ``error: ...`` with exit status 2 unless ``--debug`` asks for a traceback.
"""

import argparse
import sys

import can

from servobus.bus.factory import BusUnavailable
from servobus.bus.faults import FaultScriptError
from servobus.bus.schema import SchemaError
from servobus.host.trajectory import TrajectoryError
from servobus.tools import (
    cmd_analyze,
    cmd_bench,
    cmd_budget,
    cmd_busload,
    cmd_bussim,
    cmd_identify,
    cmd_log,
    cmd_nodes,
    cmd_record,
    cmd_remote,
    cmd_run,
    cmd_step,
)
from servobus.tools.errors import ServobusError

COMMANDS = (cmd_run, cmd_step, cmd_analyze, cmd_identify, cmd_bench, cmd_budget, cmd_busload,
            cmd_bussim, cmd_log, cmd_remote, cmd_nodes, cmd_record)
USER_ERRORS = (ServobusError, SchemaError, FaultScriptError, BusUnavailable, TrajectoryError,
               can.CanError, ValueError, OSError)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="servobus", description="Emulator of a distributed robot joint-control system: "
        "fixed-point servo boards, a time-trigger node and a PID host on CAN.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_subparser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse and run one subcommand; return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except USER_ERRORS as err:
        if args.debug:
            raise
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
