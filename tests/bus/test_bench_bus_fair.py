"""`bench bus` lines do the same work: every frame delivered to each of the 13 other nodes
and taken by that node (listener, handler or recv), and report the same figures."""

from functools import partial

import pytest

from servobus.bus import frame_bits as fb
from servobus.bus.bench import (
    NODES,
    Shot,
    period_engine,
    python_can,
    repeat,
    sim_listeners,
    sim_recv,
)

KEYS = {"frames", "deliveries", "lost", "repeats", "wall_s", "frames_per_s",
        "deliveries_per_s", "received_min"}
LINES = [sim_listeners, sim_recv, period_engine, partial(period_engine, depth=1),
         python_can("virtual", "fair")]


@pytest.mark.parametrize("line", LINES)
def test_every_node_receives_every_frame_of_the_others(line) -> None:
    out = repeat(line, 20, 2)
    assert set(out) >= KEYS
    assert (out["frames"], out["deliveries"], out["lost"]) == (20 * NODES, 20 * NODES * 13, 0)
    assert out["received_min"] == 20 * 13  # no node short, so no node took a frame twice
    rates = out["deliveries_per_s"]
    assert 0 < rates["min"] <= rates["median"] <= rates["max"]


@pytest.mark.parametrize("per_node", [1, 63, 64, 65, 150])
def test_the_period_engine_feeds_queues_longer_than_tx_queue(per_node: int) -> None:
    shot = period_engine(per_node)
    assert shot["frames"] == per_node * NODES
    assert shot["received_min"] == shot["deliveries"] // NODES == per_node * 13


def test_the_simulated_lines_take_the_same_simulated_time() -> None:
    """All simulated lines run the same exact arbitration: 280 frames back to back; the
    reference medium's clock ends after the last interframe space, the engine's at the last
    end of frame."""
    medium_ns = round(sim_listeners(20)["sim_time_s"] * 1e9)
    assert medium_ns == round(sim_recv(20)["sim_time_s"] * 1e9) > 280 * 111_000
    for depth in (1, 64):
        engine_ns = round(period_engine(20, depth)["sim_time_s"] * 1e9)
        assert engine_ns + fb.IFS_BITS * 1000 == medium_ns


def test_a_line_whose_nodes_drop_frames_reports_them_lost() -> None:
    def half(per_node: int) -> Shot:
        shot = sim_listeners(per_node)
        return shot | {"deliveries": shot["deliveries"] // 2}

    assert repeat(half, 10, 1)["lost"] == 10 * NODES * 13 // 2
