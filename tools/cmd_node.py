"""`servobus node NODE... [--robot NAME|FILE]`: nodes of any robot as one process on a real bus,
in real time -- built from its description exactly as `servobus run` builds them.

One node per process, or any of a time-triggered robot's boards together (one compiled bank):

    servobus node time-trigger --interface socketcan --channel vcan0
    servobus node board --interface socketcan --channel vcan0       (every board)
    servobus node JOINT_3 JOINT_5 --interface socketcan --channel vcan0
    servobus node host --interface socketcan --channel vcan0 [--trajectory FILE]
    servobus node HP_2 --robot guroo --interface socketcan --channel vcan0

The bus is opened as CAN FD when the robot's DBC describes an FD bus, or with --fd.
"""

import argparse

from servobus.tools import units
from servobus.tools.bus_options import add_bus_arguments
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.interrupts import interrupted
from servobus.tools.node_runner import serve
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("node")
    parser.add_argument("nodes", nargs="+", metavar="NODE",
                        help="a node's name in the DBC (JOINT_3, HOST, HP_2, ...) or a kind "
                             "(time-trigger, board, host, central, hp-board, servo-board): all "
                             "of its nodes")
    parser.add_argument("--robot", default="spejbl", metavar="NAME|FILE.toml",
                        help="the robot the nodes belong to (default: spejbl)")
    parser.add_argument("--seed", type=units.SEED, default=0,
                        help="the run's seed: board j's plant noise is its twin's in "
                             "`servobus run --seed S`")
    parser.add_argument("--trajectory", help="the host's trajectory, or the central's gait "
                                             "(default: the description's)")
    add_bus_arguments(parser)
    parser.add_argument("--duration", type=units.RUN_SECONDS, default=None,
                        help="seconds (default: until Ctrl-C or SIGTERM)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_node)


def _do_node(args: argparse.Namespace) -> None:
    from servobus.robot.node_build import NodeOptions, node_names, real_bus_nodes
    from servobus.robot.robot_check import checked

    robot = checked(args.robot)
    names = node_names(robot, args.nodes)
    kinds = {n.kind for n in robot.nodes if n.name in names}
    if len(names) > 1 and kinds != {"board"}:  # a process's nodes hear each other via the bus
        raise ServobusError(f"{', '.join(names)}: one node per process, or a time-triggered "
                            "robot's boards together (one compiled bank): the nodes of one "
                            "process do not hear each other's frames")
    if args.trajectory and not kinds & {"host", "central"}:
        raise ServobusError("--trajectory is the host's or the central's: give host or "
                            "central among the nodes")
    nodes = real_bus_nodes(robot, names, NodeOptions(args.seed, args.trajectory))
    boards = kinds == {"board"}
    runner = serve(args, *nodes, filters=[f for n in nodes for f in n.filters]
                   if boards and len(nodes) > 1 else None,
                   fd=robot.data_bitrate is not None)  # checked against its DBC
    emit({"robot": robot.name, "nodes": {name: node.report()
                                         for name, node in zip(names, nodes, strict=True)},
          "frames_received": runner.received, "timers_late": runner.late,
          "interrupted": interrupted()}, args.json, title=f"{robot.name}: {', '.join(names)}")
