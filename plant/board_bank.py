"""Many boards advanced together in one compiled call (one per joint: SPEJBL has 12).

Each board keeps its own PWM clock: period k of board b starts at phase[b] + k T, with a seeded
phase in [0, T) (the inner loops are asynchronous to the ticks, SPEC 1.1), less a boot time:
the boards are powered and measuring (one full pot block) before the first tick at t = 0.
``advance_to(t)`` runs every board through the periods that start before t, so a CAN interrupt
at t is handled at the next PWM boundary: at most one inner-loop period late, as on the boards.

On a real bus (``follow``) the bank's time is wall time less an offset: the boards idle, booted,
until their first tick (the gap before it is not simulated), and a catch-up never runs more than
a given span (one tick period): a longer gap (a descheduled process) is skipped, not simulated
late, so the boards answer the next tick on time.  ``skipped_ns`` counts the time not simulated.
"""

import random
from collections.abc import Sequence

import numpy as np
from numba.extending import register_jitable

from servobus.plant.bank_kernel import run_bank_lean_fast
from servobus.plant.build import PlantOptions
from servobus.plant.kernel_cache import cached_njit
from servobus.plant.rig import N_TF, N_TI, BoardRig, run_bank
from servobus.presets.servos import HSR_5995TG, ServoPreset


@register_jitable
def due_counts(phase, done, t, period, counts):
    """Each board's PWM periods that start before t and are not run yet (period k of board b
    starts at phase[b] + k period), into counts; whether any is due."""
    due_any = False
    for b in range(phase.shape[0]):
        c = -((phase[b] - t) // period) - done[b]  # ceil((t - phase) / T) - done
        counts[b] = c if c > 0 else 0
        due_any = due_any or c > 0
    return due_any


due_counts_c = cached_njit(due_counts)


class BoardBank:
    """Stacked firmware and plant arrays of n boards, advanced by one numba call (the lean
    kernel; ``fast=False``: today's kernel interpreted, the reference path)."""

    def __init__(self, options: Sequence[PlantOptions], modes: Sequence[int], seed: int = 0,
                 fast: bool = True, boot_ns: int = 4_000_000,
                 max_step_ns: int | None = None,
                 servos: Sequence[ServoPreset] | None = None) -> None:
        servos = servos if servos is not None else [HSR_5995TG] * len(options)
        rigs = [BoardRig(servo=s, options=o, mode=mode)
                for s, o, mode in zip(servos, options, modes, strict=True)]
        self.rigs = rigs
        self.hw = rigs[0].hw
        self.period_ns = 1_000_000_000 // self.hw.pwm_hz
        self.rams = np.stack([r.ram for r in rigs])
        self.roms = np.stack([r.rom for r in rigs])
        self.params = np.stack([r.params for r in rigs])
        self.states = np.stack([r.state for r in rigs])
        self.istates = np.stack([r.istate for r in rigs])
        self.tables = np.stack([r.tables for r in rigs])
        for k, rig in enumerate(rigs):  # the rigs now work on views of the bank's rows
            rig.ram, rig.rom, rig.params = self.rams[k], self.roms[k], self.params[k]
            rig.state, rig.istate, rig.tables = self.states[k], self.istates[k], self.tables[k]
        rng = random.Random(seed)
        self.phase_ns = np.array([rng.randrange(self.period_ns) - boot_ns for _ in rigs],
                                 dtype=np.int64)
        self.done = np.zeros(len(rigs), dtype=np.int64)
        self._counts = np.zeros(len(rigs), dtype=np.int64)
        self.fast = fast
        self._ti = np.zeros((1, N_TI), dtype=np.int64)
        self._tf = np.zeros((1, N_TF))
        self._last_t = -1
        self.wall_offset_ns: int | None = None  # bank time = wall time - offset (follow)
        self.skipped_ns = 0
        self.max_step_ns = max_step_ns  # None: simulated time; else wall time, capped catch-up
        self._synced: object = None  # the tick the bank was last brought up to
        self.advance_to(0)  # the boards boot `boot_ns` before the bus starts

    def __len__(self) -> int:
        return len(self.rigs)

    def advanced_to(self, t_ns: int) -> None:
        """An engine ran every board up to `t_ns` in its own call (``advance_to(t_ns)`` is then
        nothing to do)."""
        self._last_t = t_ns

    def advance_to(self, t_ns: int) -> None:
        """Run every board through all its PWM periods that start before t_ns."""
        if t_ns == self._last_t:
            return
        self._last_t = t_ns
        counts = self._counts
        if not due_counts_c(self.phase_ns, self.done, t_ns, self.period_ns, counts):
            return
        runner = run_bank_lean_fast if self.fast else run_bank
        runner(self.rams, self.roms, self.params, self.states, self.istates, self.tables,
               counts, self._ti, self._tf)
        self.done += counts

    def sync(self, now_ns: int, tick: object) -> None:
        """Bring every board up to `now_ns` for a received tick, once however many of the
        bank's boards heard that tick (they then latch at one instant): to simulated time
        exactly, or (max_step_ns set) following wall time with the catch-up capped."""
        if tick is self._synced:
            return
        self._synced = tick
        if self.max_step_ns is None:
            self.advance_to(now_ns)
        else:
            self.follow(now_ns, self.max_step_ns)

    def follow(self, wall_ns: int, max_step_ns: int) -> None:
        """Advance to wall time `wall_ns`: the first call starts the bank's clock there, later
        ones run at most `max_step_ns` and skip the rest of a longer gap."""
        if self.wall_offset_ns is None:
            self.wall_offset_ns = wall_ns - self._last_t
            self.skipped_ns += wall_ns - self._last_t
        t = wall_ns - self.wall_offset_ns
        if t - self._last_t > max_step_ns:
            gap = t - self._last_t - max_step_ns
            self.wall_offset_ns += gap
            self.skipped_ns += gap
            t -= gap
        self.advance_to(t)
