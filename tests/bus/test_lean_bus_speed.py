"""The LeanBus's faster deliveries keep the loop's behaviour: a fan-out calls every handler once,
in attach order, with the frame's arguments (also past 10 handlers, where its generated names
sort differently from their order), stops at a handler that raises, is rebuilt when a node
attaches; the stretch's free instant and frame count reach the bus also when a handler raised."""

import can
import pytest

from servobus.bus.period_engine import TX_QUEUE, LeanBus, fan_out
from servobus.bus.scheduler import Environment
from tests.bus.canutils_oracle import cfl_exact


@pytest.mark.parametrize("size", [0, 1, 2, 11, 23])
def test_a_fan_out_calls_every_handler_once_in_order(size: int) -> None:
    calls: list[tuple[int, int, bytes, int]] = []
    handlers = [lambda c, d, now, k=k: calls.append((k, c, d, now)) for k in range(size)]
    fan_out(handlers)(0x123, b"\x01\x02", 4_567)
    assert calls == [(k, 0x123, b"\x01\x02", 4_567) for k in range(size)]


def test_a_raising_handler_stops_the_fan_out_there() -> None:
    calls: list[int] = []

    def fail(c: int, d: bytes, now: int) -> None:
        raise RuntimeError("handler failed")

    handlers = [lambda c, d, now: calls.append(0), fail, lambda c, d, now: calls.append(2)]
    with pytest.raises(RuntimeError, match="handler failed"):
        fan_out(handlers)(1, b"", 0)
    assert calls == [0]


def test_each_fan_out_has_its_own_code() -> None:
    """Two lists of one size get two code objects: CPython specialises a call site in its code
    object, so shared code would make each site see every list's handler (the loop's cost)."""
    first = fan_out([print, print, print])
    second = fan_out([repr, repr, repr])
    assert first.__code__ is not second.__code__
    assert first.__code__.co_code == second.__code__.co_code


def test_a_node_attached_between_runs_hears_the_next_frames() -> None:
    env = Environment()
    bus = LeanBus(env)
    heard: list[tuple[str, bytes, int]] = []
    bus.attach("A", {})
    bus.attach("B", {0x10: lambda c, d, now: heard.append(("B", d, now))})
    bus.send(0, 0x10, b"one")
    env.run()
    bus.attach("C", {0x10: lambda c, d, now: heard.append(("C", d, now))})
    bus.send(0, 0x10, b"two")
    env.run()
    first = cfl_exact(0x10, b"one") * 1000 - 3_000  # end of frame (length with IFS, 1 Mbit/s)
    second = first + 3_000 + cfl_exact(0x10, b"two") * 1000 - 3_000
    assert heard == [("B", b"one", first), ("B", b"two", second), ("C", b"two", second)]


def test_a_raising_handler_leaves_the_wire_busy_until_its_frame_s_free_instant() -> None:
    """The stretch keeps the free instant and the frame count in locals: a handler that raises
    still leaves them on the bus as delivered so far, and the next run sends the rest after."""
    env = Environment()
    bus = LeanBus(env)
    spans: list[tuple[int, int, int]] = []

    def take(can_id: int, data: bytes, now: int) -> None:
        if can_id == 0x200:
            raise RuntimeError("handler failed")

    bus.attach("A", {})
    bus.attach("B", {0x100: take, 0x200: take, 0x300: take})
    bus.taps.append(lambda s, e, b, c, d, sender: spans.append((s, e, b)))
    for can_id in (0x100, 0x200, 0x300):
        bus.send(0, can_id, b"\x01")
    with pytest.raises(RuntimeError):
        env.run()
    second_end = (cfl_exact(0x100, b"\x01") + cfl_exact(0x200, b"\x01") - 3) * 1000  # IFS 3
    assert bus.frames == 2 and env.now == second_end
    assert bus.free_at == spans[-1][2] == second_end + 3_000
    env.run()
    assert bus.frames == 3 and spans[-1][0] == second_end + 3_000


def test_a_node_attached_while_frames_wait_keeps_their_queue_counts() -> None:
    """Attaching a node leaves the others' transmit queue counts as they are: the frames already
    queued are still counted until delivered, so TX_QUEUE still bounds each queue."""
    env = Environment()
    bus = LeanBus(env)
    bus.attach("A", {})
    bus.attach("B", {0x10: lambda c, d, now: None})
    bus.send(0, 0x10, b"one")
    bus.send(0, 0x10, b"two")
    bus.attach("C", {})
    assert bus._queued == [2, 0, 0]
    env.run()
    assert bus._queued == [0, 0, 0] and bus.frames == 2
    for k in range(TX_QUEUE):
        bus.send(0, 0x10, bytes([k]))
    bus.attach("D", {})
    with pytest.raises(can.CanOperationError, match="transmit queue full"):
        bus.send(0, 0x10, b"over")
