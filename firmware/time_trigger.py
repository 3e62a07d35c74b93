"""Time-trigger node firmware (SPEC 1.1): the 8-bit tick sequence number, mod 256."""

from servobus.firmware import int32 as i32


def next_sequence(seq: int) -> int:
    """The sequence number of the next tick."""
    return i32.bit_and(i32.add(seq, 1), 0xFF)
