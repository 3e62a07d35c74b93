"""`servobus busload`: predicted load and host window of the schedule, or measured load."""

import argparse

from bus.busload import busload
from bus.load_meter import LoadMeter
from bus.recorder import read_log
from bus.schema import Schema
from tools import units
from tools.output import emit


def add_subparser(sub: argparse._SubParsersAction) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("busload", help="bus load and host timing window")
    parser.add_argument("--dbc", help="schema file (default: the shipped dbc/servobus.dbc)")
    parser.add_argument("--period", default=None, help="tick period, e.g. 4ms (default: DBC)")
    parser.add_argument("--bitrate", default=None, help="e.g. 1M (default: DBC Baudrate)")
    parser.add_argument("--meas-bytes", type=int, choices=(2, 6), default=2)
    parser.add_argument("--log", help="measure the load of a recorded .log/.asc/.blf instead")
    parser.add_argument("--window", default="100ms", help="rolling window of --log (e.g. 4ms)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_busload)


def _do_busload(args: argparse.Namespace) -> None:
    schema = Schema(args.dbc)
    rate = units.bitrate(args.bitrate) if args.bitrate else schema.bitrate
    if args.log:
        meter = LoadMeter(rate, units.duration_ns(args.window) / 1e9)
        report = meter.add_all(read_log(args.log)).report()
        if not args.json:
            report.pop("windows")
        emit(report, args.json, title=f"measured load of {args.log}")
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
