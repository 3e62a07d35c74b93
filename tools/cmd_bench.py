"""`servobus bench board | bus | run`: simulation speed figures."""

import argparse

from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand and its targets."""
    parser = sub.add_parser("bench")
    targets = parser.add_subparsers(dest="target", required=True)
    board = targets.add_parser("board", help="one board at full fidelity")
    board.add_argument("--seconds", type=units.EXPERIMENT_SECONDS, default=10.0,
                       help="simulated seconds, up to 1 h")
    board.add_argument("--json", action="store_true")
    board.set_defaults(func=_do_board)
    bus = targets.add_parser("bus", help="frames/s with 14 nodes: simulated bus vs python-can")
    bus.add_argument("--frames", type=units.integer(1, 1_000_000), default=2000,
                     help="frames sent by each node, 1 .. 1e6")
    bus.add_argument("--remote", action="store_true",
                     help="also python-can-remote through a local server on 127.0.0.1")
    bus.add_argument("--json", action="store_true")
    bus.set_defaults(func=_do_bus)
    run = targets.add_parser("run", help="the whole robot at full fidelity")
    run.add_argument("--seconds", type=units.EXPERIMENT_SECONDS, default=10.0,
                     help="simulated seconds on the engine, up to 1 h")
    run.add_argument("--reference-seconds", type=units.EXPERIMENT_SECONDS, default=2.0,
                     help="simulated seconds on the reference path in the same run")
    run.add_argument("--json", action="store_true")
    run.set_defaults(func=_do_run)


def _do_board(args: argparse.Namespace) -> None:
    from servobus.plant.bench import bench_board

    emit(bench_board(args.seconds), args.json, title="board benchmark")


def _do_bus(args: argparse.Namespace) -> None:
    from servobus.bus.bench import bench_bus

    emit(bench_bus(args.frames, 0 if args.remote else None), args.json, title="bus benchmark")


def _do_run(args: argparse.Namespace) -> None:
    from servobus.robot.bench import bench_run

    emit(bench_run(args.seconds, args.reference_seconds), args.json, title="robot run benchmark")
