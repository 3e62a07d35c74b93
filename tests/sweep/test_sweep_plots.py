"""The shipped sweeps' figures (issue 23 item 5), from a few short real points of each shipped
sweep (no cluster: `run_point` in this process), checked by structure: the title names the
sweep, robot, command and seed; legends beside the axes; the alpha-scan marks exactly the rows
whose `stable` column is false and draws both conditions of the rule."""

import dataclasses
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from servobus.sweep.measures import unstable_rule
from servobus.sweep.plots import figure
from servobus.sweep.spec import SweepSpec, load
from servobus.sweep.task import run_point, tasks
from servobus.tools.cmd_sweep import option_types
from tests.plot_checks import assert_legends_hide_no_data, data_axes, title

TYPES = option_types()  # the run command's option types

# per shipped sweep: a short run and a few points of its axes (alpha-scan: windows of 0.4 s
# after the step at 0.5 s; at these alphas R2 at 10 and R2b at 20 are over the threshold but
# decaying, so stable)
SHORT = {
    "alpha-scan": ({"duration": "1.3s"},
                   {"tuning": ["R2", "R2b"], "alpha": [1.0, 10.0, 20.0, 30.0]}, {"window_s": 0.4}),
    "tuning-map": ({"duration": "0.3s"}, {"omega_d": [30.0, 120.0], "omega_i": [4.0, 16.0]}, {}),
    "fault-campaign": ({"duration": "0.8s"}, {"corrupt_rate": [0.0, 0.1], "silence_ms": [0, 20]},
                       {}),
}


def _short(name: str) -> tuple[SweepSpec, list[dict[str, Any]]]:
    spec = load(name, TYPES)
    base, axes, measure = SHORT[name]
    spec = dataclasses.replace(spec, base={**spec.base, **base}, axes=axes,
                               measure={**spec.measure, **measure})
    return spec, [{**t.row_head(), **run_point(t)} for t in tasks(spec)]


@pytest.fixture(scope="module")
def alpha_scan() -> tuple[SweepSpec, list[dict[str, Any]]]:
    return _short("alpha-scan")


def test_alpha_scan_marks_what_the_table_calls_unstable(
        alpha_scan: tuple[SweepSpec, list[dict[str, Any]]]) -> None:
    spec, rows = alpha_scan
    threshold, min_growth = spec.measure["threshold_lsb"], spec.measure["min_growth"]
    table_unstable = sorted((r["alpha"], r["osc_ptp_lsb"]) for r in rows if not r["stable"])
    above_but_decaying = [r for r in rows if r["stable"] and r["osc_ptp_lsb"] > threshold]
    assert table_unstable and above_but_decaying  # the points the old plot misread
    fig = figure(spec, rows, "alpha-scan")
    try:
        top, bottom = data_axes(fig)
        legend = [t.get_text().replace("\n", " ") for t in top.get_legend().get_texts()]
        assert unstable_rule(spec.measure) in legend
        marked = sorted((x, y) for line in _rings(top)
                        for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True))
        # the same points ringed on the growth panel
        assert sorted(x for line in _rings(bottom) for x in line.get_xdata()) == \
            [a for a, _ in table_unstable]
        assert marked == table_unstable
        assert [line.get_ydata()[0] for line in top.get_lines()
                if line.get_label().startswith("threshold")] == [threshold]
        assert [line.get_ydata()[0] for line in bottom.get_lines()
                if line.get_label().startswith("min growth")] == [min_growth]
        assert all(word in title(fig) for word in
                   ("alpha-scan", "SPEJBL", "servobus sweep alpha-scan", f"seed {spec.seed}",
                    "8 points", "runs of 1.3 s"))
        assert assert_legends_hide_no_data(fig) == 2
    finally:
        plt.close(fig)


def _rings(ax: Axes) -> list[Line2D]:
    """The axes' red rings (markers without a line): the points marked unstable."""
    return [line for line in ax.get_lines() if line.get_marker() == "o" and
            line.get_linestyle() == "None" and line.get_markeredgecolor() == "red"]


@pytest.mark.parametrize(("name", "n_axes", "n_legends"), [("tuning-map", 1, 0),
                                                           ("fault-campaign", 2, 1)])
def test_the_other_sweep_figures(name: str, n_axes: int, n_legends: int) -> None:
    spec, rows = _short(name)
    fig = figure(spec, rows, name)
    try:
        assert len(data_axes(fig)) == n_axes
        assert all(word in title(fig) for word in
                   (name, "SPEJBL", f"servobus sweep {name}", f"seed {spec.seed}"))
        assert assert_legends_hide_no_data(fig) == n_legends
        if name == "tuning-map":  # a cell per point, its value written in it
            assert np.isfinite(fig.axes[0].get_images()[0].get_array()).sum() == len(rows)
    finally:
        plt.close(fig)
