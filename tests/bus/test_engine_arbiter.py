"""The compiled arbiter puts frames on the wire exactly as the reference medium does."""

import can
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.engine_arbiter import arbitrate, bench_engine_bus
from servobus.bus.medium import FrameRecord, Medium
from servobus.bus.scheduler import Environment


def medium_run(frames: list[list[tuple[int, int, bytes]]]) -> list[tuple[int, int, int]]:
    """(start, end, ID) of every frame through the reference medium (two nodes at least: a
    lone sender gets no ACK); node k's frames are
    (ready ns, ID, data), each queued at its ready time."""
    medium = Medium(Environment())
    seen: list[tuple[int, int, int]] = []
    medium.taps.append(lambda r: seen.append((r.start_ns, r.end_ns, r.msg.arbitration_id))
                       if isinstance(r, FrameRecord) else None)
    for k, node in enumerate(frames):
        ctrl = medium.attach(f"N{k}", lambda msg: None)
        for ready, can_id, data in node:
            msg = can.Message(arbitration_id=can_id, data=data, is_extended_id=False)
            medium.env.schedule(ready, lambda c=ctrl, m=msg: medium.submit(c, m))
    medium.env.run()
    return seen


def engine_run(frames: list[list[tuple[int, int, bytes]]]) -> tuple[list, np.ndarray]:
    rows = [f for node in frames for f in node]
    n = len(rows)
    ids = np.array([r[1] for r in rows], dtype=np.int64)
    data = np.zeros((n, 8), dtype=np.uint8)
    for i, (_, _, payload) in enumerate(rows):
        data[i, :len(payload)] = list(payload)
    dlc = np.array([len(r[2]) for r in rows], dtype=np.int64)
    ready = np.array([r[0] for r in rows], dtype=np.int64)
    first = np.cumsum([0] + [len(node) for node in frames]).astype(np.int64)
    order, start, end = (np.zeros(n, dtype=np.int64) for _ in range(3))
    received = np.zeros(len(frames), dtype=np.int64)
    arbitrate(ids, data, dlc, ready, first, 1000, 0, order, start, end, received)
    return list(zip(start.tolist(), end.tolist(), ids[order].tolist(), strict=True)), received


NODE = st.tuples(st.integers(1, 0x7FF), st.lists(
    st.tuples(st.integers(0, 400_000), st.binary(max_size=8)), min_size=1, max_size=6))


@settings(max_examples=40, deadline=None)
@given(nodes=st.lists(NODE, min_size=2, max_size=5, unique_by=lambda n: n[0]))
def test_same_order_and_bit_times_as_the_medium(nodes) -> None:
    frames = [[(ready, can_id, data) for ready, data in sorted(node)]
              for can_id, node in nodes]
    got, received = engine_run(frames)
    assert got == medium_run(frames)
    total = sum(len(node) for node in frames)
    assert received.tolist() == [total - len(node) for node in frames]


def test_bench_delivers_every_frame_to_the_13_others() -> None:
    result = bench_engine_bus(50)
    assert result["frames"] == 700 and result["deliveries"] == 700 * 13
    # 700 back-to-back 8-byte frames: 111..135 bits each (SOF..IFS, stuffing) at 1 us
    assert 700 * 111e-6 <= result["sim_time_s"] <= 700 * 135e-6
