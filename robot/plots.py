"""The `servobus run --plot` figure: tracking, currents, bus load per period, host window.

Every run figure is titled with the robot, the run (command, simulated time, seed, the options
that shape it) and keeps its legends beside the axes, where they hide no data.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from servobus.robot.assembly import Robot

# a legend outside its axes, to the right of the top edge: it covers no data point
LEGEND_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0,
                  "fontsize": 8}


def legend_outside(ax: Axes) -> None:
    """The axes' legend beside it (constrained layout makes room for it)."""
    ax.legend(**LEGEND_OUTSIDE)


def run_title(robot_title: str, command: str, sim_s: float, seed: int, details: str) -> str:
    """Two lines: the robot and the run (command, simulated seconds, seed); its options."""
    return f"{robot_title}\n{command}: {sim_s:g} s simulated, seed {seed}; {details}"


def save(fig: Figure, path: str) -> None:
    """Write the figure to a PNG file and free it."""
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_run(robot: Robot, path: str, joints: list[int]) -> None:
    """`run_figure` to a PNG file."""
    save(run_figure(robot, joints), path)


def run_figure(robot: Robot, joints: list[int]) -> Figure:
    """Four panels over the run, for the chosen joints (1-based)."""
    if not set(joints) <= set(range(1, robot.joints + 1)):
        raise ValueError(f"joints {joints}: {robot.description.name} has joints "
                         f"1..{robot.joints}")
    recs = robot.host.records
    if not recs:
        raise ValueError("nothing to plot: the run recorded no period")
    t = np.array([r.tick_ns for r in recs]) / 1e9
    ref = np.array([r.reference for r in recs])
    meas = np.array([r.measured for r in recs])
    cur = np.array([r.current for r in recs])
    fig, axes = plt.subplots(4, 1, figsize=(11, 11), sharex=True, layout="constrained")
    for j in joints:
        line, = axes[0].plot(t, ref[:, j - 1], lw=1, label=f"joint {j} reference")
        axes[0].plot(t, meas[:, j - 1], lw=1, ls="--", color=line.get_color(),
                     label=f"joint {j} measured")
        axes[1].step(t, cur[:, j - 1], where="post", lw=1, label=f"joint {j}")
    axes[0].set_ylabel("position (LSB)")
    axes[1].set_ylabel("current reference (A)")
    load = robot.meter.report()
    windows = np.array(load.get("windows", []))
    window_s = load.get("window_s", 0.004)
    axes[2].step(np.arange(len(windows)) * window_s + (t[0] if len(t) else 0),
                 windows, where="post", lw=1)
    axes[2].set_ylabel(f"bus load per {window_s * 1e3:g} ms (%)")
    sup = robot.host.supervisor
    axes[3].plot(t[:len(sup.windows_ns)], np.array(sup.windows_ns) / 1e6, lw=1,
                 label="window (last\nmeasurement to\nnext tick)")
    axes[3].plot(t[:len(sup.used_ns)], np.array(sup.used_ns) / 1e6, lw=1, label="used by host")
    axes[3].set_ylabel("host window (ms)")
    axes[3].set_xlabel("simulated time (s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    for ax in (axes[0], axes[1], axes[3]):
        legend_outside(ax)
    cfg = robot.config
    faults = f", {len(cfg.faults)} fault(s)" if cfg.faults else ""
    first = robot.joint_options[0]
    alphas = sorted({o.alpha for o in robot.joint_options})
    alpha = "" if alphas == [1.0] else f"alpha {alphas[0]:g}, " if len(alphas) == 1 else \
        "alpha per joint, "
    details = (f"tuning {robot.tuning_name}, {robot.mode}, {first.sensing}, {first.plant} plant, "
               f"{alpha}"
               f"{'own trajectory' if cfg.trajectory else 'shipped gait'}, "
               f"engine {robot.engine}{faults}")
    fig.suptitle(run_title(robot.description.title, "servobus run", robot.env.now / 1e9, cfg.seed,
                           details), fontsize=10)
    return fig
