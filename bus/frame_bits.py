"""Bit-level model of a classic CAN data frame: bit stream, CRC-15, stuff bits, frame lengths.

Standard (11-bit) data frame, before stuffing:

    SOF | ID[10..0] | RTR IDE r0 | DLC | DATA (8*len) | CRC[14..0] || del ACK del EOF(7) | IFS(3)
    <----------------- stuffable: 34 + 8*len bits ----------------->   <------ 10 ----->   <-3->

Extended frames put SRR IDE ID[17..0] after the base ID and r1 r0 after RTR (54 + 8*len
stuffable bits).  Lengths here include the 3-bit interframe space, as can-utils' canframelen does.
"""

from collections.abc import Sequence

CRC15_POLY = 0x4599
TRAILER_BITS = 10  # CRC delimiter, ACK slot, ACK delimiter, 7-bit EOF
IFS_BITS = 3
ERROR_FRAME_BITS = 14  # 6-bit error flag (overlapping flags of all nodes) + 8-bit delimiter
SUSPEND_BITS = 8  # extra recessive bits an error-passive transmitter waits after sending
LENGTH_CACHE = 65536  # frame lengths a cache remembers at most (bounded memory)


def field_bits(value: int, width: int) -> list[int]:
    """A field of `width` bits as sent on the wire, most significant bit first."""
    return [(value >> (width - 1 - k)) & 1 for k in range(width)]


def unstuffed_bits(can_id: int, data: bytes, extended: bool = False) -> list[int]:
    """SOF through the end of the data field of a data frame (the CRC's input)."""
    payload = [b for byte in data for b in field_bits(byte, 8)]
    if extended:
        head = [0, *field_bits(can_id >> 18, 11), 1, 1, *field_bits(can_id & 0x3FFFF, 18),
                0, 0, 0]
    else:
        head = [0, *field_bits(can_id, 11), 0, 0, 0]
    return head + field_bits(len(data), 4) + payload


def crc(bits: Sequence[int], poly: int, width: int, init: int = 0) -> int:
    """The CAN CRC register (ISO 11898-1's shift register, msb first, no reflection, no final
    XOR) of `width` bits after a bit sequence; `poly` omits the x^width term."""
    mask = (1 << width) - 1
    register = init
    for bit in bits:
        feedback = bit ^ (register >> (width - 1))
        register = (register << 1) & mask
        if feedback:
            register ^= poly
    return register


def crc15(bits: Sequence[int]) -> int:
    """CAN CRC-15 (polynomial 0x4599, initial value 0) of a bit sequence."""
    return crc(bits, CRC15_POLY, 15)


def stuff_step(bit: int, run: int, last: int, count: int) -> tuple[int, int, int]:
    """One bit through the stuffing counter (run length, last bit, stuff bits so far): a stuff
    bit after every run of 5 equal bits, which starts a run of its own (plain Python here, so
    busload imports no numba; frame_fast compiles it)."""
    if bit == last:
        run += 1
    else:
        run, last = 1, bit
    if run == 5:
        count += 1
        run, last = 1, 1 - bit
    return run, last, count


def stuff_count(bits: Sequence[int]) -> int:
    """Stuff bits a transmitter inserts: one after every run of 5 equal bits (it starts a run)."""
    run, last, count = 0, -1, 0
    for bit in bits:
        run, last, count = stuff_step(bit, run, last, count)
    return count


def stuffable_bits(can_id: int, data: bytes, extended: bool = False) -> list[int]:
    """SOF through CRC, unstuffed: the part of the frame the stuffing rule applies to."""
    head = unstuffed_bits(can_id, data, extended)
    return head + field_bits(crc15(head), 15)


def exact_frame_bits(can_id: int, data: bytes, extended: bool = False) -> int:
    """Exact length on the wire in bits, stuff bits and the 3-bit interframe space included."""
    body = stuffable_bits(can_id, data, extended)
    return len(body) + stuff_count(body) + TRAILER_BITS + IFS_BITS


def stuffable_length(length: int, extended: bool = False) -> int:
    """Bits of SOF..CRC of a frame with `length` data bytes (34 + 8n or 54 + 8n)."""
    return (54 if extended else 34) + 8 * length


def no_stuffing_bits(length: int, extended: bool = False) -> int:
    """Frame length with no stuff bits at all (the lower bound)."""
    return stuffable_length(length, extended) + TRAILER_BITS + IFS_BITS


def worst_case_bits(length: int, extended: bool = False) -> int:
    """Davis et al. (2007): g + 8n + 13 + floor((g + 8n - 1) / 4), g = 34 (standard) or 54."""
    g = stuffable_length(0, extended)
    return g + 8 * length + 13 + (g + 8 * length - 1) // 4


def stretch_6_5_bits(length: int, extended: bool = False) -> int:
    """The thesis' estimate: one stuff bit per 5 bits of SOF..CRC, whole bits (floor(g / 5))."""
    stuffable = stuffable_length(length, extended)
    return stuffable + stuffable // 5 + TRAILER_BITS + IFS_BITS
