"""`bench bus`'s repeats all do the same work: the warm-up shot is the repeats' own size, so the
stuffed lengths of the bench's payloads are remembered before the first measured repeat."""

import pytest

from servobus.bus import period_engine as pe
from servobus.bus.bench import NODES, Shot, period_engine, repeat


def test_the_warm_up_shot_is_as_large_as_the_repeats() -> None:
    sizes: list[int] = []

    def line(per_node: int) -> Shot:
        sizes.append(per_node)
        return {"frames": per_node, "deliveries": per_node * (NODES - 1), "wall_s": 1.0}

    repeat(line, 37, 2)
    assert sizes == [37, 37, 37]


def test_one_shot_remembers_every_payload_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """The LeanBus line's payloads (8-byte counters from each node's ID) all have a length in
    the bus's per-ID memory after one shot (the warm-up's, which is the repeats' size): the
    measured repeats compute none."""
    monkeypatch.setattr(pe, "_lengths", {})  # an empty memory, the module's restored after
    monkeypatch.setattr(pe, "_remembered", [0])
    period_engine(150)
    for node in range(NODES):
        known = pe._lengths[(0x100 + node, 1000, 1000, False, False)]
        assert all(k.to_bytes(8, "little") in known for k in range(150))
