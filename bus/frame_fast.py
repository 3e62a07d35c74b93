"""Compiled stuffed length of a frame: the hot path of the simulated bus (every frame).

The same bit-level rules as ``bus.frame_bits`` (which stays the readable reference and is what
the tests check against can-utils); tests require both to agree on every frame.  The compiled
length takes the frame a chunk of up to 8 bits at a time: the CRC-15 by the standard msb-first
table of a 15-bit register, the stuffing counter by a transition table (state x chunk -> state,
stuff bits added); both tables are built at import from ``frame_bits``' own CRC and step.
"""

from functools import lru_cache

import numpy as np
from numba.extending import register_jitable

from servobus.bus import frame_bits
from servobus.bus.numba_cache import njit_cached

# the stuffing counter's states (run length, last bit): "no bit yet" first, then every state a
# step can leave (a run of 5 is cut by the stuff bit, so runs are 1..4)
STATES = ((0, 2), *((run, last) for last in (0, 1) for run in range(1, 5)))


def _chunk_bits(value: int, width: int) -> list[int]:
    """The `width` low bits of `value`, msb first."""
    return [(value >> (width - 1 - k)) & 1 for k in range(width)]


def crc_table() -> np.ndarray:
    """CRC-15 of every chunk of up to 8 bits fed into a zero register, indexed by the chunk with
    a leading 1 bit marking its width ((1 << width) | value; [256:] is the byte table)."""
    table = np.zeros(512, dtype=np.uint16)
    for width in range(9):
        for value in range(1 << width):
            table[(1 << width) | value] = frame_bits.crc15(_chunk_bits(value, width))
    return table


def stuff_table() -> np.ndarray:
    """[state, (1 << width) | value]: the state (index into STATES) after a chunk of up to 8
    bits went through ``frame_bits.stuff_step``, plus 16 times the stuff bits it added (each
    chunk is its prefix's entry and one more step: ~4,600 steps at import)."""
    rows = []
    for s in range(len(STATES)):
        row = [0, s]
        for chunk in range(2, 512):
            run, last, count = frame_bits.stuff_step(chunk & 1, *STATES[row[chunk >> 1] & 15],
                                                     row[chunk >> 1] >> 4)
            row.append(STATES.index((run, last)) | count << 4)
        rows.append(row)
    return np.array(rows, dtype=np.uint8)


CRC_TABLE = crc_table()  # module-level arrays: numba freezes them into the code as constants
STUFF_TABLE = stuff_table()


@register_jitable
def chunk(value, width, crc, state, count):
    """A chunk of `width` (<= 8) bits of SOF..data through the CRC register (table-driven,
    msb first) and the stuffing counter (one transition); table entries and bytes read as ints,
    so that the plain-Python call (tests of the loops uncompiled) computes in Python ints."""
    top = 1 << width
    crc = ((crc << width) & 0x7FFF) ^ int(CRC_TABLE[top | (((crc >> (15 - width)) ^ value)
                                                         & (top - 1))])
    step = int(STUFF_TABLE[state, top | value])
    return crc, step & 15, count + (step >> 4)


@register_jitable(inline='always')  # per frame: a call and its tuple cost ~15 ns
def header_state(can_id, dlc, extended):
    """SOF..DLC of a data frame through the CRC register and the stuffing counter: (crc, state,
    stuff bits so far), the same for every frame of a message."""
    crc, state, count = 0, 0, 0
    if extended:  # SOF, base ID, SRR IDE (recessive), ID[17..0], RTR r1 r0, DLC: 39 bits
        head = ((((can_id >> 18) & 0x7FF) << 20 | 3 << 18 | (can_id & 0x3FFFF)) << 7
                | (dlc & 15))
        crc, state, count = chunk(head >> 32, 7, crc, state, count)
        for shift in range(24, -1, -8):
            crc, state, count = chunk((head >> shift) & 0xFF, 8, crc, state, count)
    else:  # SOF, ID[10..0], RTR IDE r0, DLC: 19 bits
        head = (can_id & 0x7FF) << 7 | (dlc & 15)
        crc, state, count = chunk(head >> 16, 3, crc, state, count)
        crc, state, count = chunk((head >> 8) & 0xFF, 8, crc, state, count)
        crc, state, count = chunk(head & 0xFF, 8, crc, state, count)
    return crc, state, count


@register_jitable(inline='always')  # per frame: a call and its tuple cost ~15 ns
def tail_bits(crc, state, count, dlc, extended):
    """The stuffed length SOF..CRC once the data went through (``chunk`` per byte): the CRC's
    15 bits stuffed (not CRC'd) and the fixed-length fields."""
    step = int(STUFF_TABLE[state, 128 | (crc >> 8)])
    count += step >> 4
    step = int(STUFF_TABLE[step & 15, 256 | (crc & 0xFF)])
    return (54 if extended else 34) + 8 * dlc + count + (step >> 4)


@register_jitable
def stuffed_bits(can_id, payload, dlc, extended):
    """The stuffed length SOF..CRC of a data frame (payload's first `dlc` bytes), a chunk of up
    to 8 bits at a time through the tables (no bit array): what the compiled period engine
    calls per frame."""
    crc, state, count = header_state(can_id, dlc, extended)
    for i in range(dlc):
        crc, state, count = chunk(int(payload[i]), 8, crc, state, count)
    return tail_bits(crc, state, count, dlc, extended)


@register_jitable
def _stuff(value, width, state, count):
    """A chunk of up to 8 bits through the stuffing counter only (an FD frame's length does
    not depend on its CRC's value)."""
    step = int(STUFF_TABLE[state, (1 << width) | value])
    return step & 15, count + (step >> 4)


@register_jitable
def fd_bits(can_id, payload, size, brs):
    """(arbitration bits, data-phase bits) of a standard-ID CAN FD data frame of `size` bytes
    (an FD length; ESI dominant: the engines' nodes are error-active, bus faults run on the
    reference medium): SOF..BRS with its stuff bits, and ESI..CRC delimiter with
    the dynamic stuff bits (none after the last data bit), stuff count, CRC and fixed stuff
    bits, as ``frame_bits_fd.fd_frame`` lays them out; what the compiled engines call per FD
    frame (the stuffing counter's table, no bit array)."""
    state, count = 0, 0
    head = (can_id & 0x7FF) << 5 | 4 | (1 if brs else 0)  # SOF ID RRS IDE FDF res BRS
    state, count = _stuff(head >> 16, 1, state, count)
    state, count = _stuff((head >> 8) & 0xFF, 8, state, count)
    state, count = _stuff(head & 0xFF, 8, state, count)
    arbitration = count
    dlc = size if size <= 8 else 9 + (size > 12) + (size > 16) + (size > 20) + (size > 24) \
        + (size > 32) + (size > 48)
    # the last bit's stuff bit is not sent: everything up to it goes through the counter
    if size == 0:  # ESI and DLC end the stuffed part
        state, count = _stuff(dlc >> 1, 4, state, count)
    else:
        state, count = _stuff(dlc, 5, state, count)
        for i in range(size - 1):
            state, count = _stuff(int(payload[i]), 8, state, count)
        state, count = _stuff(int(payload[size - 1]) >> 1, 7, state, count)
    width = 17 if size <= 16 else 21
    crc_field = 4 + width + 1 + (4 + width) // 4  # stuff count, parity, CRC, fixed stuff bits
    return 17 + arbitration, 5 + 8 * size + count - arbitration + crc_field + 1


@njit_cached
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


@lru_cache(maxsize=frame_bits.LENGTH_CACHE)
def stuffed_length_cached(can_id: int, data: bytes, extended: bool = False) -> int:
    """`stuffed_length`, remembered: a bus's payloads repeat (ticks, positions, statuses)."""
    return stuffed_length(can_id, data, extended)
