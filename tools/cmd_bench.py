"""`servobus bench board | bus | run | scaling | memory | startup`: speed, memory and start-up
figures."""

import argparse
from collections.abc import Callable
from typing import Any

from servobus.bus.dbc_generate import JOINTS_MAX
from servobus.presets import guroo
from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.output import emit, emit_rows
from servobus.tools.robot_options import LOOP_OPTION, robot_loop


def add_subparser(sub: Commands) -> None:
    """Register the subcommand and its targets."""
    parser = sub.add_parser("bench")
    targets = parser.add_subparsers(dest="target", required=True)

    def target(name: str, help_text: str, func: Callable[[argparse.Namespace], None],
               *options: tuple[str, dict[str, Any]]) -> None:
        """One target: its options, --json, and the function that runs it."""
        cmd = targets.add_parser(name, help=help_text)
        for flag, kwargs in options:
            cmd.add_argument(flag, **kwargs)
        cmd.add_argument("--json", action="store_true")
        cmd.set_defaults(func=func)

    target("board", "one board at full fidelity", _do_board,
           ("--seconds", {"type": units.EXPERIMENT_SECONDS, "default": 10.0,
                          "help": "simulated seconds, up to 1 h"}),
           *_robot_options("guroo: one 3-motor high-power board's compiled kernel"))
    target("bus", "frames/s with 14 nodes: simulated bus vs python-can", _do_bus,
           ("--frames", {"type": units.integer(1, 1_000_000), "default": 2000,
                         "help": "frames sent by each node, 1 .. 1e6"}),
           ("--repeats", {"type": units.integer(1, 100), "default": 3,
                          "help": "measurements of each line (min / median / max), 1 .. 100"}),
           ("--remote", {"action": "store_true",
                         "help": "also python-can-remote through a local server on 127.0.0.1"}))
    target("run", "the whole robot at full fidelity", _do_run,
           ("--seconds", {"type": units.EXPERIMENT_SECONDS, "default": 10.0,
                          "help": "simulated seconds on the engine, up to 1 h"}),
           ("--reference-seconds", {"type": units.EXPERIMENT_SECONDS, "default": 2.0,
                                    "help": "simulated seconds on the reference path in the "
                                            "same run"}),
           ("--robot", {"default": "spejbl", "metavar": "NAME|FILE.toml",
                        "help": "a shipped robot or a description (a cyclic one, e.g. guroo: "
                                "its default engine only, --seconds)"}),
           ("--loop", LOOP_OPTION))
    target("scaling", "cost against joint count: described robots of N joints", _do_scaling,
           ("--joints", {"type": lambda text: units.joints(text, JOINTS_MAX),
                         "default": "1,3,7,12,16,23",
                         "help": f"the joint counts, 1..{JOINTS_MAX} (default 1,3,7,12,16,23)"}),
           ("--seconds", {"type": units.EXPERIMENT_SECONDS, "default": 5.0,
                          "help": "simulated seconds per measurement"}),
           ("--runs", {"type": units.integer(1, 100), "default": 3,
                       "help": "measurements per robot (min / median / max), 1 .. 100"}))
    target("memory", "RSS of a long default run vs simulated time", _do_memory,
           ("--minutes", {"type": units.real(0.01, 1440.0), "default": 10.0,
                          "help": "simulated minutes, 0.01 .. 1440"}),
           ("--every", {"type": units.seconds(0.1, 3600.0), "default": 30.0,
                        "help": "simulated time between RSS samples, 0.1 s .. 3600 s ('30s')"}))
    target("startup", "time to the first simulated period of run (warm), or of the first run "
           "after an install (--cold)", _do_startup,
           ("--runs", {"type": units.integer(1, 100), "default": None,
                       "help": "fresh processes measured, 1 .. 100 (default 5; --cold: 3)"}),
           ("--cold", {"action": "store_true",
                       "help": "each run from a fresh copy of the package, numba's cache empty"}),
           ("--robot", {"choices": ("spejbl", "guroo"), "default": None,
                        "help": "--cold: the robot run (default spejbl)"}),
           ("--duration", {"type": units.RUN_SECONDS, "default": None,
                           "help": "--cold: simulated seconds of the run (default 10)"}))


def _robot_options(guroo_help: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """--robot (what guroo measures: `guroo_help`) and GuRoo's --loop."""
    return (("--robot", {"choices": ("spejbl", "guroo"), "default": "spejbl",
                         "help": guroo_help}),
            ("--loop", LOOP_OPTION))


def _do_board(args: argparse.Namespace) -> None:
    loop = robot_loop(args) or guroo.LOOPS[0]
    if args.robot == "guroo":
        from servobus.plant.guroo_bench import bench_guroo_board

        emit(bench_guroo_board(args.seconds, loop), args.json,
             title="GuRoo board benchmark")
        return
    from servobus.plant.bench import bench_board

    emit(bench_board(args.seconds), args.json, title="board benchmark")


def _do_bus(args: argparse.Namespace) -> None:
    from servobus.bus.bench import bench_bus

    emit(bench_bus(args.frames, 0 if args.remote else None, args.repeats), args.json,
         title="bus benchmark")


def _do_run(args: argparse.Namespace) -> None:
    from servobus.robot.bench import bench_described, bench_run
    from servobus.robot.robot_check import checked

    robot = checked(args.robot)
    loop = robot_loop(args, robot)
    result = (bench_run(args.seconds, args.reference_seconds, robot)
              if robot.schedule == "time-triggered" else
              bench_described(robot, args.seconds, loop))
    emit(result, args.json, title="robot run benchmark")


def _do_scaling(args: argparse.Namespace) -> None:
    from servobus.robot.bench_scaling import bench_scaling

    result = bench_scaling(tuple(args.joints), args.seconds, args.runs)
    if args.json:
        emit(result, True)
        return
    rows = [{"robot": r["robot"], "joints": r["joints"],
             **{f"{key} (min/median/max)": "/".join(f"{r[key][k]:.3g}" for k in
                                                    ("min", "median", "max"))
                for key in ("sim_s_per_wall_s", "sim_s_per_cpu_s", "us_per_period",
                            "us_per_period_per_joint")},
             "compiled_pct": f"{r['compiled_pct']['median']:.1f}"} for r in result["rows"]]
    emit_rows(f"bench scaling: {result['sim_s']:g} s simulated, {result['runs']} runs each, "
              "compiled engine", rows)


def _do_memory(args: argparse.Namespace) -> None:
    from servobus.robot.bench_memory import bench_memory

    emit(bench_memory(args.minutes, args.every), args.json, title="memory benchmark")


def _do_startup(args: argparse.Namespace) -> None:
    from servobus.robot.bench_startup import bench_startup, bench_startup_cold
    from servobus.tools.errors import ServobusError

    if args.cold:
        emit(bench_startup_cold(args.runs or 3, args.robot or "spejbl",
                                10.0 if args.duration is None else args.duration),
             args.json, title="cold start-up benchmark")
        return
    for name in ("robot", "duration"):
        if getattr(args, name) is not None:
            raise ServobusError(f"--{name} applies to bench startup --cold only")
    emit(bench_startup(args.runs or 5), args.json, title="start-up benchmark")
