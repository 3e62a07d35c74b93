"""Potentiometer position: 20 kHz samples, block mean of 80 -> one value per 4 ms (SPEC 2.4).

The block mean is rounded to nearest with the one division in the position path (a software
divide once per 4 ms; the LPC2119 has no divide instruction).
"""

from numba.extending import register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m


@register_jitable
def pot_sample(ram, rom, code: int) -> None:
    """Accumulate one 10-bit pot reading; publish the rounded mean when the block is full.

    Until the first block completes after reset, the position is the first raw reading (the boot
    conversion), so a tick right after power-on reports a real position, not zero.
    """
    if i32.eq(ram[m.POS_SEQ], 0) and i32.eq(ram[m.POS_COUNT], 0):
        ram[m.POS_OUT] = code
    ram[m.POS_SUM] = i32.add(ram[m.POS_SUM], code)
    count = i32.add(ram[m.POS_COUNT], 1)
    if i32.eq(count, rom[m.POS_BLOCK]):
        half = i32.asr(rom[m.POS_BLOCK], 1)
        ram[m.POS_OUT] = i32.div_trunc(i32.add(ram[m.POS_SUM], half), rom[m.POS_BLOCK])
        ram[m.POS_SEQ] = i32.add(ram[m.POS_SEQ], 1)
        ram[m.POS_SUM] = 0
        count = 0
    ram[m.POS_COUNT] = count
