"""The shipped sweeps' plots: oscillation vs alpha with the linear limits, the tuning heat map,
the fault campaign's detection and false alarms.  Each is titled with the sweep (robot, command,
seed); legends sit beside the axes, where they hide no data.  The alpha-scan marks the points
the stability rule (`measures.unstable`, the table's `stable` column) calls unstable and draws
both of its conditions: peak-to-peak over the threshold, growth over the minimum growth.
"""

import math
from typing import Any

from servobus.sweep.measures import MEASURE_DEFAULTS, unstable, unstable_rule
from servobus.sweep.spec import SweepSpec, seconds
from servobus.sweep.summary import Rows, alpha_scan, fault_campaign
from servobus.sweep.task import DEFAULT_DURATION_S, finished

# a legend outside its axes, to the right of the top edge: it covers no data point
LEGEND_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0,
                  "fontsize": 8}


def plot(spec: SweepSpec, rows: Rows, path: str, command: str) -> None:
    """Write the plot of the sweep `spec` to `path` (PNG); `command`: the sweep as typed."""
    fig = figure(spec, rows, command)
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)


def figure(spec: SweepSpec, rows: Rows, command: str) -> Any:
    """The figure of the sweep `spec` by its [plot] kind, titled with the sweep, its command
    and seed (matplotlib imported here: the sweep's own run needs none)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    draw = {"alpha-scan": _alpha_scan, "heatmap": _heatmap,
            "fault-campaign": _faults}.get(spec.plot)
    if draw is None:
        raise ValueError(f"sweep {spec.name!r} has no plot (its [plot] kind is {spec.plot!r})")
    good = finished(rows)
    if not good:
        raise ValueError("no finished point to plot")
    fig = draw(plt, good, spec.measure)
    duration = seconds(spec.base.get("duration", DEFAULT_DURATION_S))
    fig.suptitle(f"sweep {spec.name} (SPEJBL robot): servobus sweep {command}, seed {spec.seed}, "
                 f"{len(rows)} points, runs of {duration:g} s", fontsize=10)
    return fig


def _alpha_scan(plt: Any, rows: Rows, measure: dict[str, Any]) -> Any:
    m = {**MEASURE_DEFAULTS, **measure}
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(10, 7), layout="constrained",
                                      height_ratios=(3, 2))
    limits = alpha_scan(rows)
    for k, name in enumerate(sorted(limits)):
        color = f"C{k}"
        scan = sorted((r for r in rows if r["tuning"] == name), key=lambda r: r["alpha"])
        alphas = [r["alpha"] for r in scan]
        top.plot(alphas, [r["osc_ptp_lsb"] for r in scan], "o-", color=color, ms=4,
                 label=f"{name}: running")
        bottom.plot(alphas, [r["osc_growth"] for r in scan], "o-", color=color, ms=4,
                    label=name)
        bad = [r for r in scan if unstable(r["osc_ptp_lsb"], r["osc_growth"], m)]
        for ax, key in ((top, "osc_ptp_lsb"), (bottom, "osc_growth")):
            ax.plot([r["alpha"] for r in bad], [r[key] for r in bad], "o", mfc="none",
                    mec="red", ms=10, mew=1.5, label=unstable_rule(m).replace(": ", ":\n", 1)
                    if k == 0 and ax is top else None)
        lim = limits[name]
        for ax in (top, bottom):
            ax.axvline(lim["alpha_max_linear"], color=color, ls="--",
                       label=f"{name}: linear $\\alpha_{{max}}$ {lim['alpha_max_linear']:.3g}"
                       if ax is top else None)
            ax.axvline(lim["alpha_max_linear_identified_q"], color=color, ls=":",
                       label=f"{name}: linear, identified q\n"
                             f"{lim['alpha_max_linear_identified_q']:.3g}" if ax is top else None)
    top.axhline(float(m["threshold_lsb"]), color="red", lw=0.8,
                label=f"threshold {float(m['threshold_lsb']):g} LSB")
    bottom.axhline(float(m["min_growth"]), color="red", lw=0.8,
                   label=f"min growth {float(m['min_growth']):g}")
    top.set_xscale("log")
    top.set_yscale("symlog", linthresh=1.0)
    top.set_ylim(bottom=0.0)
    bottom.set_yscale("symlog", linthresh=1.0)
    bottom.set_ylim(bottom=0.0)
    top.set_ylabel("error peak-to-peak,\nlast window (LSB, worst joint)")
    bottom.set_ylabel("growth (peak-to-peak over\nthe window before)")
    bottom.set_xlabel(r"inertia factor $\alpha$")
    for ax in (top, bottom):
        ax.legend(**LEGEND_OUTSIDE)
        ax.grid(True, which="both", alpha=0.3)
    return fig


def _heatmap(plt: Any, rows: Rows, measure: dict[str, Any]) -> Any:
    import numpy as np

    value = str(measure["value"])
    wd = sorted({r["omega_d"] for r in rows})
    wi = sorted({r["omega_i"] for r in rows})
    grid = np.full((len(wi), len(wd)), math.nan)
    events = np.zeros_like(grid)
    for r in rows:
        i, j = wi.index(r["omega_i"]), wd.index(r["omega_d"])
        grid[i, j], events[i, j] = r[value], r.get("current_limit_events", 0)
    fig, ax = plt.subplots(figsize=(8, 5.5), layout="constrained")
    image = ax.imshow(np.log10(grid), origin="lower", cmap="viridis", aspect="auto")
    for i in range(len(wi)):
        for j in range(len(wd)):
            ax.text(j, i, f"{grid[i, j]:.3g}\n{int(events[i, j])} lim", ha="center",
                    va="center", fontsize=7, color="w")
    ax.set_xticks(range(len(wd)), [f"{v:.3g}" for v in wd])
    ax.set_yticks(range(len(wi)), [f"{v:.3g}" for v in wi])
    ax.set_xlabel("ω_D (rad/s)")
    ax.set_ylabel("ω_I (rad/s)")
    fig.colorbar(image, label=f"log10 {value} (LSB); cell: value, current-limit events")
    return fig


def _faults(plt: Any, rows: Rows, measure: dict[str, Any]) -> Any:
    table = fault_campaign(rows)
    rates = sorted({t["corrupt_rate"] for t in table})
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), layout="constrained")
    for k, rate in enumerate(rates):
        line = [t for t in table if t["corrupt_rate"] == rate]
        silent = [t for t in line if t["silence_ms"] > 0]
        left.plot([t["silence_ms"] for t in silent], [t["detected_per_injected"] for t in silent],
                  "o-", color=f"C{k}", label=f"corrupt rate {rate:g}")
        right.plot([t["silence_ms"] for t in line], [t["false_alarms_per_run"] for t in line],
                   "s-", color=f"C{k}", label=f"corrupt rate {rate:g}")
    left.set_xlabel("node silence (ms)")
    left.set_ylabel("servo-fault periods detected / injected")
    left.set_ylim(0, 1.1)
    right.set_xlabel("node silence (ms)")
    right.set_ylabel("false-alarm fault periods per run")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    right.legend(**LEGEND_OUTSIDE)  # the same lines on both sides
    return fig
