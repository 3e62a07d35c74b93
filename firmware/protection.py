"""Over-current and over-temperature trips (SPEC 2.5): latch a status bit and float the bridge.

Over-current compares the decimated current magnitude against a limit for a number of
consecutive PWM periods (a single RC-filtered spike does not trip); over-temperature compares the
board thermometer.  Trips stay latched until ``clear_faults``: a burned board is worse than a
stopped joint.
"""

from numba.extending import register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m


@register_jitable
def check(ram, rom, meas: int, temp_code: int) -> bool:
    """Update the trip state from this period's current and temperature; True when tripped."""
    magnitude = meas if i32.ge(meas, 0) else i32.sub(0, meas)
    if i32.gt(magnitude, rom[m.OC_LIMIT]):
        ram[m.OC_COUNT] = i32.add(ram[m.OC_COUNT], 1)
        if i32.ge(ram[m.OC_COUNT], rom[m.OC_PERIODS]):
            ram[m.STATUS] = i32.bit_or(ram[m.STATUS], m.STATUS_OVER_CURRENT)
    else:
        ram[m.OC_COUNT] = 0
    ram[m.TEMP_RAW] = temp_code
    if i32.gt(temp_code, rom[m.OT_LIMIT]):
        ram[m.STATUS] = i32.bit_or(ram[m.STATUS], m.STATUS_OVER_TEMPERATURE)
    return i32.ne(ram[m.STATUS], 0)


@register_jitable
def clear_faults(ram) -> None:
    """Operator reset of the latched trips."""
    ram[m.STATUS] = 0
    ram[m.OC_COUNT] = 0
