"""The LeanBus's arbitration order, times, taps, charges and queue limit against the reference
medium on random traffic (timers, frames sent from handlers and taps mid-stretch, runs cut by a
limit), and its own rules where the medium has none (one ID from two senders)."""

import can
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import period_engine as pe
from servobus.bus.medium import FrameRecord, Medium
from servobus.bus.period_engine import TX_QUEUE, LeanBus
from servobus.bus.scheduler import Environment
from tests.bus.canutils_oracle import cfl_exact

Log = list[tuple[int, int, int, int, int, bytes]]  # start, end, busy until, id, sender, data


@st.composite
def traffic(draw: st.DrawFn) -> dict:
    """Nodes owning disjoint IDs, what each accepts, timed sends, where the run is cut (often
    on a bit boundary, where frames start and end)."""
    n = draw(st.integers(2, 5))
    ids = draw(st.lists(st.integers(0, 0x7FF), min_size=2 * n, max_size=2 * n, unique=True))
    own = [ids[2 * i:2 * i + 2] for i in range(n)]
    accepts = [{c for k in range(n) if k != i for c in own[k] if draw(st.booleans())}
               for i in range(n)]
    at = st.integers(0, 1500).map(lambda bits: bits * 1000) | st.integers(0, 1_500_000)
    sends = draw(st.lists(st.tuples(at, st.integers(0, n - 1),
                                    st.integers(0, 1), st.binary(max_size=8)),
                          min_size=1, max_size=30))
    cut = draw(st.none() | at)  # on bit boundaries often: ends of frame, free instants
    return {"n": n, "own": own, "accepts": accepts, "sends": sends, "cut": cut}


def reply(node: int, data: bytes, n: int) -> bytes | None:
    """What a node answers to a frame it takes: one node at most, shorter each hop, so chains
    end."""
    return data[1:] if data and data[0] % n == node else None


def run_lean(t: dict, reply_in_tap: bool) -> tuple[Log, list, list]:
    env = Environment()
    bus = LeanBus(env)
    log: Log = []
    taken: list = []
    charges: list = []

    def handlers(i: int) -> dict:
        def take(can_id: int, data: bytes, now: int) -> None:
            taken.append((i, now, env.now, can_id, data))
            answer = reply(i, data, t["n"])
            if answer is not None and not reply_in_tap:
                bus.send(i, t["own"][i][0], answer)
        return dict.fromkeys(t["accepts"][i], take)

    for i in range(t["n"]):
        bus.attach(f"N{i}", handlers(i))

    def tap(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        log.append((start, end, busy, can_id, sender, data))
        if reply_in_tap:  # the same answers, sent from a tap before the handlers run
            for i in range(t["n"]):
                answer = reply(i, data, t["n"])
                if can_id in t["accepts"][i] and answer is not None:
                    bus.send(i, t["own"][i][0], answer)

    bus.taps.append(tap)
    bus.charges.append(lambda start, busy, bits, ok: charges.append((start, busy, bits, ok)))
    for at, i, k, data in t["sends"]:
        env.call_at(at, lambda i=i, k=k, data=data: bus.send(i, t["own"][i][k], data))
    env.run(until=t["cut"])
    env.run()
    return log, taken, charges


def run_medium(t: dict) -> tuple[Log, list, list]:
    env = Environment()
    medium = Medium(env)
    log: Log = []
    taken: list = []
    charges: list = []
    ctrls = []
    for i in range(t["n"]):
        def deliver(msg: can.Message, i: int = i) -> None:
            data = bytes(msg.data)
            taken.append((i, env.now, env.now, msg.arbitration_id, data))
            answer = reply(i, data, t["n"])
            if answer is not None:
                medium.submit(ctrls[i], can.Message(arbitration_id=t["own"][i][0], data=answer,
                                                    is_extended_id=False))
        ctrl = medium.attach(f"N{i}", deliver, TX_QUEUE)
        ctrl.accept = set(t["accepts"][i])
        ctrls.append(ctrl)
    medium.filters_changed()

    def tap(r: FrameRecord) -> None:
        assert r.ok
        log.append((r.start_ns, r.end_ns, r.busy_until_ns, r.msg.arbitration_id,
                    int(r.sender[1:]), bytes(r.msg.data)))
        charges.append((r.start_ns, r.busy_until_ns,
                        cfl_exact(r.msg.arbitration_id, bytes(r.msg.data)), True))

    medium.taps.append(tap)
    for at, i, k, data in t["sends"]:
        msg = can.Message(arbitration_id=t["own"][i][k], data=data, is_extended_id=False)
        env.call_at(at, lambda i=i, msg=msg: medium.submit(ctrls[i], msg))
    env.run(until=t["cut"])
    env.run()
    return log, taken, charges


@settings(max_examples=60, deadline=None)
@given(traffic(), st.booleans())
def test_random_traffic_is_the_mediums_frame_by_frame(t: dict, reply_in_tap: bool) -> None:
    """Order, start / end of frame / free instant of every frame, who took what when (the
    clock at the end of frame in every handler), charges with can-utils' exact lengths."""
    log, taken, charges = run_lean(t, reply_in_tap)
    ref_log, ref_taken, ref_charges = run_medium(t)
    assert log == ref_log
    assert charges == ref_charges
    assert taken == ref_taken
    assert len(log) >= len(t["sends"])


def test_lowest_id_then_queueing_order_across_senders() -> None:
    """One ID from two senders leaves in queueing order; a lower ID queued later goes first;
    a frame queued by a handler mid-stretch joins the next arbitration."""
    env = Environment()
    bus = LeanBus(env)
    order: list[tuple[int, bytes, int]] = []
    bus.attach("A", {})
    bus.attach("B", {0x20: lambda c, d, now: bus.send(1, 0x05, b"h")})
    bus.taps.append(lambda s, e, b, c, d, sender: order.append((c, d, sender)))
    bus.send(0, 0x20, b"first")  # wins at 0 alone: the others queue while it is on the wire
    env.call_at(1, lambda: (bus.send(1, 0x10, b"b"), bus.send(0, 0x10, b"a"),
                            bus.send(1, 0x08, b"c")))
    env.run()
    assert order == [(0x20, b"first", 0), (0x05, b"h", 1), (0x08, b"c", 1), (0x10, b"b", 1),
                     (0x10, b"a", 0)]


def test_frames_follow_back_to_back_with_exact_lengths() -> None:
    """Three frames queued at once: each starts at the previous one's end plus 3 bits of
    interframe space and lasts its can-utils length minus the interframe space."""
    env = Environment()
    bus = LeanBus(env)
    spans: list[tuple[int, int]] = []
    bus.attach("A", {})
    bus.taps.append(lambda s, e, b, c, d, sender: spans.append((s, e)))
    frames = [(0x7F0, b"\x00" * 8), (0x001, b""), (0x123, b"\xff\x00\xaa")]
    for can_id, data in frames:
        bus.send(0, can_id, data)
    env.run()
    t = 0
    expected = []
    for can_id, data in sorted(frames):
        expected.append((t, t + (cfl_exact(can_id, data) - 3) * 1000))
        t = expected[-1][1] + 3000
    assert spans == expected


def test_the_transmit_queue_holds_tx_queue_frames_per_sender() -> None:
    env = Environment()
    bus = LeanBus(env)
    bus.attach("A", {})
    bus.attach("B", {})
    for k in range(TX_QUEUE):
        bus.send(0, 0x100, bytes([k % 256]))
    with pytest.raises(can.CanOperationError, match="A: transmit queue full"):
        bus.send(0, 0x101, b"")
    bus.send(1, 0x100, b"")  # another sender's queue is its own
    env.run(until=1)  # the first frame is on the wire, not yet delivered: still queued
    with pytest.raises(can.CanOperationError):
        bus.send(0, 0x100, b"")
    env.run(until=200_000)  # delivered: room for one
    bus.send(0, 0x100, b"")
    env.run()
    assert bus.frames == TX_QUEUE + 2 and not bus._pool


def test_remembered_lengths_stay_bounded_and_right(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pe, "LENGTH_CACHE", 5)
    monkeypatch.setattr(pe, "_lengths", {})  # this test's memory, the module's restored after
    monkeypatch.setattr(pe, "_remembered", [0])
    env = Environment()
    bus = LeanBus(env)
    bus.attach("A", {})
    bits: list[int] = []
    bus.charges.append(lambda start, busy, n, ok: bits.append(n))
    payloads = [k.to_bytes(2, "big") for k in range(0, 4000, 97)]
    for data in payloads * 2:
        bus.send(0, 0x3A5, data)
        env.run()
    assert bits == [cfl_exact(0x3A5, d) for d in payloads * 2]
    assert 0 < pe._remembered[0] <= 5
    assert sum(len(known) for known in pe._lengths.values()) <= 5


@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_a_timer_at_the_free_instant_takes_part_in_its_arbitration(offset: int) -> None:
    """A frame a timer queues at the instant the wire becomes free (or before) wins over a
    higher ID waiting since 0; one bit time later it has lost to it (the medium's order)."""
    env = Environment()
    bus = LeanBus(env)
    order: list[int] = []
    bus.attach("A", {})
    bus.taps.append(lambda s, e, b, c, d, sender: order.append(c))
    bus.send(0, 0x300, b"\x01")
    bus.send(0, 0x200, b"\x02")
    free = cfl_exact(0x200, b"\x02") * 1000  # SOF of the second frame
    env.call_at(free + offset * 1000, lambda: bus.send(0, 0x100, b""))
    env.run()
    assert order == ([0x200, 0x300, 0x100] if offset > 0 else [0x200, 0x100, 0x300])


def test_a_handler_that_raises_leaves_the_other_frames_queued_for_the_next_run() -> None:
    env = Environment()
    bus = LeanBus(env)
    got: list[int] = []

    def take(can_id: int, data: bytes, now: int) -> None:
        got.append(can_id)
        if can_id == 0x200:
            raise RuntimeError("handler failed")

    bus.attach("A", {})
    bus.attach("B", {0x100: take, 0x200: take, 0x300: take})
    for can_id in (0x100, 0x200, 0x300):
        bus.send(0, can_id, b"\x01")
    with pytest.raises(RuntimeError, match="handler failed"):
        env.run()
    assert got == [0x100, 0x200] and bus.frames == 2
    env.run()  # the frame the failed stretch left queued goes out
    assert got == [0x100, 0x200, 0x300] and bus.frames == 3


def test_an_interrupted_pacing_sleep_leaves_its_frame_queued() -> None:
    """Ctrl-C during a paced run's sleep before an end of frame: that frame is neither lost nor
    half delivered; the next run sends it and the sender's queue count comes back to 0."""
    env = Environment(realtime_factor=1000.0)
    bus = LeanBus(env)
    got: list[int] = []
    bus.attach("A", {})
    bus.attach("B", {c: lambda can_id, data, now: got.append(can_id) for c in (1, 2, 3)})
    for can_id in (1, 2, 3):
        bus.send(0, can_id, b"\x01")
    pace = env._pace

    def interrupted(at: int) -> None:
        if got == [1]:  # the sleep to the second frame's end
            raise KeyboardInterrupt
        pace(at)

    env._pace = interrupted  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        env.run()
    assert got == [1] and bus.frames == 1 and bus._queued[0] == 2
    env._pace = pace  # type: ignore[method-assign]
    env.run()
    assert got == [1, 2, 3] and bus.frames == 3 and bus._queued[0] == 0
