"""The `servobus run --robot guroo --plot` figure (any cyclic robot's): commanded and measured
joint positions as the central computer reads them back, their difference, and the bus load.

GuRoo's 2 ms slots alternate between two loads (the 4 ms messages go in every other slot), so
the load is drawn as its moving mean over `LOAD_MEAN_S` (a whole number of 4 ms hyperperiods:
the alternation averages out) inside the band of the slots' min and max over the same span.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from numpy.lib.stride_tricks import sliding_window_view

from servobus.robot.described import DescribedRobot
from servobus.robot.plots import legend_outside, run_title, save

LOAD_MEAN_S = 0.020  # 10 slots of 2 ms, 5 hyperperiods of 4 ms


def moving_load(windows: np.ndarray, per: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, min and max of every `per` consecutive windows (fewer if the run has fewer)."""
    view = sliding_window_view(windows, min(per, len(windows)))
    return view.mean(axis=1), view.min(axis=1), view.max(axis=1)


def plot_described(robot: DescribedRobot, path: str, joints: list[int]) -> None:
    """`described_figure` to a PNG file."""
    save(described_figure(robot, joints), path)


def described_figure(robot: DescribedRobot, joints: list[int]) -> Figure:
    """Three panels over the run for the chosen DC joints (1-based)."""
    central = next(iter(robot.nodes.values()))  # the central is built first
    samples = np.array(central.samples or [], dtype=float).reshape(-1, 4)  # type: ignore[attr-defined]
    if not len(samples):
        raise ValueError("nothing to plot: the central computer heard no feedback")
    dc = sorted({int(j) for j in samples[:, 1]})
    if not set(joints) <= set(dc):
        raise ValueError(f"joints {joints}: feedback carries joints {dc[0]}..{dc[-1]}")
    from servobus.host.guroo_central import COUNTS_PER_DEG

    fig, axes = plt.subplots(3, 1, figsize=(11, 9), sharex=True, layout="constrained")
    for j in joints:
        mine = samples[samples[:, 1] == j]
        t = mine[:, 0] / 1e9
        line, = axes[0].plot(t, mine[:, 3] / COUNTS_PER_DEG, lw=1, label=f"joint {j} commanded")
        axes[0].plot(t, mine[:, 2] / COUNTS_PER_DEG, lw=1, ls="--", color=line.get_color(),
                     label=f"joint {j} measured")
        axes[1].plot(t, (mine[:, 2] - mine[:, 3]) / COUNTS_PER_DEG, lw=1, label=f"joint {j}")
    axes[0].set_ylabel("joint position (deg)")
    axes[1].set_ylabel("measured - commanded (deg)")
    load = robot.meter.report()
    windows = np.array(load.get("windows", []))
    if len(windows):
        slot_s = load.get("window_s", 0.002)
        per = max(1, round(LOAD_MEAN_S / slot_s))
        mean, low, high = moving_load(windows, per)
        t_end = (np.arange(len(mean)) + min(per, len(windows))) * slot_s  # each span's end
        axes[2].fill_between(t_end, low, high, alpha=0.3, lw=0,
                             label=f"min-max of the\n{slot_s * 1e3:g} ms slots")
        axes[2].plot(t_end, mean, lw=1.2, label=f"mean over\n{per * slot_s * 1e3:g} ms")
        legend_outside(axes[2])
    axes[2].set_ylabel("bus load (%)")
    axes[2].set_xlabel("simulated time (s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    for ax in axes[:2]:
        legend_outside(ax)
    cfg = robot.config
    faults = f", {len(cfg.faults)} fault(s)" if cfg.faults else ""
    described = robot.robot_file
    loops = cfg.loop or "/".join(sorted({k["loop"] for k in described.node_keys.values()
                                         if "loop" in k}))
    gait = cfg.gait_path or described.trajectory
    details = (f"loop {loops}, {f'gait {gait}' if gait else 'shipped walk'}"
               f", engine {robot.engine}{faults}")
    fig.suptitle(run_title(described.title, f"servobus run --robot {described.name}",
                           robot.env.now / 1e9, cfg.seed, details), fontsize=10)
    return fig
