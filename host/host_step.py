"""The host's per-period arithmetic compiled: the PID bank step, its reset, trajectory playback.

Plain functions on float64 arrays, bit-identical to the numpy reference (``PidBankNumpy``,
``PlayerNumpy``); each is a numba ``register_jitable`` (callable from a compiled period engine's
own numba code; ``pid_step`` and ``trajectory_position`` inlined there, as a call passes every
array's fields) with a ``cached_njit`` wrapper for Python callers (``*_c``):

    pid_step(r_p, r_i, r_d, i_max, mode, a_aw, integ, e_prev, reference, measured, out,
             saturated) -> None
        one update of n PIDs; r_p, r_i, r_d, integ, e_prev, reference, measured, out: float64[n];
        saturated: bool[n]; i_max, a_aw: float; mode: int, the index of the anti-windup variant
        in ``pid.ANTI_WINDUP`` (0 soft, 1 hard, 2 conditional, 3 dynamic).  Writes the limited
        currents to `out` and the limit flags to `saturated`; updates integ and e_prev in place.
    pid_reset(mask, integ, e_prev) -> None
        forget the masked joints (mask: bool[n]): integ := 0, e_prev := NaN (no derivative kick).
    trajectory_position(poses, starts, durations, period_s, t, out) -> int
        the pose at playback time t (s, finite): poses float64[m, j], durations float64[m],
        starts float64[m + 1] (0 and numpy's cumsum of the durations), period_s the trajectory's
        ``period_s`` (numpy's pairwise sum: pass it in, a loop sum can differ in the last bit).
        Writes the interpolated pose to `out` (float64[j]), returns the line index; IndexError
        where numpy's indexing raised it (a time outside `starts`: NaN, or the last-bit gap
        between the two sums).

numpy's clip is copied as numpy 2 computes it, signed zeros and NaN included: with scalar bounds
``min(max(x, lo), hi)`` where max/min keep x on a tie; with array bounds they keep the bound on a
tie.  The equality tests compare against numpy itself, so a numpy that changes this fails them.
"""

from pathlib import Path

import numpy as np
from numba.extending import register_jitable

from servobus.host.pid import ANTI_WINDUP
from servobus.plant.kernel_cache import cached_njit

HOST_SOURCES = (Path(__file__).parent,)
# the anti-windup variants' codes: their positions in pid.ANTI_WINDUP (PidBank passes them)
SOFT, HARD, CONDITIONAL, DYNAMIC = (ANTI_WINDUP.index(v)
                                    for v in ("soft", "hard", "conditional", "dynamic"))


@register_jitable
def _clip_scalar_bounds(x: float, lo: float, hi: float) -> float:
    """np.clip(x, lo, hi) with scalar lo and hi: a tie (0.0 vs -0.0) keeps x."""
    if not (x != x or x >= lo):
        x = lo
    if not (x != x or x <= hi):
        x = hi
    return x


@register_jitable
def _clip_array_bounds(x: float, lo: float, hi: float) -> float:
    """np.clip(x, lo, hi) with array lo and hi: a tie (0.0 vs -0.0) takes the bound."""
    if not (x != x or x > lo):
        x = lo
    if not (x != x or x < hi):
        x = hi
    return x


@register_jitable
def _sign(x: float) -> float:
    """np.sign: -1, 0 or 1, NaN for NaN."""
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    if x == 0.0:
        return 0.0
    return np.nan


@register_jitable(inline="always")
def pid_step(r_p: np.ndarray, r_i: np.ndarray, r_d: np.ndarray, i_max: float, mode: int,
             a_aw: float, integ: np.ndarray, e_prev: np.ndarray, reference: np.ndarray,
             measured: np.ndarray, out: np.ndarray, saturated: np.ndarray) -> None:
    """One PID update of every joint, in place (see the module docstring)."""
    keep = 1.0 - a_aw
    for j in range(integ.shape[0]):
        e = reference[j] - measured[j]
        prev = e if np.isnan(e_prev[j]) else e_prev[j]
        pd = r_p[j] * e + r_d[j] * (e - prev)
        acc = integ[j]
        if mode == HARD:
            acc = _clip_array_bounds(acc, -i_max - pd, i_max - pd)
        u = pd + acc
        u_sat = _clip_scalar_bounds(u, -i_max, i_max)
        sat = u != u_sat
        step = r_i[j] * e
        if mode == SOFT:
            nxt = _clip_scalar_bounds(acc + step, -i_max, i_max)
        elif mode == CONDITIONAL:
            nxt = acc if sat and _sign(e) == _sign(u) else acc + step
        elif mode == DYNAMIC:
            nxt = acc + step + keep * (u_sat - u)
        else:
            nxt = acc + step
        integ[j] = nxt
        e_prev[j] = e
        out[j] = u_sat
        saturated[j] = sat


@register_jitable
def pid_reset(mask: np.ndarray, integ: np.ndarray, e_prev: np.ndarray) -> None:
    """Forget the masked joints: no integral, and no derivative kick on their next sample."""
    for j in range(integ.shape[0]):
        if mask[j]:
            integ[j] = 0.0
            e_prev[j] = np.nan


@register_jitable(inline="always")
def trajectory_position(poses: np.ndarray, starts: np.ndarray, durations: np.ndarray,
                        period_s: float, t: float, out: np.ndarray) -> int:
    """The interpolated pose at playback time t (wrapping), into `out`; returns the line."""
    phase = t % period_s
    k = int(np.searchsorted(starts, phase, side="right")) - 1
    if not 0 <= k < durations.shape[0]:  # numpy indexing raises here too (NaN time)
        raise IndexError("playback time outside the trajectory")
    frac = (phase - starts[k]) / durations[k]
    nxt = (k + 1) % poses.shape[0]
    for j in range(poses.shape[1]):
        out[j] = poses[k, j] + frac * (poses[nxt, j] - poses[k, j])
    return k


pid_step_c = cached_njit(pid_step, sources=HOST_SOURCES)
pid_reset_c = cached_njit(pid_reset, sources=HOST_SOURCES)
trajectory_position_c = cached_njit(trajectory_position, sources=HOST_SOURCES)
HOST_STEP = (pid_step_c, pid_reset_c, trajectory_position_c)  # the compiled host step
