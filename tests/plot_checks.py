"""Structure checks of a shipped plot's figure (matplotlib objects, not pixels): its title, its
data axes, and legends that hide no data."""

from matplotlib.axes import Axes
from matplotlib.figure import Figure


def data_axes(fig: Figure) -> list[Axes]:
    """The figure's axes that show data (not colour bars)."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def title(fig: Figure) -> str:
    """The figure's title (its suptitle, else its first axes' title)."""
    sup = fig.get_suptitle()
    return sup or fig.axes[0].get_title()


def assert_legends_hide_no_data(fig: Figure) -> int:
    """Every legend, as drawn, lies inside the figure and over no axes' data area; returns how
    many legends the figure has."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    page = fig.bbox
    legends = [ax.get_legend() for ax in data_axes(fig) if ax.get_legend() is not None]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and \
            box.y1 <= page.y1, f"legend {box} outside the figure {page}"
        for ax in data_axes(fig):
            assert not box.overlaps(ax.get_window_extent(renderer)), \
                f"legend {[t.get_text() for t in legend.get_texts()]} covers {ax.get_ylabel()!r}"
    return len(legends)
