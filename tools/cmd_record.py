"""`servobus record`: puppet animation on the simulated robot, written as a trajectory file.

The joints are floated and a "hand" moves them: a slow sinusoidal torque on every joint (the
external load input of the plant).  The host captures the measured pose every --every seconds.
"""

import argparse
import math
from pathlib import Path

from servobus.host.animation import AnimationRecorder
from servobus.plant import layout as p
from servobus.robot.assembly import Robot, RobotConfig
from servobus.tools.cli import Commands
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("record")
    parser.add_argument("--duration", type=float, default=5.0, help="simulated seconds")
    parser.add_argument("--every", type=float, default=0.5, help="capture interval, s")
    parser.add_argument("--torque", type=float, default=0.03, help="hand torque amplitude, N m")
    parser.add_argument("--out", required=True, help="trajectory file to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_record)


def _do_record(args: argparse.Namespace) -> None:
    if args.duration <= 0 or args.every <= 0:
        raise ValueError("--duration and --every must be positive")
    robot = Robot(RobotConfig(seed=args.seed))
    recorder = AnimationRecorder(robot.host, args.every)
    recorder.start(robot.env)
    step_ns = 10_000_000

    def hand() -> None:
        t = robot.env.now / 1e9
        for k in range(len(robot.bank)):
            robot.bank.params[k, p.LOAD_TORQUE] = -args.torque * math.sin(
                2 * math.pi * 0.4 * t + k)
        robot.env.call_at(robot.env.now + step_ns, hand)

    robot.env.call_at(0, hand)
    robot.run(args.duration)
    trajectory = recorder.trajectory()
    Path(args.out).write_text(trajectory.to_text())
    emit({"lines": len(trajectory.poses), "out": args.out,
          "range_lsb": [int(trajectory.poses.min()), int(trajectory.poses.max())]}, args.json,
         title="recorded trajectory")
