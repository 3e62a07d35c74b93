"""A compiled CAN arbiter for the bus benchmark: nodes' transmit queues drained frame by frame in
one numba call.

The rules of ``period_engine.LeanBus``: when the wire is free the lowest identifier among the
queued frames wins (one identifier per node here, so a node's frames go in queueing order),
lasts its exact stuffed length (``frame_fast.stuffed_bits``) plus the trailer, is delivered at
its end of frame to every node whose acceptance admits it, and the wire is free again after the
interframe space.  Every node has a frame queued until all of its frames are sent.  Used by
``servobus bench bus`` (the ``servobus_compiled`` line): every delivery is counted into the
receiving node's counter, as a node taking the frame would.  The compiled period engines use the
same rules through ``robot.period_loop.send_next`` (a queue of whatever the nodes queued).
"""

import numba
import numpy as np

from servobus.bus.frame_bits import IFS_BITS, TRAILER_BITS
from servobus.bus.frame_fast import stuffed_bits


def arbitrate(ids, payloads, dlc, accepts, bit_ns, counts, free_at):
    """Send every node's frames (payloads[node, k], `dlc` bytes, ID ids[node]); accepts[r, s]:
    node r receives node s's frames.  Counts deliveries per receiver; returns the frames sent
    and leaves the wire's free instant in free_at[0]."""
    nodes, per_node = payloads.shape[0], payloads.shape[1]
    sent = np.zeros(nodes, dtype=np.int64)
    free = free_at[0]
    frames = 0
    while True:
        winner = -1
        for s in range(nodes):
            if sent[s] < per_node and (winner < 0 or ids[s] < ids[winner]):
                winner = s
        if winner < 0:
            break
        bits = stuffed_bits(ids[winner], payloads[winner, sent[winner]], dlc, False)
        end = free + (bits + TRAILER_BITS) * bit_ns
        free = end + IFS_BITS * bit_ns
        sent[winner] += 1
        frames += 1
        for r in range(nodes):
            if accepts[r, winner]:
                counts[r] += 1
    free_at[0] = free
    return frames


# not cached on disk: numba's cache would miss a change in frame_fast, which this inlines (and
# bus/ may not import plant.kernel_cache); compiled once per process, in the bench's warm-up
arbitrate_c = numba.njit(arbitrate)
