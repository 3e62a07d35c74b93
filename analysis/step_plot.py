"""The `servobus step --plot` figure (matplotlib, no display needed): its legend beside the
axes, where it hides no data."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from servobus.analysis.current_step import StepRun
from servobus.plant.build import PlantOptions


def plot_step(run: StepRun, options: PlantOptions, path: str) -> None:
    """`step_figure` to a PNG file."""
    fig = step_figure(run, options)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def step_figure(run: StepRun, options: PlantOptions) -> Figure:
    """Reference, decimated measured current and true winding current of a step, titled with
    the board, the command, the seed and the plant's options."""
    o = options
    title = (f"SPEJBL servo board: servobus step --iw {run.iw:g}, seed {o.seed}\n{o.plant} "
             f"plant, {o.sensing}, {o.pwm} PWM, rotor {o.rotor}, alpha {o.alpha:g}, ADC window "
             f"{o.adc_window}")
    t_ms = np.arange(len(run.measured_a)) * run.period_s * 1e3
    fig, ax = plt.subplots(figsize=(10, 4.5), layout="constrained")
    ax.step(t_ms, np.full_like(t_ms, run.iw), where="post", label="reference i_w", color="k",
            lw=1)
    ax.step(t_ms, run.measured_a, where="post", label="measured (moving sum / 12)")
    ax.step(t_ms, run.winding_a, where="post", label="winding current (period mean)", alpha=0.7)
    ax.set_xlabel("time after step (ms)")
    ax.set_ylabel("current (A)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8)
    return fig
