"""The table-driven ``frame_fast.stuffed_bits`` (a chunk of up to 8 bits per step) equals the
bit-level reference ``frame_bits`` (CRC-15 and stuffing bit by bit) on every kind of frame, with
payloads and IDs built so that runs of equal bits cross chunk, header, data and CRC boundaries;
its tables are the textbook ones."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import frame_bits as fb
from servobus.bus.frame_fast import (
    CRC_TABLE,
    STATES,
    STUFF_TABLE,
    stuffed_bits,
    stuffed_length,
)

TRAILER = fb.TRAILER_BITS + fb.IFS_BITS
# bytes whose runs of equal bits reach or cross a byte's edge, and alternating ones
EDGY = (0x00, 0xFF, 0x55, 0xAA, 0x0F, 0xF0, 0x07, 0xE0, 0x1F, 0xF8, 0x80, 0x7F, 0x01, 0xFE,
        0x03, 0xC0, 0x3C, 0xC3)


def reference(can_id: int, data: bytes, extended: bool) -> int:
    """SOF..CRC with stuff bits, bit by bit (frame_bits), not the code under test."""
    return fb.exact_frame_bits(can_id, data, extended) - TRAILER


def compiled(can_id: int, data: bytes, extended: bool) -> int:
    """The compiled length (``stuffed_length``: ``stuffed_bits`` inside numba's cached call)."""
    return stuffed_length(can_id, data, extended)


edgy_bytes = st.one_of(st.sampled_from(EDGY), st.integers(0, 255))
payloads = st.lists(edgy_bytes, max_size=8).map(bytes)
standard_ids = st.one_of(st.integers(0, 0x7FF), st.sampled_from(
    (0x000, 0x7FF, 0x001, 0x7FE, 0x3FF, 0x400, 0x00F, 0x7F0, 0x555, 0x2AA, 0x01F, 0x7C0)))
extended_ids = st.one_of(st.integers(0, 0x1FFFFFFF), st.sampled_from(
    (0x00000000, 0x1FFFFFFF, 0x0003FFFF, 0x1FFC0000, 0x00000001, 0x15555555, 0x0000001F)))


@settings(max_examples=400, deadline=None)
@given(extended=st.booleans(), std_id=standard_ids, ext_id=extended_ids, data=payloads)
def test_table_driven_equals_bit_by_bit(extended: bool, std_id: int, ext_id: int,
                                        data: bytes) -> None:
    can_id = ext_id if extended else std_id
    assert compiled(can_id, data, extended) == reference(can_id, data, extended)
    payload = np.zeros(8, dtype=np.uint8)  # uncompiled, as the loops' plain-Python tests call it
    payload[:len(data)] = np.frombuffer(data, dtype=np.uint8)
    assert stuffed_bits(can_id, payload, len(data), extended) == reference(can_id, data, extended)


@settings(max_examples=200, deadline=None)
@given(extended=st.booleans(), can_id=st.integers(0, 0x1FFFFFFF), bit=st.integers(0, 1),
       start=st.integers(0, 63), length=st.integers(1, 40),
       noise=st.binary(min_size=8, max_size=8), dlc=st.integers(0, 8))
def test_runs_at_every_offset(extended: bool, can_id: int, bit: int, start: int, length: int,
                              noise: bytes, dlc: int) -> None:
    """A run of `length` equal bits written over random data at any bit offset: it crosses
    byte edges and, at the ends, the header/data and data/CRC boundaries."""
    can_id = can_id if extended else can_id & 0x7FF
    word = int.from_bytes(noise, "big")
    run = ((1 << length) - 1) << max(0, 64 - start - length) >> max(0, start + length - 64)
    word = word | run if bit else word & ~run & (1 << 64) - 1
    data = word.to_bytes(8, "big")[:dlc]
    assert compiled(can_id, data, extended) == reference(can_id, data, extended)


def test_every_standard_header() -> None:
    """Every 11-bit ID with every DLC, payload all 0 and all 1 bits: each header's run into the
    data and each CRC's stuffing."""
    for fill in (0x00, 0xFF):
        for dlc in range(9):
            data = bytes([fill] * dlc)
            for can_id in range(0, 0x800, 3 if fill else 1):
                assert compiled(can_id, data, False) == reference(can_id, data, False), \
                    (hex(can_id), dlc, fill)


def test_crc_table_is_the_textbook_one() -> None:
    """[256 + i]: register i << 7 shifted 8 times through the polynomial 0x4599 (the standard
    msb-first table of a 15-bit CRC); shorter widths are the same register shift, fewer times."""
    for width in range(9):
        for value in range(1 << width):
            crc = value << (15 - width) if width else 0
            for _ in range(width):
                crc = ((crc << 1) ^ (0x4599 if crc & 0x4000 else 0)) & 0x7FFF
            assert CRC_TABLE[(1 << width) | value] == crc


def test_stuff_table_transitions() -> None:
    """Hand-checked transitions: after 4 zeros a zero byte stuffs after its first bit and
    again after 5 more (ending on a run of 2 zeros); from 'no bit yet', 0xF8 stuffs once
    (11111 s=0 000: a run of 4 zeros); alternating bits stuff only after a run of 4."""
    zero4, none = STATES.index((4, 0)), STATES.index((0, 2))
    assert STUFF_TABLE[zero4, 256 | 0x00] >> 4 == 2
    assert STATES[STUFF_TABLE[zero4, 256 | 0x00] & 15] == (2, 0)
    assert STUFF_TABLE[none, 256 | 0xF8] >> 4 == 1
    assert STATES[STUFF_TABLE[none, 256 | 0xF8] & 15] == (4, 0)
    assert [STUFF_TABLE[s, 256 | 0x55] >> 4 for s in range(len(STATES))] == \
        [int(state == (4, 0)) for state in STATES]
