"""A standalone servobus channel follows the wall clock and stamps epoch seconds, as python-can's
virtual bus does, with each frame's exact wire time; each receiver gets a message of its own."""

import threading
import time

import can
import pytest

from servobus.bus.medium import Medium
from servobus.bus.scheduler import Environment
from tests.bus.canutils_oracle import cfl_exact

BIT = 1000  # ns at 1 Mbit/s


def frame(can_id: int, data: bytes) -> can.Message:
    return can.Message(arbitration_id=can_id, data=data, is_extended_id=False)


def test_stamps_are_epoch_seconds_that_follow_sleeps_and_keep_the_wire_time() -> None:
    a = can.Bus(interface="servobus", channel="wall-a")
    b = can.Bus(interface="servobus", channel="wall-a")
    try:
        before = time.time()
        a.send(frame(0x123, b"\x01\x02"))
        a.send(frame(0x124, b"\x01\x02"))  # queued behind the first: back to back on the wire
        first, second = b.recv(timeout=0.1), b.recv(timeout=0.1)
        assert first is not None and second is not None
        assert before < first.timestamp <= time.time() + 0.001
        # the interframe space, then the second frame up to its end of frame; an epoch-second
        # float resolves about 0.24 us
        wire = cfl_exact(0x124, b"\x01\x02") * BIT
        assert (second.timestamp - first.timestamp) * 1e9 == pytest.approx(wire, abs=500)
        time.sleep(0.2)
        sent_at = time.time()
        a.send(frame(0x125, b""))
        later = b.recv(timeout=0.1)
        assert later is not None and later.timestamp - second.timestamp > 0.2
        assert sent_at - 0.001 < later.timestamp <= time.time() + 0.001
    finally:
        a.shutdown()
        b.shutdown()


def test_recv_waits_in_wall_time_for_a_frame_sent_by_another_thread() -> None:
    a = can.Bus(interface="servobus", channel="wall-b")
    b = can.Bus(interface="servobus", channel="wall-b")
    try:
        start = time.monotonic()
        assert b.recv(timeout=0.05) is None
        assert time.monotonic() - start >= 0.05
        threading.Timer(0.05, lambda: a.send(frame(0x10, b"\x07"))).start()
        got = b.recv(timeout=1.0)
        assert got is not None and bytes(got.data) == b"\x07"
        assert 0.04 < time.monotonic() - start - 0.05 < 0.5
    finally:
        a.shutdown()
        b.shutdown()


def test_send_waits_for_room_in_the_transmit_queue() -> None:
    """A 2-frame queue at 10 kbit/s: the 3rd send waits until the 1st frame (47 bits, 4.7 ms)
    has left the wire, as python-can's buses block; with a timeout shorter than that, and
    room nowhere in sight, the frame is refused once the timeout is over."""
    a = can.Bus(interface="servobus", channel="wall-q", bitrate=10_000, tx_queue_size=2)
    b = can.Bus(interface="servobus", channel="wall-q")
    try:
        start = time.monotonic()
        for k in range(3):
            a.send(frame(0x10 + k, b""))
        assert time.monotonic() - start >= 0.0045
        assert [b.recv(timeout=1.0).arbitration_id for _ in range(3)] == [0x10, 0x11, 0x12]
        b.shutdown()  # nobody acknowledges now: the frames stay queued, retransmitted
        a.send(frame(0x20, b""))
        a.send(frame(0x21, b""))
        start = time.monotonic()
        with pytest.raises(can.CanOperationError, match="transmit queue full"):
            a.send(frame(0x22, b""), timeout=0.05)
        assert time.monotonic() - start >= 0.05
    finally:
        a.shutdown()
        b.shutdown()


def test_every_receiver_gets_a_message_of_its_own() -> None:
    tx = can.Bus(interface="servobus", channel="wall-c", receive_own_messages=True)
    rx1 = can.Bus(interface="servobus", channel="wall-c")
    rx2 = can.Bus(interface="servobus", channel="wall-c")
    try:
        sent = frame(0x300, b"\x02\x01\x03")
        tx.send(sent)
        got = [bus.recv(timeout=0.1) for bus in (rx1, rx2, tx)]
        assert all(m is not None and bytes(m.data) == b"\x02\x01\x03" for m in got)
        mine, theirs, echo = (m.data for m in got if m is not None)
        mine[0] = 4
        assert bytes(sent.data) == bytes(theirs) == bytes(echo) == b"\x02\x01\x03"
    finally:
        for bus in (tx, rx1, rx2):
            bus.shutdown()


def test_a_channel_keeps_the_clock_it_was_made_with() -> None:
    sim = can.Bus(interface="servobus", channel="wall-d", clock="simulated")
    try:
        with pytest.raises(can.CanInitializationError, match="already keeps simulated time"):
            can.Bus(interface="servobus", channel="wall-d", clock="wall")
        with pytest.raises(can.CanInitializationError, match="'wall' or 'simulated'"):
            can.Bus(interface="servobus", channel="wall-e", clock="real")
    finally:
        sim.shutdown()


def test_a_medium_of_ones_own_keeps_simulated_time() -> None:
    medium = Medium(Environment())
    a = can.Bus(interface="servobus", channel="A", medium=medium)
    b = can.Bus(interface="servobus", channel="B", medium=medium)
    try:
        a.send(frame(0x123, b"\x01\x02"))
        got = b.recv(timeout=0.01)
        assert got is not None
        assert round(got.timestamp * 1e9) == (cfl_exact(0x123, b"\x01\x02") - 3) * BIT
    finally:
        a.shutdown()
        b.shutdown()
