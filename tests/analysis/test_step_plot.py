"""The `servobus step --plot` figure (issue 23 item 5), by structure: titled with the board,
command, seed and plant options; its legend beside the axes."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from servobus.analysis.current_step import run_step
from servobus.analysis.step_plot import step_figure
from servobus.plant.build import PlantOptions
from tests.plot_checks import assert_legends_hide_no_data, data_axes, title


def test_step_figure() -> None:
    options = PlantOptions(seed=7, plant="averaged")
    fig = step_figure(run_step(options, 0.5, 60), options)
    try:
        assert len(data_axes(fig)) == 1 and len(fig.axes[0].get_lines()) == 3
        assert all(word in title(fig) for word in
                   ("servo board", "servobus step --iw 0.5", "seed 7", "averaged plant"))
        assert assert_legends_hide_no_data(fig) == 1
    finally:
        plt.close(fig)
