"""`servobus ik X Y Z [--rpy R P Y]`: every set of a SPEJBL leg's joint angles that puts the foot
at a pose (``host.leg_kinematics``: the D-H chain from the pelvis, SPEC 4.4)."""

import argparse
import math

from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.output import emit, emit_rows


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("ik")
    for axis in "xyz":
        parser.add_argument(axis, type=units.real(-1000.0, 1000.0), metavar=f"{axis.upper()}_MM",
                            help=f"the foot's {axis} in mm from the hip (the leg's D-H base "
                                 "frame: the leg lies along +x with every angle 0)")
    parser.add_argument("--rpy", type=units.real(-360.0, 360.0), nargs=3, default=[0, 0, 0],
                        metavar=("ROLL", "PITCH", "YAW"),
                        help="the foot frame's orientation in degrees, R = Rz(yaw) Ry(pitch) "
                             "Rx(roll) (default 0 0 0; with every angle 0 the foot frame is "
                             "Rx(-90) of the pelvis')")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_ik)


def _do_ik(args: argparse.Namespace) -> None:
    import numpy as np

    from servobus.host.leg_frame import rpy_matrix
    from servobus.host.leg_kinematics import LENGTH_M, forward, inverse

    pose = np.eye(4)
    pose[:3, :3] = rpy_matrix(*(math.radians(a) for a in args.rpy))
    pose[:3, 3] = [args.x / 1e3, args.y / 1e3, args.z / 1e3]
    solutions = inverse(pose)
    rows = []
    for s in solutions:  # each checked by forward kinematics: position and orientation
        reached = forward(s)
        rows.append({**{f"q{k + 1}_deg": round(math.degrees(q), 6) for k, q in enumerate(s)},
                     "residual_mm": float(np.abs(reached[:3, 3] - pose[:3, 3]).max() * 1e3),
                     "residual_rotation": float(np.abs(reached[:3, :3] - pose[:3, :3]).max())})
    if args.json:
        emit({"leg_length_mm": LENGTH_M * 1e3, "solutions": rows}, True)
    else:
        emit_rows(f"{len(rows)} solutions (q1..q6 from the pelvis, degrees)", rows)
