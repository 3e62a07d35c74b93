"""`servobus bussim`: the protocol's traffic on the simulated bus, with faults and a log."""

import argparse

from servobus.bus.recorder import LogWriteError
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.tools import units
from servobus.tools.bus_options import add_meas_bytes_argument, add_robot_argument, robot_of
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.interrupts import held_until_reported, interrupted
from servobus.tools.output import emit


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("bussim")
    parser.add_argument("--dbc", help="schema file (default: the shipped dbc/servobus.dbc)")
    add_robot_argument(parser, "measurement size")
    parser.add_argument("--duration", type=units.RUN_SECONDS, default=1.0,
                        help="simulated seconds (1 ms .. 1 day)")
    add_meas_bytes_argument(parser, None, "measurement frame size (default: --robot's, else 2)")
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
    robot = robot_of(args, time_triggered=True)
    meas_bytes = args.meas_bytes or (robot.meas_bytes if robot else 2)
    sim = ScheduleSim(Schema(robot.dbc if robot else args.dbc), meas_bytes, args.seed,
                      args.realtime, args.fault, args.log, duration_s=args.duration)
    log_error = None
    with held_until_reported():  # Ctrl-C stops the run between two frames: the report follows
        try:
            report = sim.run(args.duration)
        except LogWriteError as err:  # a full disk: the run stops, its report follows
            log_error, report = err, sim.report()
        report["interrupted"] = interrupted()
        emit(report, args.json, title="simulated bus")
    if log_error is not None:
        raise ServobusError(f"{log_error.strerror}; the run stopped at "
                            f"{report['sim_time_s']:g} s (the report above)") from log_error
