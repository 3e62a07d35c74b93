"""``LoadMeter.charge`` compiled for a batch of frames (the compiled period engine's frames).

The same integer arithmetic and the same float operations in the same order as the Python
method, on the meter's state handed over as arrays: ``ints`` = [first, last, overlapping,
frames, bits, busy_ns, done, lo, hi, window_ns, open windows], ``floats`` = [closed sum,
closed max], the open windows as sorted ``keys`` / ``values``.  Every window closed is written
to ``gaps`` as (empty windows before it, load %) for a meter that keeps its window list.
The meter must have charged a frame before (first, last and hi known).
"""

import numba
from numba.extending import register_jitable

I_FIRST, I_LAST, I_OVERLAP, I_FRAMES, I_BITS, I_BUSY, I_DONE, I_LO, I_HI, I_WINDOW, I_OPEN = \
    range(11)
F_SUM, F_MAX = range(2)
MAX_OPEN = 64  # open windows at once (a time-ordered stream has one or two)


@register_jitable
def _close_below(limit, ints, floats, keys, values, gaps, n_gaps):
    """``LoadMeter._close(_gaps(limit))``; returns the gaps written so far."""
    at = ints[I_DONE]
    window = ints[I_WINDOW]
    kept = 0
    for q in range(ints[I_OPEN]):
        k = keys[q]
        if k < limit:
            pct = 100.0 * values[q] / window
            gaps[n_gaps, 0], gaps[n_gaps, 1] = k - at, pct
            n_gaps += 1
            at = k + 1
        else:
            keys[kept], values[kept] = k, values[q]
            kept += 1
    if limit > at:
        gaps[n_gaps, 0], gaps[n_gaps, 1] = limit - at - 1, 0.0
        n_gaps += 1
    ints[I_OPEN] = kept
    return n_gaps


def charge_frames(starts, ends, bits, ints, floats, keys, values, gaps):
    """Charge frames i (wire busy over [starts[i], ends[i]) with bits[i]) in order; returns the
    number of closed windows written to `gaps` (their sum and maximum are folded in)."""
    n_gaps = 0
    w = ints[I_WINDOW]
    origin = ints[I_FIRST]
    for i in range(starts.shape[0]):
        start, end = starts[i], ends[i]
        previous = ints[I_LAST]
        if start < previous:
            ints[I_OVERLAP] += 1
            start = min(previous, end)
        ints[I_LAST] = max(previous, end)
        ints[I_FRAMES] += 1
        ints[I_BITS] += bits[i]
        if (previous - origin) // w > ints[I_DONE]:
            first_gap = n_gaps
            n_gaps = _close_below((previous - origin) // w, ints, floats, keys, values, gaps,
                                  n_gaps)
            for g in range(first_gap, n_gaps):
                ints[I_DONE] += int(gaps[g, 0]) + 1
                floats[F_SUM] += gaps[g, 1]
                if gaps[g, 1] > floats[F_MAX]:
                    floats[F_MAX] = gaps[g, 1]
        k = (start - origin) // w
        while True:
            hi = min(end, origin + (k + 1) * w)
            busy = hi - max(start, origin + k * w)
            ints[I_BUSY] += busy
            ints[I_LO] = min(ints[I_LO], k)
            ints[I_HI] = max(ints[I_HI], k)
            if k >= ints[I_DONE]:
                q = ints[I_OPEN] - 1
                while q >= 0 and keys[q] > k:
                    q -= 1
                if q >= 0 and keys[q] == k:
                    values[q] += busy
                else:
                    if ints[I_OPEN] == MAX_OPEN:
                        raise ValueError("too many open load windows")
                    for r in range(ints[I_OPEN], q + 1, -1):
                        keys[r], values[r] = keys[r - 1], values[r - 1]
                    keys[q + 1], values[q + 1] = k, busy
                    ints[I_OPEN] += 1
            if hi >= end:
                break
            k += 1
    return n_gaps


charge_frames_c = numba.njit(cache=True)(charge_frames)  # inlines this file only
