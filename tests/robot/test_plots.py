"""The run and limit-cycle figures (issue 23 item 5), rendered from short real runs and checked
by structure: a title naming robot, run and seed; legends beside the axes; GuRoo's bus load as a
moving mean inside its min-max band; default plot joints that the shipped gaits move."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from servobus.host.guroo_trajectory import default_walk
from servobus.host.trajectory import default_gait
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.limit_cycle import HoldConfig, analyze
from servobus.robot.limit_cycle_plot import hold_figure
from servobus.robot.plots import run_figure
from servobus.robot.plots_described import LOAD_MEAN_S, described_figure
from servobus.robot.robot_file import load as load_robot
from servobus.tools.cmd_run import DEFAULT_PLOT_JOINTS
from tests.plot_checks import assert_legends_hide_no_data, data_axes, title

GUROO_FILE = load_robot("guroo")

DEFAULT_JOINTS = list(DEFAULT_PLOT_JOINTS)


def test_the_default_plot_joints_move_in_both_shipped_gaits() -> None:
    spejbl = default_gait().poses  # pot LSB, one line per 50 ms
    guroo = np.array([default_walk().position(t) for t in np.arange(0.0, 4.0, 0.01)])
    for j in DEFAULT_JOINTS:
        assert np.ptp(spejbl[:, j - 1]) > 50, f"SPEJBL joint {j} barely moves"
        assert np.ptp(guroo[:, j - 1]) > np.radians(10), f"GuRoo joint {j} barely moves"


def test_spejbl_run_figure() -> None:
    robot = Robot(RobotConfig(seed=3, keep_records=True, tuning="R2b"))
    robot.run(0.2)
    fig = run_figure(robot, DEFAULT_JOINTS)
    try:
        assert len(data_axes(fig)) == 4
        assert all(word in title(fig) for word in
                   ("SPEJBL", "servobus run", "0.2 s simulated", "seed 3", "tuning R2b"))
        assert assert_legends_hide_no_data(fig) == 3  # positions, currents, host window
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert labels == [f"joint {j} {kind}" for j in DEFAULT_JOINTS
                          for kind in ("reference", "measured")]
    finally:
        plt.close(fig)


def test_guroo_run_figure_shows_the_load_as_mean_and_band() -> None:
    robot = DescribedRobot(GUROO_FILE, DescribedConfig(seed=2, keep_records=True))
    robot.run(0.2)
    fig = described_figure(robot, DEFAULT_JOINTS)
    try:
        assert len(data_axes(fig)) == 3
        assert all(word in title(fig) for word in
                   ("GuRoo", "servobus run --robot guroo", "0.2 s simulated", "seed 2"))
        assert assert_legends_hide_no_data(fig) == 3
        load = data_axes(fig)[2]
        (band,) = [c for c in load.collections if isinstance(c, PolyCollection)]
        (mean,) = load.get_lines()
        windows = np.array(robot.meter.report()["windows"])
        edge = band.get_paths()[0].vertices[:, 1]
        assert edge.min() == pytest.approx(windows.min()) and \
            edge.max() == pytest.approx(windows.max())  # the band spans every 2 ms slot
        y = mean.get_ydata()
        per = round(LOAD_MEAN_S / 0.002)
        assert len(y) == len(windows) - per + 1
        # the 2 ms slots alternate by tens of %; their 20 ms mean does not
        assert np.ptp(np.diff(windows[per:])) > 20 and np.ptp(y[1:]) < 5
    finally:
        plt.close(fig)


def test_limit_cycle_figure() -> None:
    cfg = HoldConfig(seconds=6.0, seed=4)
    _, trace, states = analyze(cfg)
    fig = hold_figure(trace, states, cfg)
    try:
        assert len(data_axes(fig)) == 2
        assert all(word in title(fig) for word in
                   ("spejbl joint 1 held", "servobus analyze limit-cycle", "seed 4", "cascade",
                    "supply-unipolar, R2"))
        assert assert_legends_hide_no_data(fig) == 2
    finally:
        plt.close(fig)
