"""`servobus run`: the whole robot on the simulated bus (the main job)."""

import argparse
import sys
import time

from tqdm import tqdm

from servobus.bus.schema import JOINTS
from servobus.host.pid import ANTI_WINDUP
from servobus.host.trajectory import load
from servobus.host.tunings import DEFAULT_TUNING, TUNINGS
from servobus.presets.board import SENSING_CHOICES
from servobus.robot.assembly import BOARD_MODES, Robot, RobotConfig
from servobus.tools.cli import Commands
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("run")
    parser.add_argument("--duration", type=float, default=10.0, help="simulated seconds")
    parser.add_argument("--trajectory", help="trajectory file (default: the shipped gait)")
    parser.add_argument("--mode", choices=tuple(BOARD_MODES), default="cascade",
                        help="board firmware mode")
    parser.add_argument("--sensing", choices=SENSING_CHOICES, default="supply-unipolar")
    parser.add_argument("--plant", choices=("switching", "averaged"), default="switching")
    parser.add_argument("--alpha", default="1", help="inertia factor: one value or 12, comma "
                                                      "separated")
    parser.add_argument("--tuning", choices=tuple(TUNINGS), default=DEFAULT_TUNING,
                        help="position PID tuning (default: the thesis' R2)")
    parser.add_argument("--anti-windup", choices=ANTI_WINDUP, default="soft")
    parser.add_argument("--meas-bytes", type=int, choices=(2, 6), default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fault", action="append", default=[],
                        help='"node 5 silent at 1.0s", "tick drop at 2.0s", '
                             '"host delay 3ms at 1.5s", "babble 0x001 at 1.0s for 50ms", ...')
    parser.add_argument("--do", action="append", default=[], metavar="ACTION",
                        help='operator actions: "release 3 at 1s", "freeze all at 2s", '
                             '"engage 3 at 3s", "pause at 1s", "resume at 2s", "scrub 0.5 at 2s"')
    parser.add_argument("--log", help="record the bus to run.blf / .asc / .log")
    parser.add_argument("--plot", metavar="FILE.png")
    parser.add_argument("--plot-joints", default="1,3,4", help="joints to plot")
    parser.add_argument("--realtime", type=float, nargs="?", const=1.0, default=None,
                        metavar="FACTOR", help="pace simulated time to wall time")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_run)


def parse_alphas(text: str) -> list[float]:
    """'2' -> 12 x 2.0; '1,1,2,...' (12 values) -> as given."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError as err:
        raise ValueError(f"--alpha {text!r}: give one number or {JOINTS} comma-separated") from err
    if len(values) == 1:
        values *= JOINTS
    if len(values) != JOINTS or min(values) <= 0:
        raise ValueError(f"--alpha {text!r}: give one positive number or {JOINTS} of them")
    return values


def _do_run(args: argparse.Namespace) -> None:
    if args.duration <= 0:
        raise ValueError(f"--duration must be positive, got {args.duration}")
    joints = [int(j) for j in args.plot_joints.split(",")]
    if not all(1 <= j <= JOINTS for j in joints):
        raise ValueError(f"--plot-joints: joints are 1..{JOINTS}")
    config = RobotConfig(mode=args.mode, sensing=args.sensing, plant=args.plant,
                         alphas=parse_alphas(args.alpha), seed=args.seed, faults=args.fault,
                         log_path=args.log, realtime_factor=args.realtime,
                         meas_bytes=args.meas_bytes, anti_windup=args.anti_windup,
                         tuning=args.tuning, actions=args.do,
                         trajectory=load(args.trajectory) if args.trajectory else None)
    robot = Robot(config)
    bar = tqdm(total=args.duration, unit="sim s", disable=args.no_progress or args.json,
               file=sys.stderr, bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} sim s "
                                           "[{elapsed}<{remaining}]")
    start = time.perf_counter()
    interrupted = False
    try:
        robot.run(args.duration, progress=lambda dt: bar.update(min(dt, bar.total - bar.n)))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    report = robot.report(time.perf_counter() - start)
    report["interrupted"] = interrupted
    if args.log:
        report["log"] = args.log
    if args.plot:
        from servobus.robot.plots import plot_run

        plot_run(robot, args.plot, joints)
        report["plot"] = args.plot
    emit(report, args.json, title="robot run")
