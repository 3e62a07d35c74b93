"""CAN FD on the simulated buses: a frame's place on the wire from the hand-counted lengths of
``test_frame_bits_fd`` (nominal bits at the nominal rate, the data phase at the data rate when
BRS is set, ACK/EOF/IFS nominal), the arbitration bits between classic and FD frames (ISO
11898-1:2015 §10.3: RTR/RRS, IDE, then r0 dominant against FDF recessive), what a controller
refuses, and the period engine's LeanBus equal to the reference medium on mixed traffic."""

import can
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import frame_bits_fd as fd
from servobus.bus.bit_timing import BitTiming
from servobus.bus.controller import Controller, InvalidFrame
from servobus.bus.faults import CORRUPT, FaultPlan, FrameFault
from servobus.bus.frame_fast import fd_bits
from servobus.bus.medium import FrameRecord, Medium
from servobus.bus.period_engine import LeanBus
from servobus.bus.scheduler import Environment

NOMINAL, DATA = 1_000_000, 5_000_000  # 1000 ns and 200 ns bits


def fd_msg(can_id: int, data: bytes, brs: bool = True, **kw: bool) -> can.Message:
    return can.Message(arbitration_id=can_id, data=data, is_extended_id=False, is_fd=True,
                       bitrate_switch=brs, **kw)


def classic(can_id: int, data: bytes, **kw: bool) -> can.Message:
    return can.Message(arbitration_id=can_id, data=data, is_extended_id=False, **kw)


def run(msgs: list[can.Message], data_bitrate: int | None = DATA) -> list[FrameRecord]:
    """Each frame from its own node, all queued at 0, plus a listener; the records in order."""
    env = Environment()
    medium = Medium(env, NOMINAL, data_bitrate=data_bitrate)
    records: list[FrameRecord] = []
    medium.taps.append(records.append)
    medium.attach("listener", lambda m: None)
    for k, msg in enumerate(msgs):
        medium.submit(medium.attach(f"N{k}", None), msg)
    env.run()
    return records


def test_fd_frame_times_from_the_hand_counted_lengths() -> None:
    """ID 0x123, 8 x 00 with BRS: 29 nominal + 110 data bits (hand-counted) = 29 us + 22 us;
    the end of frame is 10 nominal bits (ACK slot, delimiter, EOF) before the 3-bit IFS ends.
    Without BRS the same frame is 139 nominal bits; 64 x 55: 29 + 550 x 0.2 us."""
    first, second, third = run([fd_msg(0x123, bytes(8)), fd_msg(0x124, bytes(8), brs=False),
                                fd_msg(0x125, b"\x55" * 64)])
    assert (first.start_ns, first.end_ns, first.busy_until_ns) == (0, 48_000, 51_000)
    assert first.bits == 29 + 110
    assert first.msg.is_fd and first.msg.bitrate_switch and not first.msg.error_state_indicator
    assert (second.start_ns, second.busy_until_ns) == (51_000, 51_000 + 139_000)
    assert not second.msg.bitrate_switch
    assert third.busy_until_ns - third.start_ns == 29_000 + 550 * 200


def test_esi_is_carried_and_counted() -> None:
    """ESI recessive changes the bits after BRS: the medium times the frame as sent."""
    record, = run([fd_msg(0x123, bytes(8), error_state_indicator=True)])
    length = fd.fd_frame_bits(0x123, bytes(8), esi=True)
    assert record.msg.error_state_indicator
    assert record.busy_until_ns == length.nominal_bits * 1000 + length.data_bits * 200


def test_arbitration_between_classic_fd_remote_and_extended_frames() -> None:
    """A lower ID wins whatever its format; a remote frame's recessive RTR loses to the data
    frames (RTR / RRS dominant) of its ID; an extended frame (SRR, IDE recessive) loses to every
    standard one of its base ID; one ID as classic and FD frame (two nodes, which CAN forbids):
    the classic first, the model's choice (r0 dominant against FDF recessive)."""
    remote = can.Message(arbitration_id=0x200, is_remote_frame=True, is_extended_id=False, dlc=2)
    extended = can.Message(arbitration_id=0x200 << 18, data=b"x", is_extended_id=True,
                           is_fd=True)
    order = run([remote, extended, fd_msg(0x200, b"f"), classic(0x200, b"c"),
                 fd_msg(0x1FF, b"low")])
    assert [(r.msg.arbitration_id, bytes(r.msg.data), r.msg.is_remote_frame)
            for r in order] == [(0x1FF, b"low", False), (0x200, b"c", False),
                                (0x200, b"f", False), (0x200, b"", True),
                                (0x200 << 18, b"x", False)]


@pytest.mark.parametrize(("msg", "why"), [
    (can.Message(arbitration_id=1, data=bytes(13), is_fd=True, is_extended_id=False),
     "13 data bytes"),
    (can.Message(arbitration_id=1, is_remote_frame=True, is_fd=True, is_extended_id=False),
     "no remote frames"),
    (can.Message(arbitration_id=1, data=b"a", bitrate_switch=True, is_extended_id=False),
     "only in CAN FD"),
    (can.Message(arbitration_id=1, data=bytes(12), is_extended_id=False), "at most 8"),
])
def test_what_an_fd_controller_refuses(msg: can.Message, why: str) -> None:
    medium = Medium(Environment(), NOMINAL, data_bitrate=DATA)
    with pytest.raises(InvalidFrame, match=why):
        medium.submit(medium.attach("A", None), msg)


def test_a_classic_bus_refuses_fd_frames() -> None:
    medium = Medium(Environment(), NOMINAL)
    with pytest.raises(InvalidFrame, match="this bus is classic CAN"):
        medium.submit(medium.attach("A", None), fd_msg(1, b"a"))


def test_bit_rates_outside_the_standard_are_refused() -> None:
    with pytest.raises(ValueError, match="8 Mbit/s"):
        Medium(Environment(), NOMINAL, data_bitrate=10_000_000)
    with pytest.raises(ValueError, match="no whole-ns bit time"):
        Medium(Environment(), NOMINAL, data_bitrate=3_000_000)


def corrupted(count: int) -> tuple[list[FrameRecord], Controller]:
    """0x123 with 8 x 00 (FD, BRS) from node A, its first `count` attempts corrupted: every
    attempt's record, and A's controller."""
    env = Environment()
    medium = Medium(env, NOMINAL, data_bitrate=DATA,
                    faults=FaultPlan(rules=[FrameFault(CORRUPT, 0x123, 0, count=count)]))
    records: list[FrameRecord] = []
    medium.taps.append(records.append)
    medium.attach("listener", lambda m: None)
    sender = medium.attach("A", None)
    medium.submit(sender, fd_msg(0x123, bytes(8)))
    env.run()
    return records, sender


def test_a_corrupted_fd_frame_is_flagged_after_its_ack_delimiter() -> None:
    """The CRC error flag starts 2 nominal bits after the CRC delimiter ends (ACK slot and
    delimiter); the error frame (14 bits) and IFS (3) follow, all nominal."""
    (failed, sent), _ = corrupted(1)
    to_crc_delimiter = 29_000 - 12_000 + 110 * 200  # nominal bits after it: ACK 2, EOF 7, IFS 3
    assert (failed.ok, failed.fault) == (False, CORRUPT)
    assert failed.end_ns == to_crc_delimiter + 2_000 + 14_000
    assert failed.busy_until_ns == failed.end_ns + 3_000 == sent.start_ns
    assert failed.bits == 29 - 12 + 110 + 2 + 14 + 3
    assert sent.ok and sent.bits == 139


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 0x7FF), st.sampled_from(fd.FD_LENGTHS).flatmap(
    lambda n: st.binary(min_size=n, max_size=n)), st.booleans())
def test_the_compiled_fd_length_is_the_bit_models(can_id: int, data: bytes, brs: bool) -> None:
    """``frame_fast.fd_bits`` (the compiled engines') against ``frame_bits_fd.fd_frame``."""
    frame = fd.fd_frame(can_id, data, brs=brs)
    assert fd_bits(can_id, np.frombuffer(data, dtype=np.uint8), len(data), brs) == (
        len(frame.arbitration), len(frame.data_phase) + len(frame.crc_field) + 1)


@st.composite
def mixed_traffic(draw: st.DrawFn) -> tuple[dict[int, bool], list[tuple[int, int, bytes]]]:
    """IDs, some of them FD (with or without BRS), and timed sends of payloads that fit."""
    ids = draw(st.lists(st.integers(0, 0x7FF), min_size=2, max_size=6, unique=True))
    fd_ids = {i: draw(st.booleans()) for i in ids if draw(st.booleans())}
    sends = []
    for _ in range(draw(st.integers(1, 20))):
        can_id = draw(st.sampled_from(ids))
        size = draw(st.sampled_from(fd.FD_LENGTHS) if can_id in fd_ids else st.integers(0, 8))
        sends.append((draw(st.integers(0, 300_000)), can_id, draw(st.binary(min_size=size,
                                                                            max_size=size))))
    return fd_ids, sends


@settings(max_examples=60, deadline=None)
@given(mixed_traffic())
def test_the_lean_bus_is_the_mediums_on_mixed_traffic(
        traffic: tuple[dict[int, bool], list[tuple[int, int, bytes]]]) -> None:
    """Every frame's start, end of frame, free instant and bits on the LeanBus equal the
    reference medium's, classic and FD frames mixed on one 1/5 Mbit/s bus."""
    fd_ids, sends = traffic
    timing = BitTiming(NOMINAL, DATA)
    env = Environment()
    lean = LeanBus(env, timing, fd_ids)
    lean.attach("A", {})
    lean.attach("B", {})
    got: list[tuple] = []
    lean.taps.append(lambda s, e, b, c, d, sender: got.append((s, e, b, c, d)))
    bits: list[int] = []
    lean.charges.append(lambda start, busy, n, ok: bits.append(n))
    for at, can_id, data in sends:
        env.call_at(at, lambda c=can_id, d=data: lean.send(0, c, d))
    env.run()

    env = Environment()
    medium = Medium(env, NOMINAL, data_bitrate=DATA)
    records: list[FrameRecord] = []
    medium.taps.append(records.append)
    sender = medium.attach("A", None)
    medium.attach("B", lambda m: None)
    for at, can_id, data in sends:
        msg = fd_msg(can_id, data, fd_ids[can_id]) if can_id in fd_ids else classic(can_id, data)
        env.call_at(at, lambda m=msg: medium.submit(sender, m))
    env.run()
    assert got == [(r.start_ns, r.end_ns, r.busy_until_ns, r.msg.arbitration_id,
                    bytes(r.msg.data)) for r in records]
    assert bits == [r.bits for r in records]


def test_fd_and_classic_buses_on_an_fd_channel() -> None:
    """python-can's way: fd=True joins an FD channel whatever its data rate; a bus opened
    without it is a classic node (CAN_20): it refuses to send FD frames and receives none, as a
    classic SocketCAN socket; fd=True on a classic channel is refused by name."""
    maker = can.Bus(interface="servobus", channel="fd-mix", clock="simulated",
                    data_bitrate=DATA)
    peer = can.Bus(interface="servobus", channel="fd-mix", fd=True)
    plain = can.Bus(interface="servobus", channel="fd-mix")
    old = can.Bus(interface="servobus", channel="classic-only")
    try:
        assert (maker.protocol, peer.protocol, plain.protocol) == (
            can.CanProtocol.CAN_FD, can.CanProtocol.CAN_FD, can.CanProtocol.CAN_20)
        with pytest.raises(InvalidFrame, match="opened classic CAN"):
            plain.send(fd_msg(0x10, bytes(12)))
        maker.send(fd_msg(0x11, bytes(12)))
        maker.send(classic(0x12, b"c"))
        got = peer.recv(timeout=0.01)
        assert got is not None and got.is_fd and len(got.data) == 12
        heard = plain.recv(timeout=0.01)
        assert heard is not None and heard.arbitration_id == 0x12 and not heard.is_fd
        assert plain.recv(timeout=0) is None
        with pytest.raises(can.CanInitializationError, match="classic CAN channel"):
            can.Bus(interface="servobus", channel="classic-only", fd=True)
    finally:
        for bus in (maker, peer, plain, old):
            bus.shutdown()


def test_an_error_passive_transmitter_sends_esi_recessive() -> None:
    """16 corrupted attempts take the sender to TEC 128 (error-passive): its next FD frame goes
    out with ESI recessive, timed as that frame (ISO 11898-1:2015: ESI shows the transmitter's
    error state), though the message asked for ESI dominant."""
    records, sender = corrupted(16)
    sent = records[-1]
    assert len(records) == 17 and sent.ok and sender.tec == 127
    assert sent.msg.error_state_indicator
    length = fd.fd_frame_bits(0x123, bytes(8), esi=True)
    assert sent.busy_until_ns - sent.start_ns == length.nominal_bits * 1000 + \
        length.data_bits * 200
