"""Time-trigger node firmware (SPEC 1.1): the 8-bit tick sequence number, mod 256."""

from servobus.firmware import int32 as i32


def tick_sequence(k: int) -> int:
    """The sequence number tick k carries (k mod 256): a skipped tick keeps its number."""
    return i32.bit_and(k, 0xFF)
