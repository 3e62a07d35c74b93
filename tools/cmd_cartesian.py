"""`servobus cartesian POSES_FILE [--robot NAME|FILE.toml] [--out FILE.traj [--force]]`: a
Cartesian trajectory (the feet's poses over time, ``host.poses_file``) as a `.traj` file of
the robot's joints in pot LSB, through its legs' inverse kinematics (``host.cartesian``)."""

import argparse
from importlib import resources
from pathlib import Path

from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import refuse_overwrite


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("cartesian")
    parser.add_argument("poses", metavar="POSES_FILE",
                        help="the feet's poses over time (docs/robot-file.md \"Legs\"): a file, "
                             "else a shipped one by name (step_in_place.poses)")
    parser.add_argument("--robot", default="spejbl", metavar="NAME|FILE.toml",
                        help="the robot whose legs ([[legs]]) take the poses (default: spejbl)")
    parser.add_argument("--out", type=units.output_file((".traj",)), metavar="FILE.traj",
                        help="write the trajectory here (an existing file only with --force; "
                             "default: print it)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    parser.set_defaults(func=_do_cartesian)


def _do_cartesian(args: argparse.Namespace) -> None:
    from servobus.host import poses_file
    from servobus.host.cartesian import joint_trajectory
    from servobus.robot import robot_file

    robot = robot_file.load(args.robot)
    if not robot.legs:
        raise ServobusError(f"{robot.path}: legs: missing: the robot names no legs "
                            "([[legs]], docs/robot-file.md)")
    path = _poses_path(args.poses)
    lines = poses_file.load(path, tuple(leg.name for leg in robot.legs))
    trajectory = joint_trajectory(lines, robot.legs, len(robot.joints), str(path))
    text = (f"# made by `servobus cartesian {path.name} --robot {robot.name}`: the feet's "
            "poses through the legs' inverse kinematics\n" + trajectory.to_text())
    if args.out is None:
        print(text, end="")
        return
    refuse_overwrite(args.out, args.force)
    Path(args.out).write_text(text)
    print(f"wrote {args.out} ({len(lines)} lines, {robot.name}: {len(robot.joints)} joints, "
          f"{trajectory.period_s:g} s a pass)")


def _poses_path(name: str) -> Path:
    """The poses file: a path, else a shipped one (host/data) by its bare name."""
    path = Path(name)
    shipped = Path(str(resources.files("servobus.host.data").joinpath(name)))
    if not path.is_file() and "/" not in name and shipped.is_file():
        return shipped
    return path
