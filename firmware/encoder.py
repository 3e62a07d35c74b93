"""Quadrature encoder unwrapping (SPEC 2.4, GuRoo boards).

The hardware x4 up/down counter is 16 bits and wraps; the firmware reads it every PWM period and
accumulates the signed 16-bit difference, which is exact while the shaft moves less than half
the counter range (32768 counts) between reads.  An index pulse latches the unwrapped position.
"""

from numba.extending import register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m


@register_jitable
def encoder_read(ram, counter: int, index: int) -> None:
    """Unwrap one counter reading; index != 0 when the index pulse fired since the last read."""
    ram[m.ENC_POS] = i32.add(ram[m.ENC_POS], i32.diff16(counter, ram[m.ENC_LAST]))
    ram[m.ENC_LAST] = counter
    if i32.ne(index, 0):
        ram[m.ENC_INDEX_POS] = ram[m.ENC_POS]
        ram[m.ENC_INDEX_COUNT] = i32.add(ram[m.ENC_INDEX_COUNT], 1)
