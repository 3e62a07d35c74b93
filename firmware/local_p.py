"""First-version local P position loop (SPEC 2.6): u = r (x_w - x) on the PWM duty at 1 kHz.

x is the mean pot reading over the last 20 PWM periods; to avoid a division the error is taken
on the 20-sample sum (x_w * 20 - sum) and the gain is folded into a Q8 constant.  No current
limit: this is the mode that overheated the real robot, kept for comparison.
"""

from numba.extending import register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m


@register_jitable
def p_sample(ram, rom, code: int) -> bool:
    """Accumulate one pot reading for the 1 kHz loop; True when a control update is due."""
    ram[m.P_SUM] = i32.add(ram[m.P_SUM], code)
    ram[m.P_COUNT] = i32.add(ram[m.P_COUNT], 1)
    return i32.eq(ram[m.P_COUNT], rom[m.P_BLOCK])


@register_jitable
def p_step(ram, rom) -> int:
    """One 1 kHz update; returns the duty in PWM counts (clamped) and restarts the block."""
    e = i32.sub(i32.mul(ram[m.XW_REF], rom[m.P_BLOCK]), ram[m.P_SUM])
    u = i32.asr(i32.mul(e, rom[m.P_GAIN_Q8]), 8)
    ram[m.P_SUM] = 0
    ram[m.P_COUNT] = 0
    return i32.clamp(u, i32.sub(0, rom[m.U_MAX]), rom[m.U_MAX])
