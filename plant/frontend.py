"""Current-sensing front end: shunt + amplifier, RC anti-alias filter, 10-bit ADC (SPEC 2.2).

supply-unipolar (as built): the shunt sits in the supply lead, so it sees the winding current
only while a drive segment connects the supply, and the amplifier gives its magnitude.  Braking
current through the low sides is invisible and the sign is lost.
winding-bipolar (the corrected design): the winding current itself, mid-scale offset, +-3 A.
The RC filter is solved exactly for the constant input of each segment.

The as-built single-supply amplifier has an input offset (SPEC 2.2 error 1, "the characteristic
does not pass through the origin"), referred to amperes through the shunt and clipped at 0 V.
Where it acts depends on where the anti-alias RC sits: on the PWM pulses (RC after the
amplifier; offset_stage "before-rc") or on the filtered signal (RC at or inside the amplifier;
"after-rc"), where a negative offset becomes a dead band of the measured mean current.
"""

import math

from numba.extending import register_jitable

from servobus.plant import hbridge
from servobus.plant import layout as p


@register_jitable
def sensed_current(params, seg_state: int, i_winding: float) -> float:
    """Current the front end sees during a segment, before the RC filter."""
    if params[p.SENSE_BIPOLAR] != 0.0:
        return i_winding
    shunt = 0.0 if seg_state == hbridge.BRAKE or seg_state == hbridge.OPEN else abs(i_winding)
    return max(shunt + params[p.OFFSET_BEFORE_RC_A], 0.0)


@register_jitable
def rc_update(state, tables, counts: int, x: float) -> None:
    """Exact first-order response to the constant input x over `counts` PCLK counts."""
    state[p.VC] = x + (state[p.VC] - x) * tables[p.TAB_RC, counts]


@register_jitable
def adc_code(params, amps: float) -> int:
    """10-bit conversion of the filtered signal plus the after-RC offset (rounding, clipped)."""
    amps_seen = amps + params[p.OFFSET_AFTER_RC_A]
    code = math.floor(params[p.ADC_ZERO_CODE] + amps_seen * params[p.ADC_CODES_PER_AMP] + 0.5)
    if code < 0:
        return 0
    top = int(params[p.ADC_MAX_CODE])
    return top if code > top else int(code)
