"""`servobus` command line: one small module per subcommand, each a thin call into the library.

Only the chosen subcommand's module is imported (python-can's lazy backend table, for
commands), so `servobus --help` and the light commands start without scipy, matplotlib or numba.
Errors are printed as ``error: ...`` with exit status 2 unless ``--debug`` asks for a traceback;
an interrupted command (Ctrl-C or SIGTERM) exits 130 or 143 after printing what it has.
"""

import argparse
import sys
from importlib import import_module
from itertools import dropwhile, takewhile
from typing import Any, NoReturn

from servobus import __version__
from servobus.tools import extras, interrupts
from servobus.tools.errors import user_errors

# command -> (module in servobus.tools, one-line help); a module may register several commands
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("cmd_run", "a robot on the simulated bus (SPEJBL, or --robot NAME|FILE.toml)"),
    "step": ("cmd_step", "a current (or position) step response of one board"),
    "analyze": ("cmd_analyze", "linear analysis of the control loops"),
    "identify": ("cmd_identify", "fit P(z) = K_P/(z(z-1)(z-q)) of one joint"),
    "preset": ("cmd_preset", "servo presets: list, each one's published figures beside the "
                             "emulator's"),
    "ik": ("cmd_ik", "a SPEJBL leg's joint angles for a foot pose (all 8 solutions)"),
    "cartesian": ("cmd_cartesian", "feet poses over time (a poses file) as a robot's joint "
                                   "trajectory (.traj)"),
    "bench": ("cmd_bench", "speed benchmarks"),
    "budget": ("cmd_budget", "timing budgets (CPU of the board firmware)"),
    "busload": ("cmd_busload", "bus load and host timing window"),
    "bussim": ("cmd_bussim", "a time-triggered robot's tick schedule on the simulated bus"),
    "log": ("cmd_log", "record or replay a CAN bus"),
    "remote-server": ("cmd_remote", "serve a bus to python-can 'remote' clients"),
    "node": ("cmd_node", "any nodes of a robot on a real bus, in real time"),
    "record": ("cmd_record", "record a trajectory by puppet animation"),
    "sweep": ("cmd_sweep", "many runs (axes x metrics) as one Dask job, resumable"),
    "robot": ("cmd_robot", "robot description files: new, check, generate the DBC, list"),
}


class Parser(argparse.ArgumentParser):
    """argparse with the tool's one error format: ``error: ...`` and exit status 2."""

    def error(self, message: str) -> NoReturn:
        """Print the message the way every other error is printed, pointing to --help."""
        self.exit(2, f"error: {message} (see: {self.prog} --help)\n")


class Commands:
    """The subparsers action handed to a command module: fills in help from `COMMANDS`."""

    def __init__(self, sub: argparse._SubParsersAction) -> None:
        self._sub = sub

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Register `name` with its one-line help as help and description."""
        text = COMMANDS[name][1]
        return self._sub.add_parser(name, help=text, description=text, **kwargs)


def chosen_command(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((word for word in argv if not word.startswith("-")), None)


def typed_command(argv: list[str]) -> str:
    """The command's words as typed, without options: `run`, `analyze limit-cycle`."""
    return " ".join(takewhile(lambda w: not w.startswith("-"),
                              dropwhile(lambda w: w.startswith("-"), argv)))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser; only `command`'s module is imported and registers its options."""
    parser = Parser(
        prog="servobus", description="Emulator of a distributed robot joint-control system: "
        "fixed-point servo boards, a time-trigger node and a PID host on CAN.")
    parser.add_argument("--version", action="version", version=f"servobus {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = Commands(sub)
    if command in COMMANDS:
        module = import_module(f"servobus.tools.{COMMANDS[command][0]}")
        module.add_subparser(commands)
    for name in COMMANDS:
        if name not in sub.choices:
            commands.add_parser(name)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse and run one subcommand; return the exit status.  SIGINT and SIGTERM are handled
    from the start: a signal while the command's modules load (numba, the DBC) is a clean stop
    (exit 130 / 143), never a traceback."""
    argv = sys.argv[1:] if argv is None else argv
    with interrupts.handle_interrupts():
        try:
            return _main(argv)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return interrupts.exit_status() or 130


def _main(argv: list[str]) -> int:
    """`main` inside the signal handlers."""
    try:
        args = build_parser(chosen_command(argv)).parse_args(argv)
    except SystemExit as done:  # --help, --version, or a bad value (argparse's "error: ...")
        return done.code if isinstance(done.code, int) else 2
    try:
        extras.check(args, typed_command(argv))
        args.func(args)
    except user_errors() as err:
        if args.debug:
            raise
        print(f"error: {err}", file=sys.stderr)
        return 2
    return interrupts.exit_status()


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
