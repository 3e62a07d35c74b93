"""One node process' loop on a real bus: open it, serve the nodes in wall-clock time until
--duration, Ctrl-C or SIGTERM (the caller then reports; exit 130 / 143), close it."""

import argparse
from typing import Any

from can.typechecking import CanFilter

from servobus.bus import factory
from servobus.bus.realtime import RealtimeRunner


def serve(args: argparse.Namespace, *nodes: Any, filters: list[CanFilter] | None = None,
          fd: bool = False) -> RealtimeRunner:
    """Run `nodes` on the bus of --interface/--channel, CAN FD with --fd or `fd` (the robot's
    bus is FD); `filters`: its acceptance filter."""
    bus = factory.open_bus(args.interface, args.channel, fd=args.fd or fd)
    if filters is not None:
        bus.set_filters(filters)
    runner = RealtimeRunner(bus, list(nodes))
    try:
        runner.run(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        bus.shutdown()
    return runner
