"""A compiled CAN arbiter: nodes' transmit queues drained frame by frame in one numba call.

The rules of ``period_engine.LeanBus`` (and of the compiled period engine's loop): when the wire
is free the lowest identifier among the queued frames wins (one identifier per node here, so a
node's frames go in queueing order), lasts its exact stuffed length (``stuffed_bits``: one pass over
the bits, no bit array, equal to ``frame_fast``'s) plus the
trailer, is delivered at its end of frame to every node whose acceptance admits it, and the wire
is free again after the interframe space.  A node keeps at most `depth` frames queued and queues
its next one as each of its frames is delivered.  Used by ``servobus bench bus`` (the
``servobus_compiled`` line): every delivery is counted into the receiving node's counter, as a
node taking the frame would.
"""

import numba
import numpy as np
from numba.extending import register_jitable

from servobus.bus.frame_bits import CRC15_POLY, IFS_BITS, TRAILER_BITS


@register_jitable
def _bit(bit, crc, run, last, count):
    """One bit of SOF..CRC through the CRC register and the stuffing counter (as
    ``frame_fast._stuffed_length``, without the bit array)."""
    feedback = bit ^ ((crc >> 14) & 1)
    crc = (crc << 1) & 0x7FFF
    if feedback:
        crc ^= CRC15_POLY
    if bit == last:
        run += 1
    else:
        run, last = 1, bit
    if run == 5:
        count += 1
        run, last = 1, 1 - bit
    return crc, run, last, count


@register_jitable
def stuffed_bits(can_id, payload, dlc):
    """The stuffed length SOF..CRC of a standard data frame, in one pass."""
    crc, run, last, count = 0, 0, 2, 0
    crc, run, last, count = _bit(0, crc, run, last, count)  # SOF
    for b in range(10, -1, -1):
        crc, run, last, count = _bit((can_id >> b) & 1, crc, run, last, count)
    for _ in range(3):  # RTR, IDE, r0
        crc, run, last, count = _bit(0, crc, run, last, count)
    for b in range(3, -1, -1):
        crc, run, last, count = _bit((dlc >> b) & 1, crc, run, last, count)
    for i in range(dlc):
        for b in range(7, -1, -1):
            crc, run, last, count = _bit((payload[i] >> b) & 1, crc, run, last, count)
    sent = crc
    for b in range(14, -1, -1):  # the CRC's own bits are stuffed, not CRC'd
        bit = (sent >> b) & 1
        if bit == last:
            run += 1
        else:
            run, last = 1, bit
        if run == 5:
            count += 1
            run, last = 1, 1 - bit
    return 19 + 8 * dlc + 15 + count




def arbitrate(ids, payloads, dlc, depth, accepts, bit_ns, counts, free_at):
    """Send every node's frames (payloads[node, k], `dlc` bytes, ID ids[node]); accepts[r, s]:
    node r receives node s's frames.  Counts deliveries per receiver; returns the frames sent
    and leaves the wire's free instant in free_at[0]."""
    nodes, per_node = payloads.shape[0], payloads.shape[1]
    queued = np.zeros(nodes, dtype=np.int64)  # frames of each node queued so far
    sent = np.zeros(nodes, dtype=np.int64)
    for s in range(nodes):
        queued[s] = min(depth, per_node)
    free = free_at[0]
    frames = 0
    while True:
        winner = -1
        for s in range(nodes):
            if sent[s] < queued[s] and (winner < 0 or ids[s] < ids[winner]):
                winner = s
        if winner < 0:
            break
        bits = stuffed_bits(ids[winner], payloads[winner, sent[winner]], dlc)
        end = free + (bits + TRAILER_BITS) * bit_ns
        free = end + IFS_BITS * bit_ns
        sent[winner] += 1
        frames += 1
        for r in range(nodes):
            if accepts[r, winner]:
                counts[r] += 1
        if queued[winner] < per_node:
            queued[winner] += 1
    free_at[0] = free
    return frames


arbitrate_c = numba.njit(cache=True)(arbitrate)  # inlines this file only
