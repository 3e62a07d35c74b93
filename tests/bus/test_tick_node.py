"""The time-trigger node on the simulated bus: exact tick times, drift, seeded jitter, wrap."""

import can

from servobus.bus.medium import Medium
from servobus.bus.node import attach_sim
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema
from servobus.bus.sim_interface import SimBus
from servobus.bus.tick_node import TickNode
from tests.bus.canutils_oracle import cfl_exact

SCHEMA = Schema()


def ticks(node: TickNode, seconds: float) -> list[can.Message]:
    medium = Medium(Environment())
    listener = SimBus(channel="LISTENER", medium=medium)
    attach_sim(node, medium)
    medium.env.run(until=round(seconds * 1e9))
    out = []
    while (m := listener.recv(0)) is not None:
        out.append(m)
    return out


def test_ticks_every_4ms_with_sequence_mod_256() -> None:
    got = ticks(TickNode(SCHEMA), 1.1)
    assert len(got) == 275  # t = 0, 4 ms, ..., 1.096 s (the 1.1 s tick is still on the wire)
    seqs = [SCHEMA.decode(m).values["seq"] for m in got]
    assert seqs == [k % 256 for k in range(275)]
    for k, m in enumerate(got):
        duration = (cfl_exact(0x010, bytes([k % 256])) - 3) * 1000
        assert round(m.timestamp * 1e9) == k * 4_000_000 + duration


def test_drift_and_offset_move_the_ticks() -> None:
    got = ticks(TickNode(SCHEMA, offset_ns=100_000, drift_ppm=250.0), 0.5)
    start = [round(m.timestamp * 1e9) - (cfl_exact(0x010, m.data) - 3) * 1000 for m in got]
    assert start[100] == 100_000 + round(100 * 4_000_000 * 1.00025)


def test_jitter_is_bounded_and_seeded() -> None:
    def starts(seed: int) -> list[int]:
        got = ticks(TickNode(SCHEMA, jitter_ns=20_000, seed=seed), 0.2)
        return [round(m.timestamp * 1e9) - (cfl_exact(0x010, m.data) - 3) * 1000 - k * 4_000_000
                for k, m in enumerate(got)]

    a = starts(1)
    assert all(-20_000 <= d <= 20_000 for d in a[1:]) and len(set(a)) > 10
    assert a == starts(1) and a != starts(2)


def test_skipped_tick_is_a_gap_in_the_sequence() -> None:
    node = TickNode(SCHEMA, skip_at_ns=[8_000_000])
    seqs = [SCHEMA.decode(m).values["seq"] for m in ticks(node, 0.022)]
    assert seqs == [0, 1, 3, 4, 5] and node.skipped == 1
