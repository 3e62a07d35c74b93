"""The board's local position loop on the PWM duty: u = K_x (x_w - x) - K_v v, the servo
preset's law (SPEJBL's first version, SPEC 2.6: K_x = 15/pi duty per rad, K_v = 0, at 1 kHz; the
AX-12's state feedback, SPEC 6.1, K_v from its K_omega; the SG90's P at every PWM period).

x is the mean pot reading over the block's P_BLOCK PWM periods; to avoid a division the error is
taken on the block's sum (x_w * P_BLOCK - sum) and the gains are folded into Q8 constants.  The
speed v is the change of that sum since the previous block (none after a reset or mode switch:
P_PREV = -1, the sum of non-negative pot codes never is).  No current limit: the mode that
overheated SPEJBL, kept for comparison, and the position servos' own loop.
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
    """One loop update; returns the duty in PWM counts (clamped) and restarts the block."""
    e = i32.sub(i32.mul(ram[m.XW_REF], rom[m.P_BLOCK]), ram[m.P_SUM])
    fall = 0 if i32.lt(ram[m.P_PREV], 0) else i32.sub(ram[m.P_PREV], ram[m.P_SUM])
    u = i32.asr(i32.add(i32.mul(e, rom[m.P_GAIN_Q8]), i32.mul(fall, rom[m.P_VEL_Q8])), 8)
    ram[m.P_PREV] = ram[m.P_SUM]
    ram[m.P_SUM] = 0
    ram[m.P_COUNT] = 0
    return i32.clamp(u, i32.sub(0, rom[m.U_MAX]), rom[m.U_MAX])
