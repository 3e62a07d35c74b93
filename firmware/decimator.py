"""Moving-sum decimator of the 120 kHz current samples (SPEC 2.3).

A 12-sample circular buffer with a running sum: each ADC interrupt adds the new sample and
subtracts the one leaving the window, so the controller reads the sum of the last M = 2N = 12
samples (two PWM periods' worth) in O(1).  Its zeros cancel every PWM harmonic except
multiples of 6.
"""

from numba.extending import register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m


@register_jitable
def push(ram, sample: int) -> None:
    """ADC interrupt body: insert one 10-bit sample, update the running sum."""
    head = ram[m.MA_HEAD]
    oldest = ram[m.MA_BUF0 + head]
    ram[m.MA_SUM] = i32.add(i32.sub(ram[m.MA_SUM], oldest), sample)
    ram[m.MA_BUF0 + head] = sample
    head = i32.add(head, 1)
    if i32.eq(head, m.MA_LEN):
        head = 0
    ram[m.MA_HEAD] = head


@register_jitable
def fill(ram, sample: int) -> None:
    """Preload the whole window with one value (reset: the zero-current ADC reading)."""
    for k in range(m.MA_LEN):
        ram[m.MA_BUF0 + k] = sample
    ram[m.MA_SUM] = i32.mul(sample, m.MA_LEN)
    ram[m.MA_HEAD] = 0
