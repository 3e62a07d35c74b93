"""H-bridge and PWM peripheral: the switching segments inside one PWM period (SPEC 2.5).

Four gate signals with a dead time that delays every switch-on.  The firmware commands a signed
duty (high side of one leg on for |duty| counts) and either PWM or float.  Edge-aligned:

      0    dead       |duty|   +dead                     TOP
      |open| drive     |open|  brake (both low sides on)  |

Centre-aligned puts the high-side command in the middle: brake | open | drive | open | brake.
With a coreless (resistive) winding an open segment carries no current (|back-EMF| < V assumed).
"""

from numba.extending import register_jitable

from servobus.plant import layout as p

DRIVE_POS = 0
DRIVE_NEG = 1
BRAKE = 2
OPEN = 3  # float command or dead time: all switches of the path off
AVERAGED = 4  # duty-averaged voltage (linear design view)
MAX_SEGMENTS = 5


@register_jitable
def _append(ends, states, n: int, end: int, state: int) -> int:
    """Append a segment ending at `end` unless it would be empty."""
    start = ends[n - 1] if n > 0 else 0
    if end <= start:
        return n
    ends[n] = end
    states[n] = state
    return n + 1


@register_jitable
def segments(duty: int, floating: bool, top: int, dead: int, centre: bool, averaged: bool,
             ends, states) -> int:
    """``build_segments`` on the parameters as scalars: fill ends/states, return the count.
    ``bank_kernel._board`` writes this layout out in straight-line code: a change here is a
    change there (tests/plant/test_lean_kernel_unrolled.py compares the two)."""
    if averaged:
        return _append(ends, states, 0, top, AVERAGED)
    if floating:
        return _append(ends, states, 0, top, OPEN)
    mag = abs(duty)
    if mag == 0:
        return _append(ends, states, 0, top, BRAKE)
    drive = DRIVE_POS if duty > 0 else DRIVE_NEG
    if mag >= top:
        return _append(ends, states, 0, top, drive)
    a = (top - mag) // 2 if centre else 0
    b = a + mag
    n = _append(ends, states, 0, a, BRAKE)
    if b > a + dead:
        n = _append(ends, states, n, a + dead, OPEN)
        n = _append(ends, states, n, b, drive)
    n = _append(ends, states, n, min(b + dead, top), OPEN)
    return _append(ends, states, n, top, BRAKE)


@register_jitable
def build_segments(duty: int, floating: bool, params, ends, states) -> int:
    """Fill ends/states with this period's segments (end times in PCLK counts); return count."""
    return segments(duty, floating, int(params[p.PWM_TOP]), int(params[p.DEAD_COUNTS]),
                    params[p.CENTRE_ALIGNED] != 0.0, params[p.AVERAGED] != 0.0, ends, states)


@register_jitable
def winding_voltage(state: int, duty: int, params) -> float:
    """Voltage across the winding in a segment (0 for brake; open segments carry no current)."""
    if state == DRIVE_POS:
        return params[p.V_SUPPLY]
    if state == DRIVE_NEG:
        return -params[p.V_SUPPLY]
    if state == AVERAGED:
        return params[p.V_SUPPLY] * duty / params[p.PWM_TOP]
    return 0.0
