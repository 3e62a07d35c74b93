"""`servobus analyze current-loop | position-loop | limit-cycle`: the loops' design views and
the hold at rest."""

import argparse
import math

from servobus.host.position_loop import (
    PositionPlant,
    alpha_max,
    critical_omega,
    largest_pole,
    step_figures,
)
from servobus.host.tunings import (
    DEFAULT_ROBOT_KP,
    DEFAULT_ROBOT_KP_SE,
    DEFAULT_ROBOT_Q,
    DEFAULT_ROBOT_Q_SE,
    DEFAULT_TUNING,
    IDENTIFICATION,
    THESIS_Q,
    TUNINGS,
)
from servobus.presets.board import DEFAULT_BOARD, SENSING_CHOICES
from servobus.presets.servos import HSR_5995TG
from servobus.tools import units
from servobus.tools.board_options import add_adc_window_argument
from servobus.tools.bus_options import add_robot_argument, robot_of
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit, warn


def add_subparser(sub: Commands) -> None:
    """Register the subcommand and its topics."""
    parser = sub.add_parser("analyze")
    topics = parser.add_subparsers(dest="topic", required=True)
    current = topics.add_parser("current-loop", help="lifted G(z), PI design, closed-loop step")
    current.add_argument("--sensing", choices=SENSING_CHOICES, default="winding-bipolar",
                         help="front end whose gain sets the controller units (default: the "
                              "corrected bipolar one, the only linear one; step/run default "
                              "to supply-unipolar)")
    add_adc_window_argument(current)
    current.add_argument("--json", action="store_true")
    current.set_defaults(func=_do_current_loop)
    add_position_loop(topics)
    add_limit_cycle(topics)
    add_timing(topics)
    add_feathering(topics)


def _do_current_loop(args: argparse.Namespace) -> None:
    from servobus.analysis.current_loop import analyze, report_dict

    result = report_dict(analyze(HSR_5995TG, DEFAULT_BOARD, args.sensing, args.adc_window),
                         DEFAULT_BOARD)
    if args.json:
        emit(result, True)
        return
    timing = result.pop("timing")
    for key in ("zeros", "poles"):  # [re, im] pairs in JSON, complex numbers for people
        result[key] = [complex(re, im) if im else re for re, im in result[key]]
    emit(result, False, title=f"current loop (linear model, {args.sensing} sensing, "
                              f"ADC window {args.adc_window})")
    print("closed-loop step per sampling phase (window ends phase*T/N before edge k) and delay "
          "(output acts from edge k+delay):")
    print(f"  {'phase':>5} {'delay':>5} {'overshoot_pct':>13} {'peak_periods':>12} "
          f"{'min_phase':>9}")
    for row in timing:
        over = "unstable" if not row["stable"] else f"{row['overshoot_pct']:.3f}"
        peak = "-" if not row["stable"] else str(row["peak_periods"])
        print(f"  {row['phase']:>5} {row['delay']:>5} {over:>13} {peak:>12} "
              f"{'yes' if row['minimum_phase'] else 'no':>9}")


def add_position_loop(topics: argparse._SubParsersAction) -> None:
    """`analyze position-loop`: P(z), the PID tunings, their stability interval in alpha."""
    pos = topics.add_parser("position-loop",
                            help="P(z), tunings R2/R2b/designed, stability in alpha")
    pos.add_argument("--q", type=units.real(0.0, 1.0, lo_open=True, hi_open=True),
                     default=THESIS_Q, help="mechanical pole of P(z), in (0, 1)")
    pos.add_argument("--tuning", choices=tuple(TUNINGS), action="append",
                     help="tuning(s) to analyse (default: all)")
    pos.add_argument("--json", action="store_true")
    pos.set_defaults(func=_do_position_loop)


def _do_position_loop(args: argparse.Namespace) -> None:
    plant = PositionPlant(kp=1.0, q=args.q, f=float(DEFAULT_BOARD.can_hz))
    w_crit = critical_omega(plant)
    result: dict = {"q": args.q, "tm_s": plant.tm_s, "critical_hz": w_crit / (2 * math.pi),
                    "critical_rad_s": w_crit, "kp_scaling": "K_P(alpha) = K_P (1 - q^(1/alpha))"
                    " / (1 - q): the static speed per ampere K_t/B does not change with the "
                    "load", "default_tuning": DEFAULT_TUNING,
                    "identified": {"q": DEFAULT_ROBOT_Q, "q_se": DEFAULT_ROBOT_Q_SE,
                                   "kp": DEFAULT_ROBOT_KP, "kp_se": DEFAULT_ROBOT_KP_SE,
                                   "settings": IDENTIFICATION},
                    "tunings": {}}
    for name in args.tuning or TUNINGS:
        tuning = TUNINGS[name]
        gains = tuning.gains(plant.kp, plant.f)
        fig = step_figures(plant, gains)
        result["tunings"][name] = {
            "omega_d": tuning.omega_d, "omega_i": tuning.omega_i, "K_times_KP": tuning.k_kp,
            "overshoot_pct": fig.overshoot_pct,
            "settling_s": fig.settling_periods / plant.f,
            "largest_pole": largest_pole(plant, gains),
            "alpha_max": alpha_max(plant, gains),
        }
    emit(result, args.json, title="position loop (linear model)")


def add_limit_cycle(topics: argparse._SubParsersAction) -> None:
    """`analyze limit-cycle`: a long hold of one joint, its oscillation and its three states."""
    from servobus.bus.dbc_generate import JOINTS_MAX
    from servobus.plant.build import OFFSET_STAGES

    lc = topics.add_parser("limit-cycle", help="hold one joint still: oscillation amplitude, "
                           "frequency, current swing, share of rest / regular / chaos")
    lc.add_argument("--robot", default="spejbl", metavar="NAME|FILE.toml",
                    help="a shipped time-triggered robot (spejbl, spejbl-leg) or a description "
                         "file: the joint's preset, sensing and tuning are its")
    lc.add_argument("--joint", type=units.integer(1, JOINTS_MAX), default=1,
                    help="the joint held, 1..the robot's joints (default 1)")
    lc.add_argument("--sensing", choices=SENSING_CHOICES, default=None,
                    help="the joint's current front end (default: the description's)")
    lc.add_argument("--tuning", choices=tuple(TUNINGS), default=None,
                    help="the host PID's tuning (default: the description's)")
    lc.add_argument("--no-integral", action="store_true", help="position PID without its I term")
    lc.add_argument("--load-torque", type=units.real(-1.0, 1.0), default=0.0, metavar="NM",
                    help="constant load torque on the output shaft, within +-1 N m")
    lc.add_argument("--mode", choices=("cascade", "voltage-pid"), default="cascade",
                    help="host PID -> current reference, or -> PWM duty (no current loop)")
    lc.add_argument("--zero-offset", type=units.real(-1.0, 1.0), default=None, metavar="A",
                    help="as-built amplifier offset in amperes, within +-1 (default: the "
                         "board's, -0.02)")
    lc.add_argument("--offset-stage", choices=OFFSET_STAGES, default=None,
                    help="where the offset acts: on the filtered signal (default) or on the "
                         "PWM pulses")
    lc.add_argument("--kick", type=units.integer(-100, 100), default=3, metavar="LSB",
                    help="the reference starts this far from the joint, within +-100 LSB")
    lc.add_argument("--seconds", type=units.seconds(6.0, 3600.0), default=60.0,
                    help="simulated seconds, 6 s (the 2 s settling time and two 2 s analysis "
                         "windows) .. 1 h")
    lc.add_argument("--seed", type=units.SEED, default=0)
    lc.add_argument("--json", action="store_true")
    lc.add_argument("--plot", type=units.PNG, metavar="FILE.png",
                    help="plot 0.4 s from the first window not at rest")
    lc.set_defaults(func=_do_limit_cycle)


def _do_limit_cycle(args: argparse.Namespace) -> None:
    from servobus.robot.limit_cycle import HoldConfig, analyze, held_joint

    cfg = HoldConfig(robot=args.robot, joint=args.joint, sensing=args.sensing,
                     tuning=args.tuning, integral=not args.no_integral,
                     load_torque=args.load_torque, mode=args.mode, seconds=args.seconds,
                     seed=args.seed, kick_lsb=args.kick, zero_offset_a=args.zero_offset,
                     offset_stage=args.offset_stage or "after-rc")
    if (args.zero_offset is not None or args.offset_stage) and \
            held_joint(cfg).options.sensing == "winding-bipolar":
        raise ServobusError("--zero-offset and --offset-stage model the as-built "
                            "supply-unipolar front end; the corrected bipolar one has none")
    report, trace, states = analyze(cfg)
    if args.plot:
        from servobus.robot.limit_cycle_plot import plot_hold

        plot_hold(trace, states, cfg, args.plot)
    emit(report, args.json, title="limit cycle at rest (one joint)")


def add_timing(topics: argparse._SubParsersAction) -> None:
    """`analyze timing`: tick jitter, latencies, misses and slips of a recorded bus log."""
    timing = topics.add_parser("timing", help="real-time behaviour of a recorded log: tick "
                                              "jitter, tick->measurement/actuation latency, "
                                              "missing frames, slips")
    timing.add_argument("--log", required=True, help="FILE.log / .asc / .blf (servobus log record)")
    timing.add_argument("--dbc", help="schema the log was recorded with (default: the shipped "
                                      "dbc/servobus.dbc)")
    add_robot_argument(timing, "period")
    timing.add_argument("--period", type=units.period_ns(), default=None,
                        help="the nominal tick period the log was recorded at (default: "
                             "--robot's, else the DBC's TICK cycle: 4 ms on SPEJBL)")
    timing.add_argument("--data-bitrate", type=units.data_bitrate, default=None,
                        help="the data phase's bit rate of a CAN FD bus, up to 8M, e.g. 5M "
                             "(default: the DBC's; a log with CAN FD frames needs one)")
    timing.add_argument("--json", action="store_true")
    timing.set_defaults(func=_do_timing)


def _do_timing(args: argparse.Namespace) -> None:
    from servobus.bus.bit_timing import BitTiming
    from servobus.bus.schema import Schema
    from servobus.bus.timing import analyze_log

    robot = robot_of(args, time_triggered=True)
    schema = Schema(robot.dbc if robot else args.dbc)
    period = args.period or (robot.period_ns if robot else schema.tick_period_ns)
    bus = schema.bit_timing
    if args.data_bitrate is not None:
        try:
            bus = BitTiming(bus.bitrate, args.data_bitrate)
        except ValueError as err:  # below the nominal rate
            raise ServobusError(f"--data-bitrate {args.data_bitrate}: {err}") from err
    emit(analyze_log(args.log, period, schema, warn, bus), args.json,
         title=f"bus timing of {args.log} at a {period / 1e6:g} ms period, {bus.describe()}")


def add_feathering(topics: argparse._SubParsersAction) -> None:
    """`analyze feathering`: GuRoo's 16x finer average duty, shown with a set-point step."""
    feather = topics.add_parser("feathering", help="GuRoo high-power board: the mean compare "
                                                   "value per 16 PWM periods around a small "
                                                   "velocity set-point step")
    from servobus.presets import guroo

    feather.add_argument("--loop", choices=guroo.LOOPS, default="2002")
    feather.add_argument("--word", type=units.integer(-2000, 2000), default=1000,
                         help="set-point before the step, 16 cnt/s per LSB")
    feather.add_argument("--step", type=units.integer(-100, 100), default=1,
                         help="the step, in set-point LSB (16 cnt/s)")
    feather.add_argument("--json", action="store_true")
    feather.set_defaults(func=_do_feathering)


def _do_feathering(args: argparse.Namespace) -> None:
    from servobus.plant.guroo_bench import feathering_step

    emit(feathering_step(args.loop, args.word, args.step), args.json,
         title="GuRoo feathering around a set-point step")
