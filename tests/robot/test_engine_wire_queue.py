"""The shared wire's queue (robot.period_loop: one scan per frame, each message's header through
the CRC and stuffing counter once, in its table) against a plain statement of the LeanBus's
rule: many frames per ID and per instant (ties), frames queued while the wire is busy or before
it is free, queued in any order between sends, and a message sent again with a new payload."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import frame_bits as fb
from servobus.robot.frame_rows import COLUMNS, F_BITS, F_BUSY, F_END, F_START
from servobus.robot.period_loop import Q_N, new_queue, push, send_next, wire_table

BIT_NS = 1000
MESSAGES = 5
# a push: (message, instant, frames sent before it is queued, its payload's bytes then)
pushes = st.lists(st.tuples(st.integers(0, MESSAGES - 1),
                            st.integers(0, 4).map(lambda x: x * 50_000), st.integers(0, 6),
                            st.binary(min_size=8, max_size=8)), min_size=1, max_size=12)


def _bits(can_id: int, data: bytes) -> int:
    """SOF..CRC with stuff bits, by the readable bit-level reference."""
    return fb.exact_frame_bits(can_id, data, False) - fb.TRAILER_BITS - fb.IFS_BITS


def _order(plan: list[tuple]) -> list[int]:
    """The pushes in the order they happen: by frames sent before them, then as listed."""
    return sorted(range(len(plan)), key=lambda p: plan[p][2])


def _reference(ids: list[int], dlcs: list[int], plan: list[tuple], free: int) -> list[tuple]:
    """The LeanBus's rule stated plainly: the wire starts at max(free, the earliest queued
    instant); of the frames queued by then the lowest ID wins, ties in queueing order; a
    message carries the payload its node last wrote."""
    queue: list[tuple[int, int]] = []
    payload = [b""] * MESSAGES
    todo, sent = _order(plan), []
    while todo or queue:
        while todo and (plan[todo[0]][2] <= len(sent) or not queue):
            k, at, _, body = plan[todo.pop(0)]
            queue.append((k, at))
            payload[k] = body[:dlcs[k]]
        start = max(free, min(at for _, at in queue))
        w = min((s for s in range(len(queue)) if queue[s][1] <= start),
                key=lambda s: (ids[queue[s][0]], s))
        k, _ = queue.pop(w)
        end = start + (_bits(ids[k], payload[k]) + fb.TRAILER_BITS) * BIT_NS
        free = end + fb.IFS_BITS * BIT_NS
        sent.append((k, start, end, free, payload[k]))
    return sent


def _loop(ids: list[int], dlcs: list[int], plan: list[tuple], free: int) -> list[tuple]:
    """The same pushes through ``push`` / ``send_next``, a payload row written at its push."""
    table = wire_table(ids, list(range(MESSAGES)), dlcs)
    payload = np.zeros((MESSAGES, 8), dtype=np.uint8)
    queue = new_queue(max(MESSAGES, len(plan)))  # room for every push (one may wait twice)
    frames = np.zeros((len(plan), COLUMNS), dtype=np.int64)
    data = np.zeros((len(plan), 8), dtype=np.uint8)
    todo, sent = _order(plan), []
    while todo or queue[Q_N] > 0:
        while todo and (plan[todo[0]][2] <= len(sent) or queue[Q_N] == 0):
            k, at, _, body = plan[todo.pop(0)]
            payload[k] = list(body)
            push(queue, k, at)
        f = len(sent)
        k, end, free = send_next(queue, table, payload, free, frames, data, f, BIT_NS)
        row = frames[f]
        assert end == row[F_END] and free == row[F_BUSY] and row[F_BITS] == \
            _bits(ids[k], bytes(data[f, :dlcs[k]]))
        assert not data[f, dlcs[k]:].any()
        sent.append((k, int(row[F_START]), int(row[F_END]), int(row[F_BUSY]),
                     bytes(data[f, :dlcs[k]])))
    return sent


@settings(max_examples=150, deadline=None)
@given(ids=st.lists(st.integers(0, 2), min_size=MESSAGES, max_size=MESSAGES),
       dlcs=st.lists(st.integers(0, 8), min_size=MESSAGES, max_size=MESSAGES), plan=pushes,
       free=st.integers(0, 4).map(lambda x: x * 50_000))
def test_the_queue_sends_by_the_lean_bus_rule(ids: list[int], dlcs: list[int], plan: list[tuple],
                                                free: int) -> None:
    assert _loop(ids, dlcs, plan, free) == _reference(ids, dlcs, plan, free)


def test_ties_and_a_frame_queued_while_the_wire_is_busy() -> None:
    # messages 0 and 1 share ID 0x100, 2 is 0x080.  At 0 messages 1 then 0 are queued (same
    # ID: 1 goes first, queued first); 2 is queued at 10 us, while 1 is on the wire, and wins
    # the next arbitration over 0, queued earlier; then 0; then 1 again, with a new payload
    ids, dlcs = [0x100, 0x100, 0x080, 0x7FF, 0x7FF], [8, 8, 0, 1, 1]
    plan = [(1, 0, 0, b"\x01" * 8), (0, 0, 0, b"\xff" * 8), (2, 10_000, 0, bytes(8)),
            (1, 400_000, 3, bytes(8))]
    sent = _loop(ids, dlcs, plan, 0)
    assert [s[0] for s in sent] == [1, 2, 0, 1]
    assert sent[1][1] == sent[0][3] and sent[3][1] == 400_000
    assert sent[0][4] == b"\x01" * 8 and sent[3][4] == bytes(8)
    assert sent[3][2] - sent[3][1] == (_bits(0x100, bytes(8)) + fb.TRAILER_BITS) * BIT_NS
    assert sent == _reference(ids, dlcs, plan, 0)


def test_a_tie_among_frames_queued_after_the_wire_went_free() -> None:
    # the wire is free at 0; messages 3 and 4 (both 0x7FF) are queued at 50 us, 3 first: the
    # wire idles until then and 3 goes first; 2 (0x080), queued at 60 us, then beats 4
    ids, dlcs = [0x100, 0x100, 0x080, 0x7FF, 0x7FF], [8, 8, 0, 1, 1]
    plan = [(3, 50_000, 0, bytes(8)), (4, 50_000, 0, bytes(8)), (2, 60_000, 0, bytes(8))]
    sent = _loop(ids, dlcs, plan, 0)
    assert [s[0] for s in sent] == [3, 2, 4] and sent[0][1] == 50_000
    assert sent == _reference(ids, dlcs, plan, 0)
