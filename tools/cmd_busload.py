"""`servobus busload`: predicted load and host window of the schedule, or measured load."""

import argparse
from pathlib import Path
from typing import Any

from servobus.bus.busload import busload
from servobus.bus.factory import open_bus
from servobus.bus.schema import TIME_TRIGGERED_REQUIRED, Schema, shipped_dbc
from servobus.tools import units
from servobus.tools.bus_options import (
    add_bus_arguments,
    add_frames_argument,
    add_meas_bytes_argument,
    add_robot_argument,
    robot_of,
)
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit, warn


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("busload")
    parser.add_argument("--dbc", help="schema file, or the name of a shipped one (guroo.dbc); "
                                      "a DBC with no TICK is analysed as a cyclic schedule "
                                      "(default: the shipped dbc/servobus.dbc)")
    add_robot_argument(parser, "period, bit rate and measurement size")
    parser.add_argument("--period", type=units.period_ns(), default=None,
                        help="tick period 100us .. 10s, e.g. 4ms (default: --robot's, else "
                             "the DBC's); it must hold one period's frames")
    parser.add_argument("--bitrate", type=units.bitrate, default=None,
                        help="10k .. 1M, e.g. 500k (default: --robot's, else the DBC's "
                             "Baudrate)")
    add_meas_bytes_argument(parser, None, "measurement frame size of the predicted schedule "
                                          "(default: --robot's, else 2)")
    parser.add_argument("--log", help="measure the load of a recorded .log/.asc/.blf instead")
    add_bus_arguments(parser, None, "measure the load of a live bus instead (with --channel)")
    parser.add_argument("--duration", type=units.RUN_SECONDS, default=None,
                        help="seconds of live bus (default 5)")
    add_frames_argument(parser)
    parser.add_argument("--window", type=units.period_ns(hi_ns=3600 * 10**9), default=None,
                        help="rolling window of --log or a live bus, 100us .. 1h "
                             "(default 100ms)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_busload)


def _conflicts(args: argparse.Namespace) -> None:
    """Options that do not go together are an error, never silently ignored."""
    if args.log and args.interface:
        raise ServobusError("--log measures a recording, --interface a live bus: give one")
    if args.duration is not None and not args.interface:
        raise ServobusError("--duration is the length of a live capture: it needs --interface")
    if args.frames is not None and not args.interface:
        raise ServobusError("--frames ends a live capture: it needs --interface")
    if args.window is not None and not (args.log or args.interface):
        raise ServobusError("--window applies to a measured load: it needs --log or --interface")
    if args.meas_bytes is not None and (args.log or args.interface):
        raise ServobusError("--meas-bytes sets the predicted schedule; a measured load counts "
                            "the frames it sees")
    if args.period is not None and (args.log or args.interface):
        raise ServobusError("--period sets the predicted schedule; a measured load has "
                            "--window instead")


def _schema(dbc: str | None) -> tuple[Schema, bool]:
    """The schema (a bare shipped name such as guroo.dbc found in the package) and whether it
    is a cyclic schedule: none of SPEJBL's tick, measurement and actuation messages."""
    path = Path(dbc) if dbc else None
    if path is not None and not path.exists() and path.name == dbc and \
            shipped_dbc(dbc).is_file():
        path = shipped_dbc(dbc)
    schema = Schema(path, required=())
    if {m.name for m in schema.db.messages} & set(TIME_TRIGGERED_REQUIRED):
        return Schema(path), False
    return schema, True


def _do_busload(args: argparse.Namespace) -> None:
    _conflicts(args)
    robot = robot_of(args)
    schema, is_cyclic = _schema(str(robot.dbc) if robot else args.dbc)
    rate = args.bitrate or (robot.bitrate if robot else schema.bitrate)
    if args.log or args.interface:
        from servobus.bus.load_meter import LoadMeter
        from servobus.bus.log_reader import read_log
        from servobus.bus.recorder import capture

        meter = LoadMeter(rate, args.window / 1e9 if args.window else LoadMeter.window_s,
                          data_bitrate=schema.bit_timing.data_bitrate)
        if args.log:
            log = read_log(args.log, warn)
            for msg, where in zip(log, log.places, strict=True):
                try:
                    meter.add(msg)
                except ValueError as err:
                    raise ServobusError(f"{where}: {err}") from err
            source = args.log
        else:
            bus = open_bus(args.interface, args.channel, fd=args.fd or schema.bit_timing.fd)
            try:
                capture(bus, args.duration or 5.0, [meter.add], args.frames)
            finally:
                bus.shutdown()
            source = f"{args.interface} {args.channel}"
        report = meter.report()
        if meter.overlapping:
            warn(f"{meter.overlapping} frames began before the previous one ended at "
                 f"{meter.timing.describe()}: is that the bus's bit rate? (charged without "
                 "overlap)")
        if not args.json:
            report.pop("windows")
        emit(report, args.json, title=f"measured load of {source}")
        return
    if is_cyclic:
        _cyclic(args, schema, rate)
        return
    period = args.period or (robot.period_ns if robot else None)
    local_p = robot is not None and any(j.options is not None and j.options.mode == "local-p"
                                        for j in robot.joints)
    report = busload(schema, period, rate, args.meas_bytes or (robot.meas_bytes if robot else 2),
                     local_p)
    if args.json:
        emit(report, True)
        return
    print(f"per-period frames ({report['period_s'] * 1e3:g} ms at {report['bit_timing']}), "
          "bits on the wire / us:")
    print(f"  {'name':<12} {'id':>6} {'dlc':>3} {'fd':>6} {'6/5':>11} {'davis':>11} "
          f"{'nostuff':>11}")
    for f in report["schedule"]:
        print(f"  {f['name']:<12} {f['id']:>6} {f['dlc']:>3} {_fd(f):>6} {_cell(f, 'stretch_6_5')}"
              f" {_cell(f, 'worst_case')} {_cell(f, 'no_stuffing')}".rstrip())
    emit({"models": report["models"], "exact": report["exact"]}, False)
    print("worst-case response times (Davis 2007), deadline = each message's own period:")
    for m in report["messages"]:
        wcrt = "unbounded" if m["wcrt_s"] is None else f"{m['wcrt_s'] * 1e6:8.1f} us"
        print(f"  {m['name']:<12} {m['id']:>6} {wcrt}  {'ok' if m['meets_deadline'] else 'MISS'}")


def _cyclic(args: argparse.Namespace, schema: Schema, rate: int) -> None:
    """The report of a schedule with no tick (GuRoo): slots of the hyperperiod, WCRTs."""
    from servobus.bus.busload_cyclic import busload_cyclic

    for option, value in (("--period", args.period), ("--meas-bytes", args.meas_bytes)):
        if value is not None:
            raise ServobusError(f"{option} applies to a tick schedule; {schema.path.name} is "
                                "cyclic (its periods are its GenMsgCycleTime values)")
    try:
        report = busload_cyclic(schema, rate)
    except ValueError as err:
        raise ServobusError(str(err)) from err
    if args.json:
        emit(report, True)
        return
    print(f"cyclic schedule: hyperperiod {report['hyperperiod_s'] * 1e3:g} ms, slots of "
          f"{report['slot_s'] * 1e3:g} ms at {report['bit_timing']}, bits on the wire / us:")
    print(f"  {'name':<12} {'id':>6} {'dlc':>3} {'fd':>6} {'cycle':>6} {'6/5':>11} "
          f"{'davis':>11} {'nostuff':>11}")
    for f in report["schedule"]:
        print(f"  {f['name']:<12} {f['id']:>6} {f['dlc']:>3} {_fd(f):>6} "
              f"{f['cycle_s'] * 1e3:>4g}ms {_cell(f, 'stretch_6_5')} {_cell(f, 'worst_case')} "
              f"{_cell(f, 'no_stuffing')}".rstrip())
    emit({name: _without_slots(model) for name, model in
          (*report["models"].items(), ("exact", report["exact"]))}, False)
    print("per slot: frame bits / time left (us)")
    for name, model in (*report["models"].items(), ("exact", report["exact"])):
        cells = "  ".join(f"{r['frame_bits']}/{r['time_left_s'] * 1e6:g}" for r in model["slots"])
        print(f"  {name:<12} {cells}")
    print("worst-case response times (Davis 2007), deadline = each message's own cycle:")
    for m in report["messages"]:
        wcrt = "unbounded" if m["wcrt_s"] is None else f"{m['wcrt_s'] * 1e6:8.1f} us"
        print(f"  {m['name']:<12} {m['id']:>6} {wcrt}  {'ok' if m['meets_deadline'] else 'MISS'}")


def _fd(frame: dict[str, Any]) -> str:
    """A schedule row's frame format: 'fd+brs', 'fd' or '' (classic)."""
    return ("fd+brs" if frame["brs"] else "fd") if frame["fd"] else ""


def _cell(frame: dict[str, Any], model: str) -> str:
    """A schedule row's frame under one model: bits on the wire / its time in us."""
    return f"{frame[model]:>4}/{frame[model + '_ns'] / 1e3:<6g}"


def _without_slots(model: dict[str, Any]) -> dict[str, Any]:
    """A model's summary for the table (its slots are printed as one line)."""
    return {k: v for k, v in model.items() if k != "slots"}
