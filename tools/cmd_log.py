"""`servobus log record|replay`: record any bus to .log/.asc/.blf, replay a log onto any bus."""

import argparse

from servobus.bus.factory import INTERFACES, open_bus
from servobus.bus.recorder import capture, open_writer, read_log, replay_realtime
from servobus.tools.cli import Commands
from servobus.tools.output import emit, warn


def add_subparser(sub: Commands) -> None:
    """Register `log record` and `log replay`."""
    parser = sub.add_parser("log")
    verbs = parser.add_subparsers(dest="verb", required=True)
    record = verbs.add_parser("record", help="record a live bus to a log file")
    record.add_argument("--out", required=True, help="FILE.log / .asc / .blf")
    record.add_argument("--duration", type=float, help="seconds (default: until Ctrl-C)")
    replay = verbs.add_parser("replay", help="send a recorded log to a bus in real time")
    replay.add_argument("file", help="FILE.log / .asc / .blf")
    for verb in (record, replay):
        verb.add_argument("--interface", choices=INTERFACES[1:], default="virtual")
        verb.add_argument("--channel", default="servobus")
        verb.add_argument("--json", action="store_true")
    record.set_defaults(func=_do_record)
    replay.set_defaults(func=_do_replay)


def _do_record(args: argparse.Namespace) -> None:
    if args.duration is not None and args.duration <= 0:
        raise ValueError(f"--duration must be positive, got {args.duration}")
    writer = open_writer(args.out)
    bus = open_bus(args.interface, args.channel)
    try:
        frames = capture(bus, args.duration, [writer.on_message_received])
    finally:
        writer.stop()
        bus.shutdown()
    emit({"frames": frames, "out": args.out}, args.json, title="recorded")


def _do_replay(args: argparse.Namespace) -> None:
    messages = read_log(args.file, warn)
    bus = open_bus(args.interface, args.channel)
    try:
        sent = replay_realtime(bus, messages)
    finally:
        bus.shutdown()
    emit({"frames": sent, "file": args.file}, args.json, title="replayed")
