"""Speed of one board at full fidelity: simulated seconds per wall second, fast and reference;
and the compiled kernels' cost per PWM period, today's (``rig.run_bank``) and the lean one."""

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from servobus.firmware import memory as m
from servobus.plant.bank_kernel import run_bank_lean_fast
from servobus.plant.board_bank import BoardBank
from servobus.plant.build import PlantOptions
from servobus.plant.rig import N_TF, N_TI, BoardRig, run_bank_fast
from servobus.presets.board import DEFAULT_BOARD

OPTIONS = PlantOptions(plant="switching", rotor="free")
KERNELS: dict[str, Callable[..., Any]] = {"today": run_bank_fast, "lean": run_bank_lean_fast}


def _amps(tick: int) -> float:
    """The reference of CAN period `tick`: 0.8 A reversing every 25 periods (0.1 s)."""
    return 0.8 if (tick // 25) % 2 == 0 else -0.8


def _drive(rig: BoardRig, ticks: int, fast: bool) -> float:
    """Run `ticks` CAN periods with the reversing reference; return wall seconds."""
    start = time.perf_counter()
    for k in range(ticks):
        rig.command_current(_amps(k))
        rig.run(rig.hw.periods_per_tick, record=False, fast=fast)
    return time.perf_counter() - start


class _Bank:
    """A BoardBank of n boards driven tick by tick as ``_drive`` drives one board, its arrays
    handed to the kernel under test (``BoardBank.advance_to`` runs the lean one only)."""

    def __init__(self, n: int) -> None:
        self.bank = BoardBank([replace(OPTIONS, seed=b) for b in range(n)], [m.MODE_CURRENT] * n)
        self.counts = np.full(n, self.bank.hw.periods_per_tick, dtype=np.int64)
        self.trace = (np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF)))
        self.tick = 0

    def run(self, kernel: Callable[..., Any], ticks: int) -> float:
        """`ticks` ticks (actuation and tick handlers, then the kernel); the kernel's seconds."""
        bank = self.bank
        args = (bank.rams, bank.roms, bank.params, bank.states, bank.istates, bank.tables,
                self.counts, *self.trace)
        spent = 0.0
        for _ in range(ticks):
            amps = _amps(self.tick)
            self.tick += 1
            for rig in bank.rigs:  # the rigs work on views of the bank's rows
                rig.command_current(amps)
            start = time.perf_counter()
            kernel(*args)
            spent += time.perf_counter() - start
        return spent


def kernel_ns_per_period(boards: int, seconds: float, rounds: int = 4) -> dict[str, float]:
    """ns per board-period of each kernel, on identical banks advanced in alternating rounds
    (the same load for both on a shared machine)."""
    banks = {name: _Bank(boards) for name in KERNELS}
    for name, kernel in KERNELS.items():
        banks[name].run(kernel, 1)  # compile (or load the numba cache)
    ticks = max(1, round(seconds * DEFAULT_BOARD.can_hz / rounds))
    spent = dict.fromkeys(KERNELS, 0.0)
    for _ in range(rounds):
        for name, kernel in KERNELS.items():
            spent[name] += banks[name].run(kernel, ticks)
    periods = rounds * ticks * boards * DEFAULT_BOARD.periods_per_tick
    return {name: s / periods * 1e9 for name, s in spent.items()}


def bench_board(seconds: float = 10.0, reference_seconds: float = 0.05) -> dict:
    """Full fidelity (switching plant, 120 kHz ADC, 20 kHz PI, free rotor) on one core."""
    rig = BoardRig(options=OPTIONS)
    _drive(rig, 1, fast=True)  # compile (or load the numba cache)
    ticks = max(1, round(seconds * rig.hw.can_hz))
    wall = _drive(rig, ticks, fast=True)
    ref_ticks = max(1, round(reference_seconds * rig.hw.can_hz))
    ref_wall = _drive(BoardRig(options=OPTIONS), ref_ticks, fast=False)
    sim = ticks / rig.hw.can_hz
    ref_sim = ref_ticks / rig.hw.can_hz
    one = kernel_ns_per_period(1, seconds)
    bank = kernel_ns_per_period(12, seconds / 4)
    return {
        "sim_s": sim, "wall_s": wall, "sim_s_per_wall_s": sim / wall,
        "pwm_periods_per_s": sim * rig.hw.pwm_hz / wall,
        "reference_sim_s_per_wall_s": ref_sim / ref_wall,
        "speedup_vs_reference": (sim / wall) / (ref_sim / ref_wall),
        "kernel_ns_per_pwm_period_today": one["today"],
        "kernel_ns_per_pwm_period_lean": one["lean"],
        "lean_kernel_sim_s_per_wall_s": 1e9 / (one["lean"] * rig.hw.pwm_hz),
        "bank12_ns_per_board_period_today": bank["today"],
        "bank12_ns_per_board_period_lean": bank["lean"],
        "lean_speedup_one_board": one["today"] / one["lean"],
        "lean_speedup_bank12": bank["today"] / bank["lean"],
    }
