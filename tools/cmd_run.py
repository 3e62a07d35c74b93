"""`servobus run`: the whole robot on the simulated bus (the main job)."""

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

from servobus.bus.dbc_generate import JOINTS_MAX
from servobus.bus.recorder import LogWriteError
from servobus.firmware.memory import BOARD_MODES
from servobus.host.host_step import HOST_STEP
from servobus.host.pid import ANTI_WINDUP
from servobus.host.trajectory import load
from servobus.host.tunings import TUNINGS
from servobus.plant.bank_kernel import run_bank_lean_fast
from servobus.plant.board_node import can_tick_fast, tick_all
from servobus.presets.board import SENSING_CHOICES
from servobus.robot.advance import ENGINES
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.compile_phase import CompileClock, stderr_say, warm_up
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.description import spans
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile, shipped
from servobus.tools import units
from servobus.tools.bus_options import add_meas_bytes_argument
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.interrupts import held_until_reported, interrupted
from servobus.tools.output import emit
from servobus.tools.robot_options import LOOP_OPTION, robot_loop

DEFAULT_PLOT_JOINTS = (3, 4, 10)


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("run")
    parser.add_argument("--robot", default="spejbl", metavar="NAME|FILE.toml",
                        help=f"the robot: a shipped one ({', '.join(shipped())}; spejbl: 12 "
                             "joints, 4 ms time-triggered; guroo: 23 joints, 2 ms velocity "
                             "set-points) or a description file (docs/robot-file.md)")
    parser.add_argument("--loop", **LOOP_OPTION)
    parser.add_argument("--duration", type=units.RUN_SECONDS, default=10.0,
                        help="simulated seconds (1 ms .. 1 day; '500ms' also works)")
    parser.add_argument("--trajectory", help="trajectory file (default: the shipped gait; "
                                             "guroo: a gait file of moves per joint)")
    # a time-triggered robot's options, for every joint: absent unless given (the
    # description's apply; a cyclic robot refuses them)
    parser.add_argument("--mode", choices=tuple(BOARD_MODES), default=argparse.SUPPRESS,
                        help="board firmware mode (default: the description's; spejbl: "
                             "cascade)")
    parser.add_argument("--sensing", choices=SENSING_CHOICES, default=argparse.SUPPRESS,
                        help="default: the description's (spejbl: supply-unipolar)")
    parser.add_argument("--plant", choices=("switching", "averaged"), default=argparse.SUPPRESS,
                        help="default: the description's (spejbl: switching)")
    parser.add_argument("--alpha", type=parse_alphas, default=argparse.SUPPRESS,
                        help="inertia factor 0.01..100: one value, or one per joint, comma "
                             "separated (default: the description's; spejbl: 1)")
    parser.add_argument("--tuning", choices=tuple(TUNINGS), default=argparse.SUPPRESS,
                        help="position PID tuning (default: the description's; spejbl: the "
                             "thesis' R2)")
    parser.add_argument("--anti-windup", choices=ANTI_WINDUP, default=argparse.SUPPRESS,
                        help="default: the description's (spejbl: soft)")
    add_meas_bytes_argument(parser, default=argparse.SUPPRESS,
                            help="default: the description's (spejbl: 2)")
    parser.add_argument("--seed", type=units.SEED, default=0)
    parser.add_argument("--fault", action="append", default=[],
                        help='"node 5 silent at 1.0s", "tick drop at 2.0s", '
                             '"host delay 3ms at 1.5s", "babble 0x001 at 1.0s for 50ms", ...')
    parser.add_argument("--do", action="append", default=argparse.SUPPRESS, metavar="ACTION",
                        help='operator actions: "release 3 at 1s", "freeze all at 2s", '
                             '"engage 3 at 3s", "pause at 1s", "resume at 2s", "scrub 0.5 at 2s"')
    parser.add_argument("--log", type=units.LOG, help="record the bus to run.blf / .asc / .log")
    parser.add_argument("--plot", type=units.PNG, metavar="FILE.png",
                        help="plot tracking, currents, bus load and host window")
    parser.add_argument("--plot-joints", type=lambda text: units.joints(text, JOINTS_MAX),
                        default=None,
                        help="joints to plot (default: 3,4,10, spejbl's left hip pitch and "
                             "both knees, those the robot has, else its first three; guroo: DC "
                             "joints 1..15)")
    parser.add_argument("--realtime", type=units.REALTIME_FACTOR, nargs="?", const=1.0,
                        default=None, metavar="FACTOR",
                        help="pace simulated time to wall time (factor 0.01..100)")
    parser.add_argument("--engine", choices=ENGINES, default="auto",
                        help="compiled: steady periods in one numba call per batch, the rest "
                             "on the period engine; period: the period engine (a lean bus of "
                             "bytes); reference: the python-can path; auto: compiled where "
                             "supported (spejbl: cascade, 2-byte MEAS; guroo: not --realtime), "
                             "else period, else reference (bus faults)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_run)


def plot_joints(asked: list[int] | None, available: list[int], whose: str) -> list[int]:
    """The joints a plot shows: --plot-joints' (each one of `available`, else an error saying
    `whose` joints they are), else SPEJBL's left hip pitch and both knees (3, 4, 10; GuRoo's
    move too) where the robot has them, else its first three."""
    chosen = asked or [j for j in DEFAULT_PLOT_JOINTS if j in available] or available[:3]
    if not set(chosen) <= set(available):
        raise ServobusError(f"--plot-joints {chosen}: {whose} {spans(available)}")
    return chosen


def parse_alphas(text: str) -> list[float]:
    """'2' -> [2.0]; '1,1,2,...' -> as given; each within 0.01..100 (one for every joint, or
    one per joint: the robot checks the count)."""
    return [units.ALPHA(f) for f in text.split(",")]


# a time-triggered robot's options and the RobotConfig fields they set (the parser leaves them
# out unless given: the description's apply, a cyclic robot refuses them)
TIME_TRIGGERED_OPTIONS = {"mode": "mode", "sensing": "sensing", "plant": "plant", "alpha": "alphas",
                  "tuning": "tuning", "anti_windup": "anti_windup", "meas_bytes": "meas_bytes",
                  "do": "actions"}
C = TypeVar("C", RobotConfig, DescribedConfig)


def _robot(args: argparse.Namespace) -> tuple[Callable[[bool], Robot | DescribedRobot],
                                              list[Any]]:
    """A maker of the robot the options describe (with True: a throwaway copy for the compile
    phase, no log, not in real time) and the dispatchers its run needs; an option the chosen
    robot does not have is an error."""
    robot = checked(args.robot)  # an error names the file, key and problem
    loop = robot_loop(args, robot)
    if robot.schedule == "time-triggered":
        args.plot_joints = plot_joints(args.plot_joints, [j.number for j in robot.joints],
                                       f"{robot.name} has joints")
        return _time_triggered(args, robot)
    given = [name for name in TIME_TRIGGERED_OPTIONS if name in vars(args)]
    if given:
        raise ServobusError(f"--{given[0].replace('_', '-')} applies to a time-triggered "
                            f"robot, not --robot {args.robot} ({robot.schedule})")
    args.plot_joints = plot_joints(
        args.plot_joints, sorted(j for n in robot.nodes if n.kind == "hp-board" for j in n.joints),
        f"{robot.name}'s feedback carries joints")
    from servobus.plant.guroo_rig import run_periods_lean_fast
    from servobus.plant.rc_servo import run_steps_fast
    from servobus.robot.guroo_compiled import forward_c

    config = DescribedConfig(seed=args.seed, faults=args.fault, duration_s=args.duration,
                             log_path=args.log,
                             realtime_factor=args.realtime, keep_records=bool(args.plot),
                             loop=loop, gait_path=args.trajectory, engine=args.engine)
    return (lambda throwaway: DescribedRobot(robot, _throwaway(config) if throwaway
                                             else config),
            [run_periods_lean_fast, run_steps_fast, forward_c])


def _throwaway(config: C) -> C:
    """The config of the compile phase's copy: no log, not in real time."""
    return dataclasses.replace(config, log_path=None, realtime_factor=None)


def _time_triggered(args: argparse.Namespace, robot: RobotFile
                    ) -> tuple[Callable[[bool], Robot], list[Any]]:
    """A time-triggered robot on its engines (a maker, as ``_robot``'s)."""
    from servobus.robot.engine_compiled import fast_forward_c

    options = {field: getattr(args, name) for name, field in TIME_TRIGGERED_OPTIONS.items()
               if name in vars(args)}
    joints = len(robot.joints)
    if len(options.get("alphas", [0])) not in (1, joints):
        raise ServobusError(f"--alpha {','.join(f'{a:g}' for a in options['alphas'])}: give one "
                            f"number or {joints} comma-separated (one per joint of {robot.name})")
    trajectory = load(args.trajectory, len(robot.joints)) if args.trajectory else None
    config = RobotConfig(robot=robot, seed=args.seed, faults=args.fault,
                         duration_s=args.duration, log_path=args.log,
                         realtime_factor=args.realtime, keep_records=bool(args.plot),
                         engine=args.engine, trajectory=trajectory, **options)
    return (lambda throwaway: Robot(_throwaway(config) if throwaway else config),
            [run_bank_lean_fast, can_tick_fast, tick_all, *HOST_STEP, fast_forward_c])


def _progress_bar(duration: float) -> Any:
    """The progress bar on stderr (tqdm imported only for a run that shows it: ~20 ms)."""
    from tqdm import tqdm

    return tqdm(total=duration, unit="sim s", file=sys.stderr,
                bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} sim s [{elapsed}<{remaining}]")


def _do_run(args: argparse.Namespace) -> None:
    """The compile phase (a first run), then the run on its own clock: numba compiles it still
    meets are announced and left out of its wall time (the report's ``compile_s``).  Ctrl-C or
    SIGTERM in the compile phase reports that nothing ran; from the robot's assembly on, it stops
    the run between two events and the report so far is printed whole (exit 130 / 143)."""
    make, needed = _robot(args)
    say = None if args.json else stderr_say
    clock = CompileClock(say)
    started = time.perf_counter()
    try:
        compile_s = warm_up(lambda: make(True), needed, say)
    except KeyboardInterrupt:
        _report_nothing_ran(args, time.perf_counter() - started)
        return
    log_error = None
    with held_until_reported():
        with clock.installed():
            robot = make(False)
            bar = None if args.no_progress or args.json else _progress_bar(args.duration)
            before = clock.seconds
            start = time.perf_counter()
            try:
                robot.run(args.duration, progress=None if bar is None else
                          lambda dt: bar.update(min(dt, bar.total - bar.n)))
            except LogWriteError as err:  # a full disk: the run stops, its report follows
                log_error = err
            finally:
                if bar is not None:
                    bar.close()
            wall_s = time.perf_counter() - start - (clock.seconds - before)
        _report(args, robot, wall_s, compile_s + clock.seconds)
    if log_error is not None:
        raise ServobusError(f"{log_error.strerror}; the run stopped at "
                            f"{robot.env.now / 1e9:g} s (the report above)") from log_error


def _report_nothing_ran(args: argparse.Namespace, compile_s: float) -> None:
    """The report of a run stopped before it started, and an empty log where one was asked."""
    report = {"robot": args.robot, "sim_time_s": 0.0, "compile_s": compile_s,
              "interrupted": True}
    if args.log:
        from servobus.bus.recorder import open_writer

        open_writer(args.log).stop()
        report["log"] = args.log
    emit(report, args.json, title="robot run (stopped before it started)")


def _report(args: argparse.Namespace, robot: Robot | DescribedRobot, wall_s: float,
            compile_s: float) -> None:
    """Print the report (and write the plot) of a run that ran."""
    report = robot.report(wall_s, compile_s)
    report["interrupted"] = interrupted()
    if args.log:
        report["log"] = args.log
    plot_error = None
    if args.plot:
        from servobus.robot.plots import plot_run
        from servobus.robot.plots_described import plot_described

        try:
            if isinstance(robot, Robot):
                plot_run(robot, args.plot, args.plot_joints)
            else:
                plot_described(robot, args.plot, args.plot_joints)
            report["plot"] = args.plot
        except Exception as err:  # whatever the plot hits, the report is kept
            plot_error = err
    emit(report, args.json, title="robot run")
    if plot_error is not None:
        raise ServobusError(f"plot {args.plot}: {plot_error}")
