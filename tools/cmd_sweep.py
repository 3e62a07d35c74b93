"""`servobus sweep`: many runs of the robot as one Dask job (sweep files: docs/sweeps.md)."""

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from servobus.tools import units
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit, emit_rows

HEAD_ROWS = 8


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


def _do_sweep(args: argparse.Namespace) -> None:
    from servobus.sweep import spec as sweep_spec
    from servobus.sweep.engine import csv_path, parts_dir, run_sweep
    from servobus.sweep.summary import summarise
    from servobus.sweep.task import is_error

    if args.scheduler is not None and args.workers is not None:
        raise ServobusError("--workers sizes the embedded cluster; with --scheduler the "
                            "cluster's own workers run the points")
    spec = sweep_spec.load(args.spec)
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
