"""`bench bus` lines do the same work: every frame delivered to each of the 13 other nodes
and taken by that node (listener or recv), and report the same figures."""

import pytest

from servobus.bus.bench import NODES, Shot, python_can, repeat, sim_listeners, sim_recv

KEYS = {"frames", "deliveries", "lost", "repeats", "wall_s", "frames_per_s",
        "deliveries_per_s"}


@pytest.mark.parametrize("line", [sim_listeners, sim_recv, python_can("virtual", "fair")])
def test_every_line_receives_every_delivery(line) -> None:
    out = repeat(line, 20, 2)
    assert set(out) >= KEYS
    assert (out["frames"], out["deliveries"], out["lost"]) == (20 * NODES, 20 * NODES * 13, 0)
    rates = out["deliveries_per_s"]
    assert 0 < rates["min"] <= rates["median"] <= rates["max"]
    assert rates["max"] == pytest.approx(13 * out["frames_per_s"]["max"])


def test_the_simulated_lines_take_the_same_simulated_time() -> None:
    """Both simulated lines run the same exact arbitration: 280 frames back to back."""
    assert sim_listeners(20)["sim_time_s"] == sim_recv(20)["sim_time_s"] > 280 * 111e-6


def test_a_line_whose_nodes_drop_frames_reports_them_lost() -> None:
    def half(per_node: int) -> Shot:
        shot = sim_listeners(per_node)
        return shot | {"deliveries": shot["deliveries"] // 2}

    assert repeat(half, 10, 1)["lost"] == 10 * NODES * 13 // 2
