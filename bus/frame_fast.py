"""Compiled stuffed length of a frame: the hot path of the simulated bus (every frame).

The same bit-level rules as ``bus.frame_bits`` (which stays the readable reference and is what
the tests check against can-utils); tests require both to agree on every frame.
"""

from functools import lru_cache

import numba
import numpy as np

from servobus.bus.frame_bits import CRC15_POLY

STUFF_CACHE = 65536  # stuffed lengths remembered (bounded memory)


@numba.njit(cache=True)
def _stuffed_length(can_id: int, data: np.ndarray, extended: bool) -> int:
    n = data.shape[0]
    bits = np.zeros(64 + 8 * 8 + 15, dtype=np.uint8)
    k = 0
    bits[k] = 0
    k += 1
    if extended:
        for b in range(10, -1, -1):
            bits[k] = ((can_id >> 18) >> b) & 1
            k += 1
        bits[k] = 1
        bits[k + 1] = 1
        k += 2
        for b in range(17, -1, -1):
            bits[k] = (can_id >> b) & 1
            k += 1
        k += 3  # RTR, r1, r0 = 0
    else:
        for b in range(10, -1, -1):
            bits[k] = (can_id >> b) & 1
            k += 1
        k += 3  # RTR, IDE, r0 = 0
    for b in range(3, -1, -1):
        bits[k] = (n >> b) & 1
        k += 1
    for i in range(n):
        for b in range(7, -1, -1):
            bits[k] = (data[i] >> b) & 1
            k += 1
    crc = 0
    for i in range(k):
        feedback = bits[i] ^ ((crc >> 14) & 1)
        crc = (crc << 1) & 0x7FFF
        if feedback:
            crc ^= CRC15_POLY
    for b in range(14, -1, -1):
        bits[k] = (crc >> b) & 1
        k += 1
    count, run, last = 0, 0, 2
    for i in range(k):
        bit = bits[i]
        if bit == last:
            run += 1
        else:
            run = 1
            last = bit
        if run == 5:
            count += 1
            run = 1
            last = 1 - bit
    return k + count


def stuffed_length(can_id: int, data: bytes, extended: bool) -> int:
    """SOF..CRC including the stuff bits of this exact frame."""
    return int(_stuffed_length(can_id, np.frombuffer(data, dtype=np.uint8), extended))


@lru_cache(maxsize=STUFF_CACHE)
def stuffed_length_cached(can_id: int, data: bytes, extended: bool = False) -> int:
    """`stuffed_length`, remembered: a bus's payloads repeat (ticks, positions, statuses)."""
    return stuffed_length(can_id, data, extended)
