"""Boards driven tick by tick in one compiled call: the per-tick Python path, compiled.

Per CAN tick t the Python path (``BoardRig.command_current`` then ``BoardRig.run(periods,
record=False)``) runs ``board.can_actuation`` with the tick's Q12 reference, ``board.can_tick``,
then the board's PWM periods of that tick.  ``drive_lean`` does the same for every board of a
bank (rows of the 2-D arrays, reference ``refs[t, b]``) on the lean kernel
(``bank_kernel.run_bank_checked``, which falls back to the reference kernel for a board with
a zero divisor), every tick in ONE numba call: numba's dispatch (~2 us per call, ~25 ns of
each of a tick's 80 periods) and the interpreted handlers are paid once per call, not per tick.
``drive_today`` is the same loop on the issue-time kernel (``rig.run_bank``), for the benchmark
only (its fair comparison: both kernels measured the same way).  The lean kernel is inlined
(``run_bank_checked``): calling ``run_bank_lean_fast`` instead would link its cached code (a
cold compile of ~2 s instead of ~19) but ran 4-5 % slower per period (minimums, one process,
alternating).  Results are the Python path's bit for bit (tests/plant/test_board_drive.py).
"""

import numpy as np
from numba.extending import register_jitable

from servobus.firmware import board
from servobus.plant.bank_kernel import run_bank_checked
from servobus.plant.kernel_cache import cached_njit
from servobus.plant.rig import N_TF, N_TI, run_bank_fast


@register_jitable(inline="always")
def _handlers(rams, roms, refs, t):
    """Tick t's CAN handlers on every board: the actuation (reference refs[t, b]), the tick."""
    for b in range(rams.shape[0]):
        board.can_actuation(rams[b], refs[t, b])
        board.can_tick(rams[b], roms[b])


@register_jitable
def drive_lean_bank(rams, roms, params, states, istates, tables, refs, periods_per_tick):
    """refs.shape[0] ticks: each tick's handlers, then periods_per_tick periods of every board
    on the lean kernel."""
    counts = np.full(rams.shape[0], periods_per_tick, dtype=np.int64)
    for t in range(refs.shape[0]):
        _handlers(rams, roms, refs, t)
        run_bank_checked(rams, roms, params, states, istates, tables, counts)


@register_jitable
def drive_today_bank(rams, roms, params, states, istates, tables, refs, periods_per_tick):
    """``drive_lean_bank`` on the issue-time kernel (``rig.run_bank_fast``, called, not
    inlined: its cached code is linked, ~2 s of a cold compile instead of ~7)."""
    counts = np.full(rams.shape[0], periods_per_tick, dtype=np.int64)
    trace_i = np.zeros((1, N_TI), dtype=np.int64)
    trace_f = np.zeros((1, N_TF))
    for t in range(refs.shape[0]):
        _handlers(rams, roms, refs, t)
        run_bank_fast(rams, roms, params, states, istates, tables, counts, trace_i, trace_f)


drive_lean = cached_njit(drive_lean_bank)
drive_today = cached_njit(drive_today_bank)


def as_bank(*arrays: np.ndarray) -> list[np.ndarray]:
    """One board's 1-D arrays as one-row 2-D views (the drivers' bank form; writes go through)."""
    return [a[np.newaxis, :] for a in arrays]
