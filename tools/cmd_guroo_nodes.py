"""`servobus central|hp-board|servo-board`: a cyclic robot's nodes (GuRoo's by default) as their
own process on any python-can bus, in real time (the same node objects `servobus run --robot
guroo` assembles).

    servobus central     --interface socketcan --channel vcan0 [--trajectory GAIT]
    servobus hp-board    --board 2 --interface socketcan --channel vcan0 [--loop 2khz]
    servobus servo-board --interface socketcan --channel vcan0
    servobus hp-board    --robot my-arm.toml --board 9 ...    (a node of another description)
"""

import argparse

from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
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
        parser.add_argument("--robot", default="guroo", metavar="FILE.toml|NAME",
                            help="the cyclic robot description the node belongs to "
                                 "(default: guroo)")
        if command == "hp-board":
            parser.add_argument("--board", type=units.integer(*guroo.BOARD_IDS), required=True,
                                help="DIP-switch ID (guroo: 1..5)")
            parser.add_argument("--loop", choices=guroo.LOOPS, default=None,
                                help="control loop: every 400 timer interrupts (2002 source, "
                                     "250 Hz) or a 500 us interrupt (2 kHz); default: the "
                                     "description's (guroo: 2002)")
        if command == "central":
            parser.add_argument("--trajectory", help="gait file (default: the description's, "
                                                     "else the walking pattern)")
        if command != "central":
            parser.add_argument("--seed", type=units.SEED, default=0)
        add_bus_arguments(parser)
        parser.add_argument("--duration", type=units.RUN_SECONDS, default=None,
                            help="seconds (default: until Ctrl-C or SIGTERM)")
        parser.add_argument("--json", action="store_true")
        parser.set_defaults(func=_do_node, kind=command)


def _do_node(args: argparse.Namespace) -> None:
    """Build the node as `run --robot` does, serve it until --duration, report."""
    from servobus.robot import robot_file
    from servobus.robot.described import DescribedConfig, build_node, robot_schema

    robot = robot_file.load(args.robot)
    board = getattr(args, "board", None)
    specs = [s for s in robot.nodes if s.kind == args.kind]
    spec = next((s for s in specs if board in (None, s.board)), None)
    if spec is None:
        have = ", ".join(str(s.board) for s in specs) or "none"
        raise ServobusError(f"{robot.name} has no {args.kind}"
                            f"{'' if board is None else f' {board}'} (its {args.kind}s: {have})")
    config = DescribedConfig(seed=getattr(args, "seed", 0), loop=getattr(args, "loop", None),
                             gait_path=getattr(args, "trajectory", None))
    node = build_node(spec, robot, robot_schema(robot), config)
    runner = serve(args, node)
    emit({"node": spec.name, "frames_received": runner.received, "timers_late": runner.late,
          **node.report(), "interrupted": interrupted()},  # type: ignore[attr-defined]
         args.json, title=spec.name.lower())
