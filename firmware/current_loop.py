"""PI current controller with hard anti-windup, 20 kHz (SPEC 2.3).

    R1(z) = K (z - n) / (z - 1) = K + K (1 - n) / (z - 1)

P = K_P * e and the integrator I are Q15 PWM counts.  Hard anti-windup keeps I inside
[lo - P, hi - P] so P + I never leaves the PWM range; the output is (P + I) >> 15.  The
integrator is updated with the present error after the output, which gives the strictly
proper K (1 - n) / (z - 1) branch.  Two multiplies, one shift, a few additions: as on the MCU.
"""

from numba.extending import register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m


@register_jitable
def measured_current(ram, rom) -> int:
    """Signed current in moving-sum counts as the controller sees it.

    With the as-built supply-unipolar front end the magnitude gets the sign of the duty that was
    applied while the newest samples were taken: wrong during RC transients and regeneration,
    which is the flaw the SPEC asks us to keep.
    """
    s = i32.sub(ram[m.MA_SUM], rom[m.ADC_ZERO_SUM])
    if i32.eq(rom[m.SIGNED_SENSE], 0) and i32.lt(ram[m.PWM_PREV], 0):
        s = i32.sub(0, s)
    return s


@register_jitable
def set_reference(ram, rom, iw_q12: int) -> None:
    """Take a new reference: clamp |i_w| <= i_max, convert Q12 A to moving-sum counts.

    Done once per reference change (4 ms), not per PI step, so the PI keeps its two multiplies.
    """
    iw = i32.clamp(iw_q12, i32.sub(0, rom[m.IW_MAX]), rom[m.IW_MAX])
    ram[m.IW_REF] = iw
    ram[m.IW_COUNTS] = i32.asr(i32.mul(iw, rom[m.IREF_TO_SUM_Q15]), 15)


@register_jitable
def pi_step(ram, rom, meas: int) -> int:
    """One controller update from the measured current; returns the duty in PWM counts."""
    e = i32.sub(ram[m.IW_COUNTS], meas)
    p = i32.mul(rom[m.K_P], e)
    hi = rom[m.U_MAX_Q15]
    lo = i32.sub(0, hi)
    lo_i, _ = i32.sat_sub(lo, p)
    hi_i, _ = i32.sat_sub(hi, p)
    integ = i32.clamp(ram[m.PI_INTEG], lo_i, hi_i)
    out, _ = i32.sat_add(p, integ)
    integ, _ = i32.sat_add(integ, i32.mul(rom[m.K_I], e))
    ram[m.PI_INTEG] = integ
    return i32.asr(out, 15)
