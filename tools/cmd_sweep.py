"""`servobus sweep`: many runs of the robot as one Dask job (sweep files: docs/sweeps.md)."""

import argparse
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from servobus.bus.dbc_generate import JOINTS_MAX
from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit, emit_rows

HEAD_ROWS = 8
# the sweep file's values that are no `run` option: the tuning axes replace a tuning's corner
# frequencies (rad/s; the 4 ms loop's Nyquist is 785 rad/s) and its loop gain K·K_P; the fault
# axes become fault lines (`random-corrupt RATE`, a silence of MS ms); the [measure] settings
OMEGA = units.real(0.0, 10_000.0, lo_open=True)
SWEEP_TYPES: dict[str, Callable[[str], Any]] = {
    "omega_d": OMEGA, "omega_i": OMEGA, "k_kp": units.real(0.0, 10.0, lo_open=True),
    "corrupt_rate": units.real(0.0, 1.0), "silence_ms": units.real(0.0, 86_400_000.0),
    "replicate": units.integer(0, 10**9),
    "measure.window_s": units.real(0.001, 86_400.0), "measure.threshold_lsb":
        units.real(0.0, 1023.0), "measure.min_growth": units.real(0.0, 1e6),
    "measure.joint": units.integer(1, JOINTS_MAX), "measure.at_s": units.real(0.0, 86_400.0),
    "measure.value": str}


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("sweep")
    parser.add_argument("spec", metavar="SPEC",
                        help="sweep file (.toml) or a shipped sweep: alpha-scan, tuning-map, "
                             "fault-campaign")
    parser.add_argument("--scheduler", metavar="ADDR",
                        help="a running Dask scheduler (tcp://HOST:8786); default: an embedded "
                             "local cluster")
    parser.add_argument("--workers", type=units.integer(1, 256), default=None,
                        help="worker processes of the embedded cluster (default 2)")
    parser.add_argument("--out", type=units.output_file((".parquet",)), default=None,
                        metavar="FILE.parquet",
                        help="result table (Parquet; CSV next to it; default NAME.parquet)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the finished points of --out, compute the rest")
    parser.add_argument("--plot", type=units.PNG, metavar="FILE.png", help="the sweep's plot")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_sweep)


class _Options(argparse.ArgumentParser):
    """A parser that keeps each option it is given, by its destination."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: dict[str, argparse.Action] = {}  # before argparse adds its --help
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """argparse's, the option kept."""
        action = super().add_argument(*args, **kwargs)
        self.options[action.dest] = action
        return action


def option_types() -> dict[str, Callable[[Any], Any]]:
    """Each sweep-file option's check: the `run` command's own type and choices for the run
    options (one range, stated once in tools/units.py), SWEEP_TYPES for the rest."""
    from servobus.sweep.spec import RUN_OPTIONS
    from servobus.tools import cmd_run
    from servobus.tools.cli import Commands

    sub = argparse.ArgumentParser().add_subparsers(parser_class=_Options)
    cmd_run.add_subparser(Commands(sub))
    actions = sub.choices["run"].options
    checks = {name: _file_value(actions[name].type, actions[name].choices)
              for name in RUN_OPTIONS if name not in ("trajectory", "fault", "do")}
    return {**checks, **{name: _file_value(kind, None) for name, kind in SWEEP_TYPES.items()}}


def _file_value(kind: Any, choices: Any) -> Callable[[Any], Any]:
    """A check of a TOML value by a command-line type: numbers and strings as their text, a
    list (one value per joint) as comma-separated text; true/false, tables, NaN refused."""

    def check(value: Any) -> Any:
        if isinstance(value, (bool, dict)) or (
                isinstance(value, float) and not math.isfinite(value)):
            raise ValueError(f"{value!r} is not a value of this option")
        if isinstance(value, list):
            if not value or not all(isinstance(v, int | float | str) and not isinstance(v, bool)
                                    for v in value):
                raise ValueError("a list must hold numbers or names")
            text = ",".join(str(v) for v in value)
        else:
            text = str(value)
        allowed = f"use {', '.join(str(c) for c in choices)}" if choices is not None else None
        try:
            converted = kind(text) if kind is not None else text
        except argparse.ArgumentTypeError as err:
            raise ValueError(str(err)) from None
        except ValueError:  # a plain type (int) of an option with choices
            raise ValueError(allowed or f"{text!r} is not a value of this option") from None
        if allowed is not None and converted not in choices:
            raise ValueError(allowed)
        return converted

    return check


def _do_sweep(args: argparse.Namespace) -> None:
    from servobus.sweep import spec as sweep_spec
    from servobus.sweep.engine import csv_path, parts_dir, run_sweep
    from servobus.sweep.summary import summarise
    from servobus.sweep.task import is_error

    if args.scheduler is not None and args.workers is not None:
        raise ServobusError("--workers sizes the embedded cluster; with --scheduler the "
                            "cluster's own workers run the points")
    spec = sweep_spec.load(args.spec, option_types())
    out = Path(args.out or f"{spec.name}.parquet")
    outcome = run_sweep(spec, out, scheduler=args.scheduler, workers=args.workers or 2,
                        resume=args.resume, progress=not (args.no_progress or args.json))
    rows = outcome.rows
    report: dict[str, Any] = {
        "sweep": spec.name, "points": len(rows), "computed": outcome.computed,
        "reused": outcome.reused,
        "status": dict(Counter("error" if is_error(r["status"]) else r["status"] for r in rows)),
        "table": str(out), "csv": str(csv_path(out)), "parts": str(parts_dir(out)),
        "wall_s": round(outcome.wall_s, 3),
        "points_per_minute": (round(60.0 * outcome.computed / outcome.wall_s, 2)
                              if outcome.computed else None),
        "cluster": (args.scheduler or f"local, {args.workers or 2} workers"
                    if outcome.computed else "none (every point was finished)"),
    }
    summary = summarise(spec.plot, rows, spec.measure)
    if summary is not None:
        report["summary"] = summary
    errors = [f"point {r['point']}: {r['status']}" for r in rows if is_error(r["status"])]
    if errors:
        report["errors"] = errors[:10]
    plot_error = None
    if args.plot:
        from servobus.sweep.plots import plot

        try:
            plot(spec, rows, args.plot, args.spec)
            report["plot"] = args.plot
        except Exception as err:  # whatever the plot hits, the table and report are kept
            plot_error = err
    if args.json:
        report["head"] = rows[:HEAD_ROWS]
        emit(report, True)
    else:
        emit({k: v for k, v in report.items() if k != "summary" or isinstance(v, dict)}, False,
             title=f"sweep {spec.name}")
        if isinstance(summary, list):
            emit_rows("summary", summary)
        emit_rows("head", rows[:HEAD_ROWS])
    if plot_error is not None:
        raise ServobusError(f"plot {args.plot}: {plot_error}")
    if rows and len(errors) == len(rows):
        raise ServobusError(f"every point of {args.spec} ended in an error ({errors[0]})")
