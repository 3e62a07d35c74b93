"""`servobus bussim`: the protocol's traffic on the simulated bus, with faults and a log."""

import argparse

from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.tools import units
from servobus.tools.bus_options import add_meas_bytes_argument
from servobus.tools.cli import Commands
from servobus.tools.interrupts import interrupted
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("bussim")
    parser.add_argument("--dbc", help="schema file")
    parser.add_argument("--duration", type=units.RUN_SECONDS, default=1.0,
                        help="simulated seconds (1 ms .. 1 day)")
    add_meas_bytes_argument(parser)
    parser.add_argument("--seed", type=units.SEED, default=0)
    parser.add_argument("--fault", action="append", default=[],
                        help='e.g. "corrupt 0x101 at 0.5s count 3", "silence JOINT_5 at 1s", '
                             '"babble 0x001 at 1.0s for 50ms"')
    parser.add_argument("--log", type=units.LOG, help="record to FILE.log / .asc / .blf")
    parser.add_argument("--realtime", type=units.REALTIME_FACTOR, nargs="?", const=1.0,
                        default=None, metavar="FACTOR",
                        help="pace simulated time to wall time (factor 0.01..100)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_bussim)


def _do_bussim(args: argparse.Namespace) -> None:
    sim = ScheduleSim(Schema(args.dbc), args.meas_bytes, args.seed, args.realtime, args.fault,
                      args.log, duration_s=args.duration)
    try:
        report = sim.run(args.duration)
    except KeyboardInterrupt:  # the log is closed: report what ran (exit 130 / 143)
        report = sim.report()
    report["interrupted"] = interrupted()
    emit(report, args.json, title="simulated bus")
