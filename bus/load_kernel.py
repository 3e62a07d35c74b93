"""``LoadMeter.charge`` compiled for a batch of frames (the compiled period engine's frames).

The same integer arithmetic and the same float operations in the same order as the Python
method, on the meter's state handed over as arrays: ``ints`` = [first, last, overlapping,
frames, bits, busy_ns, done, lo, hi, window_ns, open windows], ``floats`` = [closed sum,
closed max], the open windows as sorted ``keys`` / ``values``.  Every window closed is written
to ``gaps`` as (empty windows before it, load %) for a meter that keeps its window list.
The meter must have charged a frame before (first, last and hi known).  The state is kept in
locals during the loop and a frame's windows are found from the latest end's window (a
division only when a frame leaves it): the same integers as dividing per frame.
"""

from numba.extending import register_jitable

from servobus.bus.numba_cache import njit_cached

I_FIRST, I_LAST, I_OVERLAP, I_FRAMES, I_BITS, I_BUSY, I_DONE, I_LO, I_HI, I_WINDOW, I_OPEN = \
    range(11)
F_SUM, F_MAX = range(2)
MAX_OPEN = 64  # open windows at once (a time-ordered stream has one or two)


@register_jitable
def _close_below(limit, done, window, n_open, keys, values, gaps, n_gaps):
    """``LoadMeter._gaps(limit)`` written to gaps (ValueError when they do not fit) and the
    open windows below `limit` dropped; returns the gaps written so far and the open count."""
    at = done
    kept = 0
    for q in range(n_open):
        k = keys[q]
        if k < limit:
            if n_gaps >= gaps.shape[0]:
                raise ValueError("charge_frames: too few window rows")
            gaps[n_gaps, 0], gaps[n_gaps, 1] = k - at, 100.0 * values[q] / window
            n_gaps += 1
            at = k + 1
        else:
            keys[kept], values[kept] = k, values[q]
            kept += 1
    if limit > at:
        if n_gaps >= gaps.shape[0]:
            raise ValueError("charge_frames: too few window rows")
        gaps[n_gaps, 0], gaps[n_gaps, 1] = limit - at - 1, 0.0
        n_gaps += 1
    return n_gaps, kept


def charge_frames(starts, ends, bits, extra, ints, floats, keys, values, gaps):
    """Charge frames i (wire busy over [starts[i], ends[i]) with bits[i] + extra) in order;
    returns the number of closed windows written to `gaps` (their sum and maximum are folded
    in).  The columns may be strided views (a frame table's columns)."""
    n_gaps = 0
    w = ints[I_WINDOW]
    origin = ints[I_FIRST]
    last, overlap, count, total_bits = ints[I_LAST], ints[I_OVERLAP], ints[I_FRAMES], ints[I_BITS]
    busy_ns, done, lo, hi, n_open = ints[I_BUSY], ints[I_DONE], ints[I_LO], ints[I_HI], \
        ints[I_OPEN]
    total, top = floats[F_SUM], floats[F_MAX]
    last_k = (last - origin) // w  # the window of `last`: [edge - w, edge)
    edge = origin + (last_k + 1) * w
    for i in range(starts.shape[0]):
        start, end = starts[i], ends[i]
        previous, prev_k, prev_edge = last, last_k, edge
        if start < previous:
            overlap += 1
            start = min(previous, end)
        if end > last:
            last = end
            if last >= edge:
                last_k = (last - origin) // w
                edge = origin + (last_k + 1) * w
        count += 1
        total_bits += bits[i] + extra
        if prev_k > done:  # no more busy time before the previous end's window
            first_gap = n_gaps
            n_gaps, n_open = _close_below(prev_k, done, w, n_open, keys, values, gaps, n_gaps)
            for g in range(first_gap, n_gaps):
                done += int(gaps[g, 0]) + 1
                total += gaps[g, 1]
                if gaps[g, 1] > top:
                    top = gaps[g, 1]
        if prev_edge - w <= start < prev_edge:
            k = prev_k
        elif prev_edge <= start < prev_edge + w:
            k = prev_k + 1
        else:
            k = (start - origin) // w
        while True:
            k_end = origin + (k + 1) * w
            h = min(end, k_end)
            busy = h - max(start, k_end - w)
            busy_ns += busy
            lo = min(lo, k)
            hi = max(hi, k)
            if k >= done:  # a closed window is only ever charged 0 ns
                q = n_open - 1
                while q >= 0 and keys[q] > k:
                    q -= 1
                if q >= 0 and keys[q] == k:
                    values[q] += busy
                else:
                    if n_open == MAX_OPEN:
                        raise ValueError("too many open load windows")
                    for r in range(n_open, q + 1, -1):
                        keys[r], values[r] = keys[r - 1], values[r - 1]
                    keys[q + 1], values[q + 1] = k, busy
                    n_open += 1
            if h >= end:
                break
            k += 1
    ints[I_LAST], ints[I_OVERLAP], ints[I_FRAMES], ints[I_BITS] = last, overlap, count, total_bits
    ints[I_BUSY], ints[I_DONE], ints[I_LO], ints[I_HI], ints[I_OPEN] = busy_ns, done, lo, hi, \
        n_open
    floats[F_SUM], floats[F_MAX] = total, top
    return n_gaps


charge_frames_c = njit_cached(charge_frames)  # inlines this file only
