"""The shipped sweeps' plots: oscillation vs alpha with the linear limits, the tuning heat map,
the fault campaign's detection and false alarms."""

import math
from typing import Any

from servobus.sweep.summary import Rows, alpha_scan, fault_campaign
from servobus.sweep.task import finished


def plot(kind: str, rows: Rows, measure: dict[str, Any], path: str, title: str) -> None:
    """Write the plot of a sweep of plot kind `kind` to `path` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    draw = {"alpha-scan": _alpha_scan, "heatmap": _heatmap, "fault-campaign": _faults}.get(kind)
    if draw is None:
        raise ValueError(f"sweep {title!r} has no plot (its [plot] kind is {kind!r})")
    good = finished(rows)
    if not good:
        raise ValueError("no finished point to plot")
    fig = draw(plt, good, measure)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _alpha_scan(plt: Any, rows: Rows, measure: dict[str, Any]) -> Any:
    fig, ax = plt.subplots(figsize=(8, 5))
    limits = alpha_scan(rows)
    for k, name in enumerate(sorted(limits)):
        color = f"C{k}"
        scan = sorted((r for r in rows if r["tuning"] == name), key=lambda r: r["alpha"])
        ax.plot([r["alpha"] for r in scan], [r["osc_ptp_lsb"] for r in scan], "o-",
                color=color, label=f"{name}: running")
        bad = [r for r in scan if not r["stable"]]
        ax.plot([r["alpha"] for r in bad], [r["osc_ptp_lsb"] for r in bad], "x", color="k",
                ms=9, label="unstable" if k == 0 else None)
        lim = limits[name]
        ax.axvline(lim["alpha_max_linear"], color=color, ls="--",
                   label=f"{name}: linear $\\alpha_{{max}}$ {lim['alpha_max_linear']:.3g}")
        ax.axvline(lim["alpha_max_linear_identified_q"], color=color, ls=":",
                   label=f"{name}: linear, identified q "
                         f"{lim['alpha_max_linear_identified_q']:.3g}")
    ax.axhline(float(measure["threshold_lsb"]), color="grey", lw=0.8,
               label="instability threshold")
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(bottom=0.0)
    ax.set_xlabel(r"inertia factor $\alpha$")
    ax.set_ylabel("error peak-to-peak, last window (LSB, worst joint)")
    ax.legend(fontsize=8)
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
    fig, ax = plt.subplots(figsize=(8, 5.5))
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
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
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
        ax.legend(fontsize=8)
    return fig
