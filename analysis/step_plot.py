"""Plots written to PNG files (matplotlib, no display needed)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from servobus.analysis.current_step import StepRun


def plot_step(run: StepRun, path: str, title: str) -> None:
    """Reference, decimated measured current and true winding current of a step."""
    t_ms = np.arange(len(run.measured_a)) * run.period_s * 1e3
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.step(t_ms, np.full_like(t_ms, run.iw), where="post", label="reference i_w", color="k",
            lw=1)
    ax.step(t_ms, run.measured_a, where="post", label="measured (moving sum / 12)")
    ax.step(t_ms, run.winding_a, where="post", label="winding current (period mean)", alpha=0.7)
    ax.set_xlabel("time after step (ms)")
    ax.set_ylabel("current (A)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
