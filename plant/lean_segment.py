"""One switching segment of the lean kernel's period, inlined once per piece of the period.

``bank_kernel._board`` walks a period's pieces in straight-line code (brake, open, drive, open,
brake, each skipped when empty, as ``hbridge.segments`` builds them) and inlines ``piece`` at
each: in those the piece's kind is a constant, so the compiler folds whether the bridge
conducts, whether the shunt senses it, and which per-state constants (locals, not an array)
apply (a period of one piece, floating, at zero or full duty or averaged, picks them at run
time).  The arithmetic is the reference's (``motor.advance``, ``frontend.sensed_current``, the
RC filter to each ADC instant), in the same order.  ``piece`` is inlined by numba's untyped
inliner (``njit(inline='always')``): the typed one (``register_jitable(inline='always')``)
gives the same code but warns at every compile (NumbaIRAssumptionWarning on its phi variables).
"""

from typing import Any

import numba
import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic, register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m

# a piece's kind: conducting and sensed (drive, averaged), conducting unsensed (brake), open
DRIVE, BRAKE, OPEN = range(3)
START = 9  # where a piece's locals tuple holds its start (its end once the piece ran)


def _data(typingctx, arr):
    """A C-contiguous array's data as a pointer: a piece indexes its tables and RAM through
    pointers, which numba does not reference-count (arrays passed into each of a period's
    inlined pieces cost an increment and a decrement of their counts per piece)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        raise TypingError(f"lean_segment.data needs a C-contiguous array, got {arr}")

    def codegen(context, builder, signature, args):
        return context.make_array(arr)(context, builder, args[0]).data

    return types.CPointer(arr.dtype)(arr), codegen


data: Any = intrinsic(_data)  # typed as Any: the compiled call passes no typing context


@register_jitable
def _u(index):
    """An index known to be >= 0 as unsigned: numba then skips its negative-index wraparound."""
    return np.uint64(index)


@register_jitable
def adc_push(ram, head, total, vc, zero, cpa, off_after, max_code):
    """One ADC conversion of the filtered signal into the decimator (locals head, total)."""
    amps_seen = vc + off_after
    code = int(zero + amps_seen * cpa + 0.5)  # floor, as clamped (bank_kernel's docstring)
    if code < 0:
        code = 0
    elif code > max_code:
        code = max_code
    oldest = ram[_u(m.MA_BUF0 + head)]
    total = i32.add(i32.sub(total, oldest), code)
    ram[_u(m.MA_BUF0 + head)] = code
    head += 1  # head stays in [0, MA_LEN): i32.add's wrap is the identity
    if head == m.MA_LEN:
        head = 0
    return head, total


@register_jitable
def state_constants(v, conducting, kt, r, load, fc, jr):
    """motor.advance's terms that depend on the bridge state only: the voltage, the current at
    rest, the net torque, whether friction holds the shaft at rest, and the end speeds with the
    friction of forward and backward motion; open: no current (v = 0)."""
    net = (kt * v / r if conducting else 0.0) - load
    return (v, v / r if conducting else 0.0, net, abs(net) <= fc, (net - fc) / jr,
            (net - -fc) / jr)


@numba.njit(inline='always')
def piece(kind, end, st, cs, ks, rate, tab_w, tab_dt, tab_rc, ram):
    """The segment [start, end) of `kind` with its state's constants `cs`: the shaft, the
    sensed current, the RC filter through the ADC instants in it; the updated locals `st`."""
    omega, theta, vc, head, total, adc_j, target, i_sum, i2_sum, start = st
    t = start  # the RC filter's time: each piece starts where the last one ended
    v, v_over_r, net, stuck, w_fwd, w_back = cs
    locked, bipolar, x_idle, off_before, kt, r, n_adc, step, zero, cpa, off_after, max_code = ks
    counts = end - start
    w0 = omega
    at_rest = not (w0 > 0.0 or w0 < 0.0)
    if locked or (at_rest and stuck):
        i = v_over_r
    else:
        if w0 > 0.0 or (at_rest and net > 0.0):
            w_end, w_turn = w_fwd, w_back
        else:
            w_end, w_turn = w_back, w_fwd
        decay = tab_w[_u(counts)]
        dt = tab_dt[_u(counts)]
        w1 = w_end + (w0 - w_end) * decay
        dtheta = w_end * dt + (w0 - w_end) * (1.0 - decay) / rate
        if w0 != 0.0 and (w1 > 0.0) != (w0 > 0.0):
            if stuck:
                w1 = 0.0
            else:  # the shaft turns over: the friction of the new direction
                w_end = w_turn
                w1 = w_end + (w0 - w_end) * decay
                dtheta = w_end * dt + (w0 - w_end) * (1.0 - decay) / rate
        omega = w1
        theta += dtheta
        i = (v - kt * dtheta / dt) / r if kind != OPEN else 0.0
    x = x_idle
    if bipolar:
        x = i
    elif kind == DRIVE:
        x = max(abs(i) + off_before, 0.0)
    i_sum += i * counts
    i2_sum += i * i * counts
    while adc_j < n_adc and target <= end:  # the filter to each ADC instant
        if t < target:
            vc = x + (vc - x) * tab_rc[_u(target - t)]
            t = target
        head, total = adc_push(ram, head, total, vc, zero, cpa, off_after, max_code)
        adc_j += 1
        target += step
    if t < end:
        vc = x + (vc - x) * tab_rc[_u(end - t)]
        t = end
    return omega, theta, vc, head, total, adc_j, target, i_sum, i2_sum, end
