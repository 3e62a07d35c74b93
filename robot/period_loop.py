"""The compiled period engine's core, shared by every robot: its message table and its wire.

What a robot's compiled loop needs to know about its bus is data, read from its description
and DBC (``message_table``): for each frame the loop may send, its identifier, the index of the
node that transmits it (the description's node order is the bus's sender order) and its length.
The wire is the LeanBus's rules, written once: a loop ``push``es a frame when a node queues it
(at its timer, or in reply to a frame: the boards' MEAS at the TICK's end, the host's ACTUATION
after its computation), and ``send_next`` takes the next frame off the queue: when the wire is
free (or, if it was free first, when the earliest queued frame was queued) the lowest identifier
among the frames queued by then wins, ties in queueing order; it lasts its exact stuffed length
plus the trailer (``frame_fast``'s tables; each message's header through them once, in its
table; a CAN FD message's arbitration bits at the nominal and its data phase at its own bit
time, ``frame_fast.fd_bits``), ends, and the wire is free again after the interframe space;
every frame becomes a row (``frame_rows``). So the order of a period's frames follows from the
IDs and the instants at which the nodes queue them, as on the LeanBus, not from an order
written into the loop.

What the nodes do is code: each robot's loop (``engine_compiled.fast_forward``,
``guroo_compiled.forward``) runs, per period, the timers due at its instant and then
``while queue: send_next(...)``, doing at each end of frame what the receivers do.  The hand-overs
(``engine_sync``, ``guroo_sync``) run only periods whose frames all end before the next period's
timers, with no other event inside.  Rejected (docs/decisions.md, "The compiled engine for a
robot description"): one loop taking the robot's timers and deliveries as functions.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numba.extending import register_jitable

from servobus.bus.frame_bits import IFS_BITS, TRAILER_BITS
from servobus.bus.frame_fast import chunk, fd_bits, header_state, tail_bits
from servobus.robot.frame_rows import F_BITS, F_BUSY, F_DLC, F_END, F_ID, F_SENDER, F_START

ENGINE_SOURCES = tuple(Path(__file__).parent.parent / folder  # what the engines inline
                       for folder in ("firmware", "plant", "host", "bus", "robot", "presets"))
# rows of a message table: ID, sender, DLC, and its frames' SOF..DLC through the CRC register
# and the stuffing counter (``frame_fast.header_state`` packed: crc | state << 15 | bits << 19);
# a CAN FD message: its data phase's bit time in ns (0: a classic message) and its BRS (0 or 1)
T_ID, T_SENDER, T_DLC, T_HEAD, T_PHASE_NS, T_BRS = range(6)
# the queue: Q_N frames queued; Q_K0 + 2 s: message of slot s, Q_K0 + 2 s + 1: when it was queued
Q_N, Q_K0 = 0, 1
# `bus`: the wire's free instant, frames written (both in and out)
B_FREE, B_FRAMES = range(2)


def message_table(schema: Any, node_names: Sequence[str], names: Sequence[str],
                  senders: Sequence[int] | None = None) -> np.ndarray:
    """The message table (``wire_table``) of the messages `names` (in that order): the DBC's
    frame ID and length, and its transmitter's index among the robot's nodes (its sender index
    on the bus; a CAN FD message's data-phase bit time and BRS from the schema).  ValueError: a
    message without exactly one transmitter among the nodes, or (given the index of the node
    that sends each message, `senders`) a transmitter that is not it."""
    ids, found_senders, dlcs, phases, brs = [], [], [], [], []
    timing = schema.bit_timing
    for k, name in enumerate(names):
        message = schema.message(name)
        found = [node_names.index(s) for s in message.senders if s in node_names]
        if len(found) != 1:
            raise ValueError(f"{name}: the DBC names {message.senders or 'no'} transmitter(s),"
                             f" not one of {list(node_names)}")
        if senders is not None and found[0] != senders[k]:
            raise ValueError(f"a DBC whose transmitters are not the nodes that send: {name}'s"
                             f" is {node_names[found[0]]}, {node_names[senders[k]]} sends it")
        ids.append(message.frame_id)
        found_senders.append(found[0])
        dlcs.append(message.length)
        switch = schema.fd_ids.get(message.frame_id)
        phases.append(0 if switch is None else timing.data_bit_ns if switch else timing.bit_ns)
        brs.append(int(bool(switch)))
    return wire_table(ids, found_senders, dlcs, phases, brs)


def wire_table(ids: Sequence[int], senders: Sequence[int], dlcs: Sequence[int],
               phases: Sequence[int] | None = None,
               brs: Sequence[int] | None = None) -> np.ndarray:
    """The rows T_ID .. T_BRS of standard data frames with these IDs, sender indices and
    lengths (and data-phase bit times and BRS of CAN FD ones; none: all classic)."""
    heads = [crc | state << 15 | count << 19 for crc, state, count in
             (header_state(i, d, False) for i, d in zip(ids, dlcs, strict=True))]
    none = [0] * len(ids)
    return np.array([ids, senders, dlcs, heads, phases or none, brs or none],
                    dtype=np.int64).reshape(6, len(ids))


def payload_width(table: np.ndarray) -> int:
    """Bytes of a payload row for this table's messages: 8, or the longest CAN FD one's."""
    return max(8, int(table[T_DLC].max(initial=0)))


@register_jitable
def new_queue(messages):
    """An empty queue with room for every message once."""
    return np.zeros(Q_K0 + 2 * messages, dtype=np.int64)


@register_jitable
def push(queue, k, at):
    """Queue message k at instant `at` (after every frame queued before it); ValueError when
    the queue is full (a loop that queues a message twice before it is sent)."""
    n = queue[Q_N]
    if Q_K0 + 2 * n + 1 >= queue.shape[0]:
        raise ValueError("the compiled engine's queue is full")
    queue[Q_K0 + 2 * n] = k
    queue[Q_K0 + 2 * n + 1] = at
    queue[Q_N] = n + 1


@register_jitable(inline="always")  # a call per frame passes its five arrays' fields
def send_next(queue, table, payload, free, frames, data, f, bit_ns):
    """The next frame on the wire by the LeanBus's rules (the module docstring), written as row
    f; returns its message, its end of frame and the wire's next free instant.  One scan: the
    winner among the frames queued by the time the wire is free, or if there is none, among
    those queued at the earliest instant (the wire is idle until then)."""
    ids = table[T_ID]
    n = queue[Q_N]
    w = -1  # lowest ID queued by `free`, ties in queueing order
    v = -1  # lowest ID queued at the earliest instant after `free`
    first = 0
    for s in range(n):
        at = queue[Q_K0 + 2 * s + 1]
        if at <= free:
            if w < 0 or ids[queue[Q_K0 + 2 * s]] < ids[queue[Q_K0 + 2 * w]]:
                w = s
        elif w < 0 and (v < 0 or at < first or (
                at == first and ids[queue[Q_K0 + 2 * s]] < ids[queue[Q_K0 + 2 * v]])):
            v, first = s, at
    start = free
    if w < 0:
        w, start = v, first
    k = queue[Q_K0 + 2 * w]
    for s in range(w, n - 1):  # the rest keep their queueing order
        queue[Q_K0 + 2 * s] = queue[Q_K0 + 2 * s + 2]
        queue[Q_K0 + 2 * s + 1] = queue[Q_K0 + 2 * s + 3]
    queue[Q_N] = n - 1
    dlc = table[T_DLC, k]
    phase = table[T_PHASE_NS, k]
    if phase:  # CAN FD: SOF..BRS nominal, ESI..CRC delimiter at the data phase's bit time
        arbitration, fast = fd_bits(ids[k], payload[k], dlc, table[T_BRS, k] != 0)
        bits = arbitration + fast - 1  # as SOF..CRC of a classic frame: the rows' F_BITS
        span = arbitration * bit_ns + fast * phase
    else:
        head = table[T_HEAD, k]
        crc, state, count = head & 0x7FFF, (head >> 15) & 15, head >> 19
        for i in range(dlc):
            crc, state, count = chunk(int(payload[k, i]), 8, crc, state, count)
        bits = tail_bits(crc, state, count, dlc, False)
        span = (bits + 1) * bit_ns
    busy = transmit(frames, data, f, ids[k], table[T_SENDER, k], payload, k, dlc, bits, span,
                    start, bit_ns)
    return k, frames[f, F_END], busy


@register_jitable
def transmit(frames, data, f, can_id, sender, payload, k, dlc, bits, span, start, bit_ns):
    """Write frame f (row k of payload, `bits` long SOF..CRC, `span` ns from SOF to the end of
    its CRC delimiter, transmitted from `start`) and return the wire's free instant after it."""
    end = start + span + (TRAILER_BITS - 1) * bit_ns
    busy = end + IFS_BITS * bit_ns
    frames[f, F_START], frames[f, F_END], frames[f, F_BUSY] = start, end, busy
    frames[f, F_ID], frames[f, F_SENDER], frames[f, F_BITS], frames[f, F_DLC] = \
        can_id, sender, bits, dlc
    for b in range(data.shape[1]):
        data[f, b] = payload[k, b] if b < dlc else 0
    return busy
