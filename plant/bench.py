"""Speed of one board at full fidelity, and the compiled kernels' cost per PWM period.

Every figure runs the bench's workload: 0.8 A references reversing every 25 CAN ticks (0.1 s),
a tick's actuation and tick handlers, then its 80 PWM periods (switching plant, 120 kHz ADC,
20 kHz PI, free rotor), on one core.

* ``sim_s_per_wall_s``: one board through ``BoardRig.drive`` (``board_drive.drive_lean``), in
  calls of ``CALL_TICKS`` ticks (1 simulated s): the user's fastest one-board path, end to end
  (the references' conversion to Q12 included), in the kernels' alternating rounds (below).
* ``python_per_tick_sim_s_per_wall_s``: the same board tick by tick from Python
  (``command_current``, then ``run(80, record=False)``: the handlers interpreted, one numba
  call of the lean kernel per tick, whose dispatch costs ~2 us, ~25 ns of each period).
* ``reference_sim_s_per_wall_s``: the reference path (all of it interpreted in CPython).
* ``kernel_ns_per_pwm_period_today`` / ``_lean``: wall ns per PWM period of the issue-time
  kernel (``rig.run_bank``) and the lean one (``bank_kernel``), each inside its driver
  (``board_drive.drive_today`` / ``drive_lean``), one board, calls of ``CALL_TICKS`` ticks, so
  numba's per-call dispatch is ~0.1 ns of a period (the tick handlers, a few ns per tick, are
  in); the two measured in alternating rounds on identical boards (the same load on a shared
  machine).  ``bank12_ns_per_board_period_*``: the same with 12 boards per call.
"""

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from servobus.firmware import memory as m
from servobus.plant.board_bank import BoardBank
from servobus.plant.board_drive import drive_lean, drive_today
from servobus.plant.build import PlantOptions
from servobus.plant.rig import BoardRig, q12
from servobus.presets.board import DEFAULT_BOARD

OPTIONS = PlantOptions(plant="switching", rotor="free")
DRIVERS: dict[str, Callable[..., Any]] = {"today": drive_today, "lean": drive_lean}
CALL_TICKS = DEFAULT_BOARD.can_hz  # ticks per compiled call: 1 simulated s


def _amps(tick: int) -> float:
    """The reference of CAN period `tick`: 0.8 A reversing every 25 periods (0.1 s)."""
    return 0.8 if (tick // 25) % 2 == 0 else -0.8


def _ticks(seconds: float) -> int:
    """The CAN ticks of `seconds` simulated seconds, at least one."""
    return max(1, round(seconds * DEFAULT_BOARD.can_hz))


def _calls(ticks: int, start: int = 0) -> list[range]:
    """Ticks start .. start + ticks in chunks of CALL_TICKS."""
    return [range(k, min(k + CALL_TICKS, start + ticks)) for k in range(start, start + ticks,
                                                                         CALL_TICKS)]


class _Rig:
    """One BoardRig driven through ``BoardRig.drive``, the user's path, ticks numbered on."""

    def __init__(self) -> None:
        self.rig = BoardRig(options=OPTIONS)
        self.tick = 0

    def run(self, ticks: int) -> float:
        """The next `ticks` ticks in calls of CALL_TICKS; wall seconds."""
        start = time.perf_counter()
        for chunk in _calls(ticks, self.tick):
            self.rig.drive([_amps(k) for k in chunk])
        self.tick += ticks
        return time.perf_counter() - start


def _per_tick(rig: BoardRig, ticks: int, fast: bool) -> float:
    """`ticks` CAN periods tick by tick from Python; return wall seconds."""
    start = time.perf_counter()
    for k in range(ticks):
        rig.command_current(_amps(k))
        rig.run(rig.hw.periods_per_tick, record=False, fast=fast)
    return time.perf_counter() - start


class _Bank:
    """A BoardBank's arrays (n boards, seeded phases and boot as in the robot) driven by a
    driver under test, the same reference on every board."""

    def __init__(self, n: int) -> None:
        bank = BoardBank([replace(OPTIONS, seed=b) for b in range(n)], [m.MODE_CURRENT] * n)
        self.args = (bank.rams, bank.roms, bank.params, bank.states, bank.istates, bank.tables)
        self.n = n
        self.tick = 0

    def run(self, driver: Callable[..., Any], ticks: int) -> float:
        """The next `ticks` ticks in calls of CALL_TICKS; the driver's wall seconds."""
        spent = 0.0
        for chunk in _calls(ticks, self.tick):
            column = np.array([q12(_amps(k)) for k in chunk], dtype=np.int64)
            refs = np.repeat(column[:, np.newaxis], self.n, axis=1)
            start = time.perf_counter()
            driver(*self.args, refs, DEFAULT_BOARD.periods_per_tick)
            spent += time.perf_counter() - start
        self.tick += ticks
        return spent


def alternating(boards: int, seconds: float, rounds: int = 4,
                user_path: bool = False) -> tuple[int, dict[str, float]]:
    """The ticks of `seconds` simulated and the wall seconds each kernel's driver took to run
    them on `boards` boards (and, with `user_path`, one board through ``BoardRig.drive``, key
    "drive"), in alternating rounds (the same load for all on a shared machine)."""
    runs: dict[str, Callable[[int], float]] = {}
    if user_path:
        runs["drive"] = _Rig().run
    for name, driver in DRIVERS.items():
        runs[name] = partial(_Bank(boards).run, driver)
    for run in runs.values():
        run(1)  # compile (or load the numba cache)
    ticks = _ticks(seconds)
    spent = dict.fromkeys(runs, 0.0)
    for r in range(rounds):
        for name, run in runs.items():
            spent[name] += run(ticks * (r + 1) // rounds - ticks * r // rounds)
    return ticks, spent


def bench_board(seconds: float = 10.0, reference_seconds: float = 0.05) -> dict:
    """The module docstring's figures; `seconds` simulated per figure (a quarter of it for the
    12-board bank), `reference_seconds` on the reference path."""
    hw = DEFAULT_BOARD
    ticks, one = alternating(1, seconds, user_path=True)
    sim = ticks / hw.can_hz
    wall = one["drive"]
    ns_one = {name: s / (ticks * hw.periods_per_tick) * 1e9 for name, s in one.items()}
    py_rig = BoardRig(options=OPTIONS)
    _per_tick(py_rig, 1, fast=True)
    py_wall = _per_tick(py_rig, ticks, fast=True)
    ref_ticks = _ticks(reference_seconds)
    ref_wall = _per_tick(BoardRig(options=OPTIONS), ref_ticks, fast=False)
    ref_sim = ref_ticks / hw.can_hz
    bank_ticks, bank = alternating(12, seconds / 4)
    ns_bank = {name: s / (bank_ticks * 12 * hw.periods_per_tick) * 1e9
               for name, s in bank.items()}
    return {
        "sim_s": sim, "wall_s": wall, "sim_s_per_wall_s": sim / wall,
        "pwm_periods_per_s": sim * hw.pwm_hz / wall,
        "ticks_per_call": CALL_TICKS,
        "python_per_tick_sim_s_per_wall_s": sim / py_wall,
        "reference_sim_s_per_wall_s": ref_sim / ref_wall,
        "speedup_vs_reference": (sim / wall) / (ref_sim / ref_wall),
        "kernel_ns_per_pwm_period_today": ns_one["today"],
        "kernel_ns_per_pwm_period_lean": ns_one["lean"],
        "lean_kernel_sim_s_per_wall_s": 1e9 / (ns_one["lean"] * hw.pwm_hz),
        "bank12_ns_per_board_period_today": ns_bank["today"],
        "bank12_ns_per_board_period_lean": ns_bank["lean"],
        "lean_speedup_one_board": ns_one["today"] / ns_one["lean"],
        "lean_speedup_bank12": ns_bank["today"] / ns_bank["lean"],
    }
