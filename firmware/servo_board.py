"""The RC servo board's firmware (SPEC 5): a CAN interrupt per position change, in the DSP's
16-bit arithmetic (firmware/int16.py; the board is a TMS320F243 like the high-power ones).

SERVO_SP_1 carries servos 1..4, SERVO_SP_2 servos 5..8, one signed 16-bit word each (1 mrad per
LSB).  The receive interrupt compares each word with the one it last stored; a changed word
updates that servo's pulse width, centre + word * US_PER_RAD / 1000 us: one MPY by the Q15
constant round(0.573 * 2^15) = 18776 and SACH with a 1-bit shift (floor of the product / 2^15),
then clamped to the pulse range; each such update is counted (the 16-bit counter wraps).  A
clamped servo sets its bit in the status byte (bit i-1 for servo i), cleared when a later
set-point is in range.  Unchanged words cost nothing: the pulse generator keeps its width.
"""

from dataclasses import dataclass, field

from servobus.firmware import int16, int32

SERVOS = 8
WORDS_PER_FRAME = 4


def servo_frames(servos: int) -> int:
    """SERVO_SP frames that carry `servos` set-points: WORDS_PER_FRAME each."""
    return -(-servos // WORDS_PER_FRAME)
US_PER_RAD = 573  # assumed: 10 us of pulse per degree (the servo's scale; the plant decodes it)
Q15_US_PER_MRAD = 18776  # round(US_PER_RAD / 1000 * 2^15)
CENTER = 1500  # us at 0 rad: the usual RC neutral
PULSE_MIN, PULSE_MAX = 900, 2100  # assumed: +-600 us, +-60 deg of travel


@dataclass
class ServoBoardRam:
    """The firmware's variables: last words, pulse widths (us), update counter, status."""

    words: list[int] = field(default_factory=lambda: [0] * SERVOS)
    pulse_us: list[int] = field(default_factory=lambda: [CENTER] * SERVOS)
    updates: int = 0
    status: int = 0


def pulse_width(word: int) -> tuple[int, bool]:
    """The pulse width (us) of a set-point word (mrad) and whether it was clamped."""
    acc = int16.pac(int16.mpy(word, Q15_US_PER_MRAD), 0)
    offset = int16.sach(acc, 1)  # (acc << 1) >> 16: acc / 2^15, floored
    width = int16.add16(CENTER, offset)
    clamped = int32.clamp(width, PULSE_MIN, PULSE_MAX)
    return clamped, clamped != width


def can_setpoints(ram: ServoBoardRam, frame: int, words: list[int]) -> int:
    """The receive interrupt of SERVO_SP_<frame> (1 or 2): returns how many servos changed."""
    changed = 0
    for i, raw in enumerate(words):
        k = (frame - 1) * WORDS_PER_FRAME + i
        word = int16.wrap16(raw)
        if word == ram.words[k]:
            continue
        ram.words[k] = word
        ram.pulse_us[k], clamped = pulse_width(word)
        bit = 1 << k
        ram.status = int32.bit_or(ram.status, bit) if clamped else int32.bit_and(
            ram.status, 0xFF ^ bit)
        ram.updates = int16.u16(int16.add16(ram.updates, 1))
        changed += 1
    return changed
