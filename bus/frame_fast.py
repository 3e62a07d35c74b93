"""Compiled stuffed length of a frame: the hot path of the simulated bus (every frame).

The same bit-level rules as ``bus.frame_bits`` (which stays the readable reference and is what
the tests check against can-utils); tests require both to agree on every frame.
"""

from functools import lru_cache

import numba
import numpy as np
from numba.extending import register_jitable

from servobus.bus import frame_bits
from servobus.bus.frame_bits import CRC15_POLY

STUFF_CACHE = 65536  # stuffed lengths remembered (bounded memory)
stuff_step = register_jitable(frame_bits.stuff_step)  # the reference's step, compiled


@register_jitable
def _bit(bit, crc, run, last, count):
    """One bit of SOF..data through the CRC register and the stuffing counter."""
    feedback = bit ^ ((crc >> 14) & 1)
    crc = (crc << 1) & 0x7FFF
    if feedback:
        crc ^= CRC15_POLY
    run, last, count = stuff_step(bit, run, last, count)
    return crc, run, last, count


@register_jitable
def stuffed_bits(can_id, payload, dlc, extended):
    """The stuffed length SOF..CRC of a data frame (payload's first `dlc` bytes), in one pass
    over its bits (no bit array): what the compiled period engine calls per frame."""
    crc, run, last, count = 0, 0, 2, 0
    crc, run, last, count = _bit(0, crc, run, last, count)  # SOF
    base = can_id >> 18 if extended else can_id
    for b in range(10, -1, -1):
        crc, run, last, count = _bit((base >> b) & 1, crc, run, last, count)
    if extended:
        for _ in range(2):  # SRR, IDE recessive
            crc, run, last, count = _bit(1, crc, run, last, count)
        for b in range(17, -1, -1):
            crc, run, last, count = _bit((can_id >> b) & 1, crc, run, last, count)
    for _ in range(3):  # RTR, IDE, r0 (extended: RTR, r1, r0)
        crc, run, last, count = _bit(0, crc, run, last, count)
    for b in range(3, -1, -1):
        crc, run, last, count = _bit((dlc >> b) & 1, crc, run, last, count)
    for i in range(dlc):
        for b in range(7, -1, -1):
            crc, run, last, count = _bit((payload[i] >> b) & 1, crc, run, last, count)
    sent = crc
    for b in range(14, -1, -1):  # the CRC's own bits are stuffed, not CRC'd
        run, last, count = stuff_step((sent >> b) & 1, run, last, count)
    return (54 if extended else 34) + 8 * dlc + count


@numba.njit(cache=True)
def _stuffed_length(can_id: int, word: int, dlc: int, extended: bool) -> int:
    """The payload as one signed big-endian integer (an int64: its bytes by shift and mask): a
    call of scalars costs a fraction of an array's."""
    payload = np.empty(8, dtype=np.uint8)
    for i in range(dlc):
        payload[i] = (word >> (8 * (dlc - 1 - i))) & 0xFF
    return stuffed_bits(can_id, payload, dlc, extended)


def stuffed_length(can_id: int, data: bytes, extended: bool) -> int:
    """SOF..CRC including the stuff bits of this exact frame (classic CAN: up to 8 bytes)."""
    if len(data) > 8:
        raise ValueError(f"a classic CAN frame carries at most 8 bytes, not {len(data)}")
    return int(_stuffed_length(can_id, int.from_bytes(data, "big", signed=True), len(data),
                                extended))


@lru_cache(maxsize=STUFF_CACHE)
def stuffed_length_cached(can_id: int, data: bytes, extended: bool = False) -> int:
    """`stuffed_length`, remembered: a bus's payloads repeat (ticks, positions, statuses)."""
    return stuffed_length(can_id, data, extended)
