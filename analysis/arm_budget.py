"""The CPU budget from the machine code: the budget's workload replayed on the C firmware.

Every interrupt the reference path runs in ``cpu_budget.run_workload`` is recorded with the RAM
it found and its arguments; each call is then run on the ARM7TDMI emulator from that RAM, its
cycles counted (``arm_cycles``), and its RAM afterwards checked against the Python firmware's
(so the budget workload is one more oracle run).  The fixed costs the C routines do not contain
(IRQ entry and exit, the CAN driver) are the hand table's, added to both figures alike.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from servobus.analysis.op_counter import ISRS
from servobus.firmware import board

Call = tuple[str, np.ndarray, tuple[int, ...], np.ndarray]  # name, RAM before, args, RAM after


@dataclass(frozen=True)
class MachineCost:
    """Executed instructions and cycles of one interrupt's C routine over the workload."""

    mean_instructions: float
    mean_cycles: float
    max_cycles: int
    mix: dict[str, float]  # executed instructions per call by class (arm_cycles' kinds)


@contextmanager
def recording(calls: list[Call], names: Sequence[str] = ISRS) -> Any:
    """Record every call of the board interrupts `names` (RAM before and after, integer
    arguments)."""
    saved = {name: getattr(board, name) for name in names}

    def recorder(name: str, fn: Callable) -> Callable:
        def record(ram: np.ndarray, *rest: Any) -> Any:
            before = np.array(ram, dtype=np.int64)
            result = fn(ram, *rest)
            args = tuple(int(a) for a in rest if not isinstance(a, np.ndarray))
            calls.append((name, before, args, np.array(ram, dtype=np.int64)))
            return result

        return record

    for name, fn in saved.items():
        setattr(board, name, recorder(name, fn))
    try:
        yield calls
    finally:
        for name, fn in saved.items():
            setattr(board, name, fn)


@dataclass
class Recording:
    """The interrupt calls of one budget workload and the board's ROM (cpu_budget.measure)."""

    calls: list[Call] = field(default_factory=list)
    rom: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def recording_if_available() -> Recording | None:
    """An empty Recording to hand to cpu_budget.measure, or None without the oracle."""
    from servobus.analysis.arm_build import OracleUnavailable, require

    try:
        require()
    except OracleUnavailable:
        return None
    return Recording()


def replay(calls: list[Call], rom: np.ndarray, isa: str) -> dict[str, MachineCost]:
    """Run each recorded call on the machine code; RAM must match the Python firmware's."""
    from servobus.analysis.arm_cycles import CycleCounter
    from servobus.analysis.arm_oracle import Machine

    counter = CycleCounter(Machine(isa))
    names = dict.fromkeys(name for name, *_ in calls)  # the interrupts recorded, in order
    cycles: dict[str, list[int]] = {name: [] for name in names}
    instructions: dict[str, int] = dict.fromkeys(names, 0)
    mix: dict[str, Counter[str]] = {name: Counter() for name in names}
    for name, before, args, after in calls:
        got, _, cost = counter.run(name, before, rom, args)
        if not np.array_equal(got, after):
            cells = np.flatnonzero(got != after).tolist()
            raise RuntimeError(f"machine code ({isa}) and Python firmware differ after {name}"
                               f"{args} at RAM cells {cells}")
        cycles[name].append(cost.cycles)
        instructions[name] += cost.instructions
        mix[name].update(cost.classes)
    return {name: MachineCost(mean_instructions=instructions[name] / len(c),
                              mean_cycles=float(np.mean(c)), max_cycles=int(max(c)),
                              mix={k: n / len(c) for k, n in sorted(mix[name].items())})
            for name, c in cycles.items() if c}
