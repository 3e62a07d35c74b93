"""`servobus bench board`: simulation speed figures."""

import argparse

from tools.board_bench import bench_board
from tools.output import emit


def add_subparser(sub: argparse._SubParsersAction) -> None:
    """Register the subcommand and its targets."""
    parser = sub.add_parser("bench", help="speed benchmarks")
    targets = parser.add_subparsers(dest="target", required=True)
    board = targets.add_parser("board", help="one board at full fidelity")
    board.add_argument("--seconds", type=float, default=10.0, help="simulated seconds")
    board.add_argument("--json", action="store_true")
    board.set_defaults(func=_do_board)


def _do_board(args: argparse.Namespace) -> None:
    if args.seconds <= 0:
        raise ValueError(f"--seconds must be positive, got {args.seconds}")
    emit(bench_board(args.seconds), args.json, title="board benchmark")
