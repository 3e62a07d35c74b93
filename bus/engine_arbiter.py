"""The period engine's arbitration as one compiled loop over frames given as arrays.

The same rules as ``bus.medium`` and ``bus.period_engine.LeanBus``: at each free instant the
lowest key (ID, then queueing order) among the frames that are ready wins, lasts its exact
stuffed length (``frame_fast``) plus trailer, is delivered at its end of frame and the wire is
free again after the interframe space; an idle wire waits for the next ready frame.  Every
delivery is counted into the receive counter of every other node (no acceptance filter), as
each node's receive path would.  Used by ``servobus bench bus`` to measure the engine's bus.
"""

import time

import numba
import numpy as np

from servobus.bus import frame_bits as fb
from servobus.bus.frame_fast import _stuffed_length
from servobus.bus.scheduler import NS_PER_S

BENCH_NODES = 14


def arbitrate_frames(ids: np.ndarray, data: np.ndarray, dlc: np.ndarray, ready: np.ndarray,
                     first: np.ndarray, bit_ns: int, free_at: int, order: np.ndarray,
                     start: np.ndarray, end: np.ndarray, received: np.ndarray) -> int:
    """Transmit every frame; node k's frames are rows first[k]..first[k+1]-1 in its queue's
    priority order.  Fills order/start/end per transmission and `received` per node; returns
    the instant the wire is free again."""
    nodes = first.shape[0] - 1
    head = first[:-1].copy()
    trailer, ifs = fb.TRAILER_BITS * bit_ns, fb.IFS_BITS * bit_ns
    t = free_at
    for i in range(ids.shape[0]):
        best, best_node, earliest = -1, -1, np.int64(np.iinfo(np.int64).max)
        while best < 0:
            for k in range(nodes):
                h = head[k]
                if h >= first[k + 1]:
                    continue
                if ready[h] <= t:
                    if best < 0 or ids[h] < ids[best] or (ids[h] == ids[best] and h < best):
                        best, best_node = h, k
                elif ready[h] < earliest:
                    earliest = ready[h]
            if best < 0:
                t = int(earliest)
        head[best_node] += 1
        bits = _stuffed_length(ids[best], data[best, :dlc[best]], False)
        order[i], start[i] = best, t
        end[i] = t + bits * bit_ns + trailer
        t = end[i] + ifs
        for k in range(nodes):
            if k != best_node:
                received[k] += 1
    return t


arbitrate = numba.njit(cache=True)(arbitrate_frames)  # as frame_fast (bus may not use plant)


def bench_engine_bus(per_node: int, bitrate: int = 1_000_000) -> dict[str, float]:
    """14 nodes each queue `per_node` 8-byte frames at once (as ``bench.bench_sim``); the
    compiled arbiter puts them all on the wire and every other node receives each one."""
    nodes = BENCH_NODES
    n = nodes * per_node
    ids = np.repeat(np.arange(0x100, 0x100 + nodes, dtype=np.int64), per_node)
    counter = np.tile(np.arange(per_node, dtype=np.uint64), nodes)
    data = counter.view(np.uint8).reshape(n, 8).copy()  # k.to_bytes(8, "little")
    dlc = np.full(n, 8, dtype=np.int64)
    ready = np.zeros(n, dtype=np.int64)
    first = np.arange(0, n + 1, per_node, dtype=np.int64)
    order, start, end = (np.zeros(n, dtype=np.int64) for _ in range(3))
    received = np.zeros(nodes, dtype=np.int64)
    bit_ns = NS_PER_S // bitrate
    arbitrate(ids[:1], data[:1], dlc[:1], ready[:1], np.array([0, 1]), bit_ns, 0,
              order[:1], start[:1], end[:1], np.zeros(1, dtype=np.int64))  # compile / load
    t0 = time.perf_counter()
    free = arbitrate(ids, data, dlc, ready, first, bit_ns, 0, order, start, end, received)
    wall = time.perf_counter() - t0
    return {"frames": n, "deliveries": int(received.sum()), "wall_s": wall,
            "frames_per_s": n / wall, "sim_time_s": free / NS_PER_S}
