"""`servobus central|hp-board|servo-board`: GuRoo's nodes as their own process on any python-can
bus, in real time (the same node objects `servobus run --robot guroo` assembles).

    servobus central     --interface socketcan --channel vcan0 [--trajectory GAIT]
    servobus hp-board    --board 2 --interface socketcan --channel vcan0 [--loop 2khz]
    servobus servo-board --interface socketcan --channel vcan0
"""

import argparse

from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.interrupts import interrupted
from servobus.tools.node_runner import serve
from servobus.tools.output import emit

NODE_KINDS = ("central", "hp-board", "servo-board")  # the commands, named as the node kinds


def add_subparser(sub: Commands) -> None:
    """Register central, hp-board and servo-board."""
    from servobus.presets import guroo
    from servobus.tools.bus_options import add_bus_arguments

    for command in NODE_KINDS:
        parser = sub.add_parser(command)
        if command == "hp-board":
            parser.add_argument("--board", type=units.integer(1, guroo.HP_BOARDS), required=True,
                                help=f"DIP-switch ID 1..{guroo.HP_BOARDS}")
            parser.add_argument("--loop", choices=guroo.LOOPS, default="2002",
                                help="control loop: every 400 timer interrupts (2002 source, "
                                     "250 Hz) or a 500 us interrupt (2 kHz)")
        if command == "central":
            parser.add_argument("--trajectory", help="gait file (default: the walking pattern)")
        if command != "central":
            parser.add_argument("--seed", type=units.SEED, default=0)
        add_bus_arguments(parser)
        parser.add_argument("--duration", type=units.RUN_SECONDS, default=None,
                            help="seconds (default: until Ctrl-C or SIGTERM)")
        parser.add_argument("--json", action="store_true")
        parser.set_defaults(func=_do_node, kind=command)


def _do_node(args: argparse.Namespace) -> None:
    """Build the node as `run --robot guroo` does, serve it until --duration, report."""
    from servobus.robot import robot_file
    from servobus.robot.described import DescribedConfig, build_node, robot_schema

    robot = robot_file.load("guroo")
    board = getattr(args, "board", None)
    spec = next(s for s in robot.nodes if s.kind == args.kind and board in (None, s.board))
    config = DescribedConfig(seed=getattr(args, "seed", 0), loop=getattr(args, "loop", "2002"),
                             gait_path=getattr(args, "trajectory", None))
    node = build_node(spec, robot, robot_schema(robot), config)
    runner = serve(args, node)
    emit({"node": spec.name, "frames_received": runner.received, "timers_late": runner.late,
          **node.report(), "interrupted": interrupted()},  # type: ignore[attr-defined]
         args.json, title=spec.name.lower())
