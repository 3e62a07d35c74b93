"""Count what the firmware executes: primitive operations, RAM/ROM accesses, and int32 wraps.

Inside ``OpCounter()`` the primitives (by default ``firmware.int32``'s) and the firmware's entry
points (by default the SPEJBL board's interrupts) are replaced by counting wrappers (the firmware
calls them through their modules, so the CPython reference path picks the wrappers up), and
RAM/ROM become arrays that count loads and stores, each access named by a classifier (a kind, or
a function of the address: GuRoo's longs, registers and I/O bytes).  Counts are kept per entry
point.  A wrapping add/sub/mul whose true result left int32 is recorded as a wrap: the firmware
must have none (only the 64-bit multiply may exceed int32).
"""

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from servobus.firmware import board
from servobus.firmware import int32 as i32

ISRS = ("adc_isr", "pwm_isr", "can_tick", "can_actuation")
_WRAPPING = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}
Classifier = Callable[[Any, str], tuple[str, ...]]  # (index, "load"|"store") -> the ops it costs
Patches = Sequence[tuple[ModuleType, Sequence[str]]]


class CountingArray(np.ndarray):
    """An int64 array whose element reads and writes are tallied while an entry point runs."""

    counter: "OpCounter | None" = None  # set, with classify, by ``OpCounter.watch``
    classify: Classifier

    def _count(self, key: Any, verb: str) -> None:
        if self.counter is not None:
            for op in self.classify(key, verb):
                self.counter.tally(op)

    def __getitem__(self, key: Any) -> Any:
        self._count(key, "load")
        return super().__getitem__(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._count(key, "store")
        super().__setitem__(key, value)


class OpCounter:
    """Context manager collecting per-entry-point operation counts of the reference path."""

    def __init__(self, weights: dict[str, int] | None = None,
                 primitives: Patches = ((i32, i32.PRIMITIVES),),
                 entries: tuple[ModuleType, Sequence[str]] = (board, ISRS)) -> None:
        self.weights = weights or {}
        self.primitives = primitives
        self.entries = entries
        self.per_isr: dict[str, Counter[str]] = defaultdict(Counter)
        self.calls: Counter[str] = Counter()
        self.worst: Counter[str] = Counter()  # the costliest call's weighted total
        self._spent: Counter[str] = Counter()  # running weighted totals
        self.wraps: list[tuple[str, int, int]] = []
        self._active: str | None = None
        self._saved: dict[tuple[Any, str], Callable] = {}

    def tally(self, op: str) -> None:
        """Count one operation for the running entry point (ignored outside entry points)."""
        if self._active is not None:
            self.per_isr[self._active][op] += 1
            self._spent[self._active] += self.weights.get(op, 1)

    def cost(self, ops: Mapping[str, float]) -> float:
        """Weighted sum of an operation count (weights default to 1)."""
        return sum(self.weights.get(op, 1) * n for op, n in ops.items())

    def watch(self, array: np.ndarray, kind: str | Classifier) -> "CountingArray":
        """A counting view of a firmware array, its accesses named `{verb}_{kind}` ('ram' or
        'rom') or by a classifier; use it in place of the array."""
        view = array.view(CountingArray)
        view.counter = self
        view.classify = (lambda key, verb: (f"{verb}_{kind}",)) if isinstance(kind, str) else kind
        return view

    def __enter__(self) -> "OpCounter":
        for module, names in self.primitives:
            for name in names:
                self._patch(module, name, self._primitive(name, getattr(module, name)))
        module, names = self.entries
        for name in names:
            self._patch(module, name, self._isr(name, getattr(module, name)))
        return self

    def __exit__(self, *exc: object) -> None:
        for (module, name), original in self._saved.items():
            setattr(module, name, original)
        self._saved.clear()

    def _patch(self, module: Any, name: str, wrapper: Callable) -> None:
        self._saved[(module, name)] = getattr(module, name)
        setattr(module, name, wrapper)

    def _primitive(self, name: str, fn: Callable) -> Callable:
        truth = _WRAPPING.get(name)

        def counted(*args: Any) -> Any:
            self.tally(name)
            result = fn(*args)
            if truth is not None and truth(*(int(a) for a in args)) != int(result):
                self.wraps.append((name, int(args[0]), int(args[1])))
            return result

        return counted

    def _isr(self, name: str, fn: Callable) -> Callable:
        def counted(*args: Any) -> Any:
            before = self._spent[name]
            self._active = name
            try:
                return fn(*args)
            finally:
                self._active = None
                self.calls[name] += 1
                self.worst[name] = max(self.worst[name], self._spent[name] - before)

        return counted
