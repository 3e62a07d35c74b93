"""The compiled engines' shared wire (robot.period_loop) against the LeanBus: the same frames in
the same order at the same instants for any IDs, senders, lengths and queue instants, classic
and CAN FD frames mixed; and the message table read from a description's DBC."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.bit_timing import BitTiming
from servobus.bus.frame_bits_fd import FD_LENGTHS
from servobus.bus.period_engine import LeanBus
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema
from servobus.robot.frame_rows import COLUMNS, F_BUSY, F_END, F_ID, F_SENDER, F_START
from servobus.robot.period_loop import (
    Q_N,
    T_DLC,
    T_HEAD,
    T_ID,
    T_SENDER,
    message_table,
    new_queue,
    push,
    send_next,
    wire_table,
)
from servobus.robot.robot_file import load

NODES = 4
BIT_NS = 1000
message = st.tuples(st.integers(0, 0x7FF), st.integers(0, NODES - 1),
                    st.binary(min_size=0, max_size=8),
                    st.integers(0, 400).map(lambda us: us * 1000))


FD_TIMING = BitTiming(1_000_000, 5_000_000)


def _lean(messages: list[tuple[int, int, bytes, int]],
          fd_ids: dict[int, bool] | None = None) -> list[tuple]:
    env = Environment()
    bus = LeanBus(env, FD_TIMING if fd_ids else BitTiming(1_000_000), fd_ids)
    for n in range(NODES):
        bus.attach(f"N{n}", {})
    sent: list[tuple] = []
    bus.taps.append(lambda start, end, busy, can_id, data, sender:
                    sent.append((start, end, busy, can_id, sender, data)))
    for can_id, sender, data, at in sorted(messages, key=lambda m: m[3]):  # stable: list order
        env.call_at(at, lambda s=sender, i=can_id, d=data: bus.send(s, i, d))
    env.run()
    return sent


def _loop(messages: list[tuple[int, int, bytes, int]],
          fd_ids: dict[int, bool] | None = None) -> list[tuple]:
    k_count = len(messages)
    fd_ids = fd_ids or {}
    phases = [0 if m[0] not in fd_ids else FD_TIMING.data_bit_ns if fd_ids[m[0]]
              else BIT_NS for m in messages]
    table = wire_table([m[0] for m in messages], [m[1] for m in messages],
                       [len(m[2]) for m in messages], phases,
                       [int(fd_ids.get(m[0], False)) for m in messages])
    payload = np.zeros((k_count, 64), dtype=np.uint8)
    for k, (_, _, data, _) in enumerate(messages):
        payload[k, :len(data)] = list(data)
    queue = new_queue(k_count)
    for k in sorted(range(k_count), key=lambda k: messages[k][3]):
        push(queue, k, messages[k][3])
    frames = np.zeros((k_count, COLUMNS), dtype=np.int64)
    data = np.zeros((k_count, 64), dtype=np.uint8)
    free, f, sent = 0, 0, []
    while queue[Q_N] > 0:
        k, end, free = send_next(queue, table, payload, free, frames, data, f, BIT_NS)
        row = frames[f]
        assert end == row[F_END] and free == row[F_BUSY]
        sent.append((int(row[F_START]), int(row[F_END]), int(row[F_BUSY]), int(row[F_ID]),
                     int(row[F_SENDER]), bytes(data[f, :table[T_DLC, k]])))
        f += 1
    return sent


@settings(max_examples=60, deadline=None)
@given(st.lists(message, min_size=1, max_size=8))
def test_the_shared_wire_sends_what_the_lean_bus_sends(messages: list) -> None:
    assert _loop(messages) == _lean(messages)


@st.composite
def fd_messages(draw: st.DrawFn) -> tuple[list, dict[int, bool]]:
    """Messages whose IDs are CAN FD frames (with or without BRS) or classic ones, payloads of
    their format's lengths."""
    ids = draw(st.lists(st.integers(0, 0x7FF), min_size=1, max_size=4, unique=True))
    fd_ids = {i: draw(st.booleans()) for i in ids if draw(st.booleans())}
    out = []
    for _ in range(draw(st.integers(1, 8))):
        can_id = draw(st.sampled_from(ids))
        size = draw(st.sampled_from(FD_LENGTHS) if can_id in fd_ids else st.integers(0, 8))
        out.append((can_id, draw(st.integers(0, NODES - 1)),
                    draw(st.binary(min_size=size, max_size=size)),
                    draw(st.integers(0, 400)) * 1000))
    return out, fd_ids


@settings(max_examples=60, deadline=None)
@given(fd_messages())
def test_fd_frames_on_the_shared_wire_are_the_lean_bus_frames(
        drawn: tuple[list, dict[int, bool]]) -> None:
    """At 1/5 Mbit/s, FD frames' data phases at 200 ns a bit (with BRS), classic ones nominal."""
    messages, fd_ids = drawn
    assert _loop(messages, fd_ids) == _lean(messages, fd_ids)


def test_a_lower_id_queued_during_a_frame_wins_the_next_arbitration() -> None:
    # 0x300 queued at 0 starts at once; 0x100 and 0x200 are queued while it is on the wire:
    # 0x100 goes next although 0x200 was queued first
    messages = [(0x300, 0, b"\x01", 0), (0x200, 1, b"", 10_000), (0x100, 2, b"", 20_000)]
    sent = _loop(messages)
    assert [s[3] for s in sent] == [0x300, 0x100, 0x200] and sent == _lean(messages)
    assert sent[1][0] == sent[0][2]  # back to back: it starts when the wire is free


def test_message_tables_come_from_the_description_and_its_dbc() -> None:
    spejbl, guroo_file = load("spejbl"), load("guroo")
    guroo_schema = Schema(guroo_file.dbc, required=())
    table = message_table(Schema(spejbl.dbc), [n.name for n in spejbl.nodes],
                          ["TICK", "MEAS_3", "ACTUATION_2", "STATUS_12"])
    assert table[T_ID].tolist() == [0x10, 0x103, 0x21, 0x30C]
    assert table[T_SENDER].tolist() == [0, 3, 13, 12]  # TIME_TRIGGER, JOINT_3, HOST, JOINT_12
    assert table[T_DLC].tolist() == [1, 2, 8, 4]
    guroo = message_table(guroo_schema, [n.name for n in guroo_file.nodes],
                          ["VEL_SP_1", "FEEDBACK_5", "SERVO_STATUS"])
    assert guroo[:T_HEAD].tolist() == [[0x10, 0x44, 0x45], [0, 5, 6], [8, 8, 2]]
    with pytest.raises(ValueError, match="SERVO_STATUS: the DBC names"):
        message_table(guroo_schema, ["CENTRAL", "HP_1"], ["SERVO_STATUS"])
    with pytest.raises(ValueError, match="FEEDBACK_5's is HP_5, CENTRAL sends it"):
        message_table(guroo_schema, [n.name for n in guroo_file.nodes],
                      ["VEL_SP_1", "FEEDBACK_5"],
                      [0, 0])


def test_a_message_queued_twice_before_it_is_sent_overflows_loudly() -> None:
    queue = new_queue(2)  # room for each of two messages once
    push(queue, 0, 0)
    push(queue, 1, 0)
    with pytest.raises(ValueError, match="queue is full"):
        push(queue, 0, 5)
