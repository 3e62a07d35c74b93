"""The `servobus run --robot guroo --plot` figure: commanded and measured joint positions as the
central computer reads them back, their difference, and the bus load per period."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from servobus.robot.described import DescribedRobot


def plot_described(robot: DescribedRobot, path: str, joints: list[int]) -> None:
    """Three panels over the run for the chosen DC joints (1-based)."""
    central = robot.nodes["CENTRAL"]
    samples = np.array(central.samples or [], dtype=float).reshape(-1, 4)  # type: ignore[attr-defined]
    if not len(samples):
        raise ValueError("nothing to plot: the central computer heard no feedback")
    dc = sorted({int(j) for j in samples[:, 1]})
    if not set(joints) <= set(dc):
        raise ValueError(f"joints {joints}: feedback carries joints {dc[0]}..{dc[-1]}")
    from servobus.host.guroo_central import COUNTS_PER_DEG

    fig, axes = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
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
    axes[2].step(np.arange(len(windows)) * load.get("window_s", 0.002), windows, where="post",
                 lw=1)
    axes[2].set_ylabel("bus load per 2 ms (%)")
    axes[2].set_xlabel("simulated time (s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    for ax in axes[:2]:
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
