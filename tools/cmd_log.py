"""`servobus log record|replay`: record any bus to .log/.asc/.blf, replay a log onto any bus."""

import argparse
from collections.abc import Callable

import can

from servobus.bus.factory import open_bus
from servobus.bus.log_reader import read_log
from servobus.bus.recorder import (
    REPLAY_IDLE_S,
    LogWriteError,
    capture,
    long_gaps,
    open_writer,
    replay_realtime,
)
from servobus.tools import units
from servobus.tools.bus_options import add_bus_arguments, add_frames_argument
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.interrupts import interrupted
from servobus.tools.output import emit, warn


def add_subparser(sub: Commands) -> None:
    """Register `log record` and `log replay`."""
    parser = sub.add_parser("log")
    verbs = parser.add_subparsers(dest="verb", required=True)
    record = verbs.add_parser("record", help="record a live bus to a log file")
    record.add_argument("--out", type=units.LOG, required=True, help="FILE.log / .asc / .blf")
    record.add_argument("--duration", type=units.RUN_SECONDS,
                        help="seconds (default: until Ctrl-C or SIGTERM)")
    add_frames_argument(record)
    replay = verbs.add_parser("replay", help="send a recorded log to a bus in real time")
    replay.add_argument("file", help="FILE.log / .asc / .blf")
    for verb in (record, replay):
        add_bus_arguments(verb)
        verb.add_argument("--json", action="store_true")
    record.set_defaults(func=_do_record)
    replay.set_defaults(func=_do_replay)


def _do_record(args: argparse.Namespace) -> None:
    bus = open_bus(args.interface, args.channel, fd=args.fd)
    writer = open_writer(args.out)
    sink = Counter(writer.on_message_received)
    log_error = None
    try:
        # ends quietly on Ctrl-C / SIGTERM (exit 130 / 143)
        capture(bus, args.duration, [sink], args.frames)
    except can.CanError as err:  # e.g. `ip link set can0 down`: say where the frames are
        raise ServobusError(f"{args.interface} {args.channel}: {err}; recording stopped, "
                            f"{sink.frames} frames written to {args.out}") from err
    except LogWriteError as err:  # a full disk: the frames so far are reported
        log_error = err
    finally:
        try:
            writer.stop()
        except LogWriteError as err:
            log_error = err
        bus.shutdown()
    emit({"frames": sink.frames, "out": args.out, "interrupted": interrupted()}, args.json,
         title="recorded")
    if log_error is not None:
        raise ServobusError(f"{log_error.strerror}; recording stopped") from log_error


class Counter:
    """A sink that counts the frames it passes on (the count survives an interruption)."""

    def __init__(self, sink: Callable[[can.Message], None]) -> None:
        self.sink = sink
        self.frames = 0

    def __call__(self, msg: can.Message) -> None:
        """Pass one frame on."""
        self.frames += 1
        self.sink(msg)


def _do_replay(args: argparse.Namespace) -> None:
    messages = read_log(args.file, warn)
    if gaps := long_gaps(messages):
        first = gaps[0]
        idle = messages[first].timestamp - messages[first - 1].timestamp
        warn(f"{messages.places[first]}: {idle:g} s after the frame before: sent "
             f"{REPLAY_IDLE_S:g} s after it ({len(gaps)} gaps longer than "
             f"{REPLAY_IDLE_S:g} s are cut to it)")
    fd_frames = sum(msg.is_fd for msg in messages)
    if fd_frames and not args.fd:
        warn(f"{args.file}: {fd_frames} CAN FD frames replayed onto a bus opened classic "
             "(give --fd: a classic SocketCAN socket refuses them)")
    bus = open_bus(args.interface, args.channel, fd=args.fd)
    try:
        sent = replay_realtime(bus, messages)
    finally:
        bus.shutdown()
    emit({"frames": sent, "file": args.file}, args.json, title="replayed")
