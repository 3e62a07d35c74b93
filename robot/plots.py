"""The `servobus run --plot` figure: tracking, currents, bus load per period, host window."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from servobus.bus.schema import JOINTS
from servobus.robot.assembly import Robot


def plot_run(robot: Robot, path: str, joints: list[int]) -> None:
    """Four panels over the run, for the chosen joints (1-based)."""
    if not set(joints) <= set(range(1, JOINTS + 1)):
        raise ValueError(f"joints {joints}: the SPEJBL robot has joints 1..{JOINTS}")
    recs = robot.host.records
    if not recs:
        raise ValueError("nothing to plot: the run recorded no period")
    t = np.array([r.tick_ns for r in recs]) / 1e9
    ref = np.array([r.reference for r in recs])
    meas = np.array([r.measured for r in recs])
    cur = np.array([r.current for r in recs])
    fig, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    for j in joints:
        line, = axes[0].plot(t, ref[:, j - 1], lw=1, label=f"joint {j} reference")
        axes[0].plot(t, meas[:, j - 1], lw=1, ls="--", color=line.get_color(),
                     label=f"joint {j} measured")
        axes[1].step(t, cur[:, j - 1], where="post", lw=1, label=f"joint {j}")
    axes[0].set_ylabel("position (LSB)")
    axes[1].set_ylabel("current reference (A)")
    load = robot.meter.report()
    windows = np.array(load.get("windows", []))
    axes[2].step(np.arange(len(windows)) * load.get("window_s", 0.004) + (t[0] if len(t) else 0),
                 windows, where="post", lw=1)
    axes[2].set_ylabel("bus load per period (%)")
    sup = robot.host.supervisor
    axes[3].plot(t[:len(sup.windows_ns)], np.array(sup.windows_ns) / 1e6, lw=1,
                 label="window (last measurement to next tick)")
    axes[3].plot(t[:len(sup.used_ns)], np.array(sup.used_ns) / 1e6, lw=1, label="used by host")
    axes[3].set_ylabel("host window (ms)")
    axes[3].set_xlabel("simulated time (s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    for ax in (axes[0], axes[1], axes[3]):
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
