"""`servobus board|boards|tick|host`: nodes as their own process on any python-can bus, in real
time.

    servobus tick   --interface socketcan --channel vcan0
    servobus board  --node 3 --interface socketcan --channel vcan0
    servobus boards --nodes 1-12 --interface socketcan --channel vcan0   (one compiled bank)
    servobus host  --interface socketcan --channel vcan0 [--joints 1,2,3]
"""

import argparse

from servobus.bus.schema import JOINTS, Schema
from servobus.bus.tick_node import TickNode
from servobus.host.host_node import HostNode
from servobus.host.pid import ANTI_WINDUP, PidBank
from servobus.host.supervisor import Supervisor
from servobus.host.trajectory import Player, default_gait, load
from servobus.host.tunings import DEFAULT_TUNING, TUNINGS
from servobus.plant.board_node import BoardNode
from servobus.presets.board import SENSING_CHOICES
from servobus.robot.emulated import board_nodes
from servobus.robot.joint_setup import BOARD_MODES, default_plant
from servobus.tools import units
from servobus.tools.bus_options import add_bus_arguments, add_meas_bytes_argument
from servobus.tools.cli import Commands
from servobus.tools.interrupts import interrupted
from servobus.tools.node_runner import serve
from servobus.tools.output import emit


def _bus_arguments(parser: argparse.ArgumentParser) -> None:
    add_bus_arguments(parser)
    parser.add_argument("--duration", type=units.RUN_SECONDS, default=None,
                        help="seconds (default: until Ctrl-C or SIGTERM)")
    parser.add_argument("--json", action="store_true")


def _board_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=tuple(BOARD_MODES), default="cascade")
    parser.add_argument("--sensing", choices=SENSING_CHOICES, default="supply-unipolar")
    parser.add_argument("--alpha", type=units.ALPHA, default=1.0, help="inertia factor 0.01..100")
    add_meas_bytes_argument(parser)
    parser.add_argument("--seed", type=units.SEED, default=0)
    parser.add_argument("--period", type=units.period_ns(units.REALTIME_PERIOD_MIN_NS),
                        default="4ms", help="the tick period: the longest span a board "
                        "simulates at one tick (a longer gap is skipped, not run late)")
    _bus_arguments(parser)


def add_subparser(sub: Commands) -> None:
    """Register board, boards, tick and host."""
    board = sub.add_parser("board")
    board.add_argument("--node", type=units.integer(1, JOINTS), required=True,
                       help="joint number 1..12")
    _board_arguments(board)
    board.set_defaults(func=_do_board)
    boards = sub.add_parser("boards")
    boards.add_argument("--nodes", type=lambda text: units.joints(text, JOINTS), required=True,
                        help="joints 1..12 as numbers and ranges, e.g. 1-12 or 1,3,5-7")
    _board_arguments(boards)
    boards.set_defaults(func=_do_boards)
    tick = sub.add_parser("tick")
    tick.add_argument("--period", type=units.period_ns(units.REALTIME_PERIOD_MIN_NS), default="4ms",
                      help="tick period, 1 ms .. 10 s (a wall-clock timer in Python cannot "
                           "keep a shorter one)")
    _bus_arguments(tick)
    tick.set_defaults(func=_do_tick)
    host = sub.add_parser("host")
    host.add_argument("--joints", type=lambda text: units.joints(text, JOINTS),
                      default=",".join(str(j) for j in range(1, JOINTS + 1)),
                      help="joints to expect (comma separated)")
    host.add_argument("--trajectory", help="trajectory file (default: the shipped gait)")
    host.add_argument("--anti-windup", choices=ANTI_WINDUP, default="soft")
    host.add_argument("--tuning", choices=tuple(TUNINGS), default=DEFAULT_TUNING)
    add_meas_bytes_argument(host)
    host.add_argument("--local-p", action="store_true", help="boards in local P mode")
    _bus_arguments(host)
    host.set_defaults(func=_do_host)


def _bank_nodes(args: argparse.Namespace, joints: list[int]) -> list[BoardNode]:
    """The command's boards (`board_nodes` with its options)."""
    return board_nodes(joints, args.mode, args.sensing, args.alpha, args.meas_bytes, args.seed,
                       args.period)


def _do_board(args: argparse.Namespace) -> None:
    node, = _bank_nodes(args, [args.node])
    runner = serve(args, node)
    emit({"node": node.name, "frames_received": runner.received, "rx_faults": node.rx_faults,
          "tx_faults": node.tx_faults, "pwm_periods": int(node.bank.done[0]),
          "skipped_s": node.bank.skipped_ns / 1e9, "interrupted": interrupted()},
         args.json, title="board")


def _do_boards(args: argparse.Namespace) -> None:
    nodes = _bank_nodes(args, args.nodes)
    runner = serve(args, *nodes, filters=[f for n in nodes for f in n.filters])
    bank = nodes[0].bank
    emit({"nodes": [n.name for n in nodes], "frames_received": runner.received,
          "rx_faults": sum(n.rx_faults for n in nodes),
          "tx_faults": sum(n.tx_faults for n in nodes),
          "pwm_periods": {n.name: int(p) for n, p in zip(nodes, bank.done, strict=True)},
          "skipped_s": bank.skipped_ns / 1e9, "interrupted": interrupted()},
         args.json, title="boards")


def _do_tick(args: argparse.Namespace) -> None:
    node = TickNode(Schema(), args.period)
    runner = serve(args, node)
    emit({"ticks_sent": node.sent, "ticks_skipped": node.ticks_skipped,
          "tx_faults": node.tx_faults, "timers_late": runner.late,
          "interrupted": interrupted()}, args.json, title="tick")


def _do_host(args: argparse.Namespace) -> None:
    joints = frozenset(args.joints)
    plant = default_plant()
    pids = PidBank.of(TUNINGS[args.tuning], plant.kp, plant.f, JOINTS, args.anti_windup)
    trajectory = load(args.trajectory) if args.trajectory else default_gait()
    node = HostNode(Schema(), pids, Player(trajectory),
                    args.meas_bytes, local_p=args.local_p,
                    supervisor=Supervisor(expected=joints))
    serve(args, node)
    sup = node.supervisor
    emit({"ticks": sup.ticks, "slips": sup.slips, "ticks_out_of_order": sup.ticks_out_of_order,
          "deadline_misses": sup.deadline_misses,
          "servo_faults": {f"JOINT_{j}": n for j, n in sorted(sup.servo_faults.items())},
          "host_window_measured_s": sup.window_stats(), "rx_faults": node.rx_faults,
          "interrupted": interrupted()}, args.json, title="host")
