"""The host's per-period records, bounded: the latest periods kept, tracking figures streamed.

A run of hours would otherwise keep a PeriodRecord per 4 ms period.  The tracking RMS and
maximum error per joint are accumulated as each period is recorded: squares summed row by row
and divided by the count, which is bit for bit numpy's ``np.mean(err**2, axis=0)`` (a
reduction over the first axis of a C array adds the rows in order), and the maximum is exact.
The records themselves are kept for the last ``keep`` periods (None: all, for a plot).
"""

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

RECENT_PERIODS = 500  # records kept by default (2 s at 4 ms)


class Record(Protocol):
    """What a period record carries (host_node.PeriodRecord)."""

    tick_ns: int
    reference: np.ndarray
    measured: np.ndarray
    current: np.ndarray


@dataclass
class PeriodLog:
    """A bounded list of period records with the tracking error accumulated over all."""

    keep: int | None = RECENT_PERIODS

    def __post_init__(self) -> None:
        self._recent: deque[Record] = deque(maxlen=self.keep)
        self.count = 0  # periods recorded since the start
        self._squares: np.ndarray | None = None
        self._abs_max: np.ndarray | None = None

    def append(self, record: Record) -> None:
        """Record one period: keep it (bounded) and add its tracking error."""
        self._recent.append(record)
        err = record.reference - record.measured
        if self._squares is None or self._abs_max is None:
            self._squares, self._abs_max = err**2, np.abs(err)
        else:
            self._squares += err**2
            np.maximum(self._abs_max, np.abs(err), out=self._abs_max)
        self.count += 1

    def extend(self, ticks: Sequence[int], refs: np.ndarray, meas: np.ndarray,
               currents: np.ndarray, record: Callable[..., Record]) -> None:
        """Record n periods at once (row i: period ticks[i]; `record` makes a record of tick,
        reference, measured, current): the same figures as n ``append`` calls, the squares
        and maxima reduced over the rows in order, after the running ones."""
        n = len(ticks)
        first = 0 if self.keep is None else max(0, n - self.keep)
        self._recent.extend(record(ticks[i], refs[i], meas[i], currents[i])
                            for i in range(first, n))
        err = refs - meas
        squares, magnitudes = err**2, np.abs(err)
        if self._squares is not None and self._abs_max is not None:
            squares = np.vstack([self._squares, squares])
            magnitudes = np.vstack([self._abs_max, magnitudes])
        self._squares = np.add.reduce(squares, axis=0)
        self._abs_max = np.maximum.reduce(magnitudes, axis=0)
        self.count += n

    def tracking(self, joints: int) -> tuple[list[float], list[float]]:
        """Per joint RMS and maximum absolute error (LSB, 3 decimals) over every period."""
        if self._squares is None or self._abs_max is None:
            return [0.0] * joints, [0.0] * joints
        rms = np.sqrt(self._squares / self.count)
        return rms.round(3).tolist(), self._abs_max.round(3).tolist()

    def __len__(self) -> int:
        return len(self._recent)

    def __iter__(self) -> Iterator[Record]:
        return iter(self._recent)

    def __getitem__(self, index: int) -> Record:
        return self._recent[index]
