"""`servobus board|tick|host`: one node as its own process on any python-can bus, in real time.

    servobus tick  --interface socketcan --channel vcan0
    servobus board --node 3 --interface socketcan --channel vcan0
    servobus host  --interface socketcan --channel vcan0 [--joints 1,2,3]
"""

import argparse
from typing import Any

import numpy as np

from servobus.bus.factory import INTERFACES, open_bus
from servobus.bus.realtime import RealtimeRunner
from servobus.bus.schema import JOINTS, Schema
from servobus.bus.tick_node import TickNode
from servobus.host.host_node import HostNode
from servobus.host.pid import ANTI_WINDUP, PidBank
from servobus.host.supervisor import Supervisor
from servobus.host.trajectory import Player, default_gait, load
from servobus.host.tunings import DEFAULT_TUNING, TUNINGS
from servobus.plant.board_bank import BoardBank
from servobus.plant.board_node import BoardNode
from servobus.plant.build import PlantOptions
from servobus.presets.board import SENSING_CHOICES
from servobus.robot.assembly import BOARD_MODES, default_plant
from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.interrupts import interrupted
from servobus.tools.output import emit


def _bus_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--interface", choices=INTERFACES[1:], default="virtual")
    parser.add_argument("--channel", default="servobus", help="e.g. vcan0, ws://127.0.0.1:54701/")
    parser.add_argument("--duration", type=units.WALL_SECONDS, default=None,
                        help="seconds (default: until Ctrl-C or SIGTERM)")
    parser.add_argument("--json", action="store_true")


def add_subparser(sub: Commands) -> None:
    """Register board, tick and host."""
    board = sub.add_parser("board")
    board.add_argument("--node", type=units.integer(1, JOINTS), required=True,
                       help="joint number 1..12")
    board.add_argument("--mode", choices=tuple(BOARD_MODES), default="cascade")
    board.add_argument("--sensing", choices=SENSING_CHOICES, default="supply-unipolar")
    board.add_argument("--alpha", type=units.ALPHA, default=1.0, help="inertia factor 0.01..100")
    board.add_argument("--meas-bytes", type=int, choices=(2, 6), default=2)
    board.add_argument("--seed", type=units.SEED, default=0)
    _bus_arguments(board)
    board.set_defaults(func=_do_board)
    tick = sub.add_parser("tick")
    tick.add_argument("--period", type=units.period_ns(units.REALTIME_PERIOD_MIN_NS), default="4ms",
                      help="tick period, 1 ms .. 10 s (a wall-clock timer in Python cannot "
                           "keep a shorter one)")
    _bus_arguments(tick)
    tick.set_defaults(func=_do_tick)
    host = sub.add_parser("host")
    host.add_argument("--joints", type=units.joints,
                      default=",".join(str(j) for j in range(1, JOINTS + 1)),
                      help="joints to expect (comma separated)")
    host.add_argument("--trajectory", help="trajectory file (default: the shipped gait)")
    host.add_argument("--anti-windup", choices=ANTI_WINDUP, default="soft")
    host.add_argument("--tuning", choices=tuple(TUNINGS), default=DEFAULT_TUNING)
    host.add_argument("--meas-bytes", type=int, choices=(2, 6), default=2)
    host.add_argument("--local-p", action="store_true", help="boards in local P mode")
    _bus_arguments(host)
    host.set_defaults(func=_do_host)


def _serve(args: argparse.Namespace, node: Any) -> RealtimeRunner:
    """Run the node until --duration, Ctrl-C or SIGTERM (then exit 130 / 143 after the report)."""
    bus = open_bus(args.interface, args.channel)
    runner = RealtimeRunner(bus, [node])
    try:
        runner.run(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        bus.shutdown()
    return runner


def _do_board(args: argparse.Namespace) -> None:
    options = PlantOptions(sensing=args.sensing, rotor="free", alpha=args.alpha, seed=args.seed)
    bank = BoardBank([options], [BOARD_MODES[args.mode]], seed=args.seed)
    node = BoardNode(bank, 0, Schema(), args.meas_bytes, BOARD_MODES[args.mode], joint=args.node)
    runner = _serve(args, node)
    emit({"node": node.name, "frames_received": runner.received, "rx_faults": node.rx_faults,
          "tx_faults": node.tx_faults, "pwm_periods": int(bank.done[0]),
          "interrupted": interrupted()}, args.json, title="board")


def _do_tick(args: argparse.Namespace) -> None:
    node = TickNode(Schema(), args.period)
    runner = _serve(args, node)
    emit({"ticks_sent": node.sent, "tx_faults": node.tx_faults, "timers_late": runner.late,
          "interrupted": interrupted()}, args.json, title="tick")


def _do_host(args: argparse.Namespace) -> None:
    joints = frozenset(args.joints)
    plant = default_plant()
    gains = np.tile(TUNINGS[args.tuning].gains(plant.kp, plant.f), (JOINTS, 1))
    trajectory = load(args.trajectory) if args.trajectory else default_gait()
    node = HostNode(Schema(), PidBank(gains, anti_windup=args.anti_windup), Player(trajectory),
                    args.meas_bytes, local_p=args.local_p,
                    supervisor=Supervisor(expected=joints))
    _serve(args, node)
    sup = node.supervisor
    emit({"ticks": sup.ticks, "slips": sup.slips, "deadline_misses": sup.deadline_misses,
          "servo_faults": {f"JOINT_{j}": n for j, n in sorted(sup.servo_faults.items())},
          "host_window_measured_s": sup.window_stats(), "rx_faults": node.rx_faults,
          "interrupted": interrupted()}, args.json, title="host")
