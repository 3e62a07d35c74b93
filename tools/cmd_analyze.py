"""`servobus analyze current-loop | position-loop`: the linear design views of both loops."""

import argparse
import math

from servobus.analysis.current_loop import analyze, report_dict
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
from servobus.tools.output import emit


def add_subparser(sub: argparse._SubParsersAction) -> None:
    """Register the subcommand and its topics."""
    parser = sub.add_parser("analyze", help="linear analysis of the control loops")
    topics = parser.add_subparsers(dest="topic", required=True)
    current = topics.add_parser("current-loop", help="lifted G(z), PI design, closed-loop step")
    current.add_argument("--sensing", choices=SENSING_CHOICES, default="winding-bipolar",
                         help="front end whose gain sets the controller units")
    current.add_argument("--json", action="store_true")
    current.set_defaults(func=_do_current_loop)
    add_position_loop(topics)


def _do_current_loop(args: argparse.Namespace) -> None:
    report = analyze(HSR_5995TG, DEFAULT_BOARD, args.sensing)
    emit(report_dict(report, DEFAULT_BOARD), args.json, title="current loop (linear model)")


def add_position_loop(topics: argparse._SubParsersAction) -> None:
    """`analyze position-loop`: P(z), the PID tunings, their stability interval in alpha."""
    pos = topics.add_parser("position-loop",
                            help="P(z), tunings R2/R2b/designed, stability in alpha")
    pos.add_argument("--q", type=float, default=THESIS_Q, help="mechanical pole of P(z)")
    pos.add_argument("--tuning", choices=tuple(TUNINGS), action="append",
                     help="tuning(s) to analyse (default: all)")
    pos.add_argument("--json", action="store_true")
    pos.set_defaults(func=_do_position_loop)


def _do_position_loop(args: argparse.Namespace) -> None:
    if not 0.0 < args.q < 1.0:
        raise ValueError(f"--q must be in (0, 1), got {args.q}")
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
