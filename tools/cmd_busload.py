"""`servobus busload`: predicted load and host window of the schedule, or measured load."""

import argparse

from servobus.bus.busload import busload
from servobus.bus.factory import INTERFACES, open_bus
from servobus.bus.schema import Schema
from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.output import emit, warn


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("busload")
    parser.add_argument("--dbc", help="schema file (default: the shipped dbc/servobus.dbc)")
    parser.add_argument("--period", default=None, help="tick period, e.g. 4ms (default: DBC)")
    parser.add_argument("--bitrate", default=None, help="e.g. 1M (default: DBC Baudrate)")
    parser.add_argument("--meas-bytes", type=int, choices=(2, 6), default=2)
    parser.add_argument("--log", help="measure the load of a recorded .log/.asc/.blf instead")
    parser.add_argument("--interface", choices=INTERFACES[1:],
                        help="measure the load of a live bus instead (with --channel)")
    parser.add_argument("--channel", default="servobus")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of live bus")
    parser.add_argument("--window", default="100ms", help="rolling window of --log or a live "
                                                          "bus (e.g. 4ms)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_busload)


def _do_busload(args: argparse.Namespace) -> None:
    schema = Schema(args.dbc)
    rate = units.bitrate(args.bitrate) if args.bitrate else schema.bitrate
    if args.log or args.interface:
        from servobus.bus.load_meter import LoadMeter
        from servobus.bus.recorder import capture, read_log

        meter = LoadMeter(rate, units.duration_ns(args.window) / 1e9)
        if args.log:
            messages = read_log(args.log, warn)
            span = max((m.timestamp for m in messages), default=0.0) - \
                min((m.timestamp for m in messages), default=0.0)
            if span / meter.window_s > 1e7:
                raise ValueError(f"{args.log} spans {span:g} s: over 10 million windows of "
                                 f"{args.window}")
            meter.add_all(messages)
            source = args.log
        else:
            if args.duration <= 0:
                raise ValueError(f"--duration must be positive, got {args.duration}")
            bus = open_bus(args.interface, args.channel)
            try:
                capture(bus, args.duration, [meter.add])
            finally:
                bus.shutdown()
            source = f"{args.interface} {args.channel}"
        report = meter.report()
        if not args.json:
            report.pop("windows")
        emit(report, args.json, title=f"measured load of {source}")
        return
    period = units.duration_ns(args.period) if args.period else None
    report = busload(schema, period, rate, args.meas_bytes)
    if args.json:
        emit(report, True)
        return
    print(f"per-period frames ({report['period_s'] * 1e3:g} ms at {rate / 1e6:g} Mbit/s):")
    print(f"  {'name':<12} {'id':>6} {'dlc':>3} {'6/5':>5} {'davis':>5} {'nostuff':>7}")
    for f in report["schedule"]:
        print(f"  {f['name']:<12} {f['id']:>6} {f['dlc']:>3} {f['stretch_6_5']:>5} "
              f"{f['worst_case']:>5} {f['no_stuffing']:>7}")
    emit({"models": report["models"], "exact": report["exact"]}, False)
    print("worst-case response times (Davis 2007), deadline = period:")
    for m in report["messages"]:
        wcrt = "unbounded" if m["wcrt_s"] is None else f"{m['wcrt_s'] * 1e6:8.1f} us"
        print(f"  {m['name']:<12} {m['id']:>6} {wcrt}  {'ok' if m['meets_deadline'] else 'MISS'}")
