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
from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.output import emit

# a stronger 0.4 Hz hand drives the free joints into the pot's end stops (0.15 N m over 6 s
# records 0..1023 LSB, 0.12 N m 41..983), so the trajectory would be pinned there
HAND_MAX_NM = 0.12


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("record")
    parser.add_argument("--duration", type=units.RUN_SECONDS, default=5.0,
                        help="simulated seconds (1 ms .. 1 day)")
    parser.add_argument("--every", type=units.seconds(0.004, 3600.0), default=0.5,
                        help="capture interval, s (at least one 4 ms period)")
    parser.add_argument("--torque", type=units.real(0.0, HAND_MAX_NM, lo_open=True),
                        default=0.03, help=f"hand torque amplitude, N m, in (0, {HAND_MAX_NM:g}] "
                                           "(more pins the joints at their end stops)")
    parser.add_argument("--out", type=units.ANY_FILE, required=True,
                        help="trajectory file to write")
    parser.add_argument("--seed", type=units.SEED, default=0)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_record)


def _do_record(args: argparse.Namespace) -> None:
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
