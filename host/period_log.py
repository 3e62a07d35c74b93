"""The host's per-period records, bounded: the latest periods kept, tracking figures streamed.

A run of hours would otherwise keep a PeriodRecord per 4 ms period.  The tracking RMS and
maximum error per joint are accumulated as each period is recorded: squares summed row by row
and divided by the count, which is bit for bit numpy's ``np.mean(err**2, axis=0)`` (a
reduction over the first axis of a C array adds the rows in order), and the maximum is exact.
The records themselves are kept for the last ``keep`` periods (None: all, for a plot); a
batch's (the compiled engine's) as its arrays, each record built when it is read.
"""

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

RECENT_PERIODS = 500  # records kept by default (2 s at 4 ms)


class Record(Protocol):
    """What a period record carries (host_node.PeriodRecord)."""

    tick_ns: int
    reference: np.ndarray
    measured: np.ndarray
    current: np.ndarray


@dataclass(frozen=True)
class _Rows:
    """Records first.. of a batch, made when read: the engine hands over a batch's arrays, and
    only a plot or a sweep's measure reads the records."""

    ticks: Sequence[int]
    refs: np.ndarray
    meas: np.ndarray
    currents: np.ndarray
    record: Callable[..., Record]
    first: int = 0

    def __len__(self) -> int:
        return len(self.ticks) - self.first

    def __getitem__(self, i: int) -> Record:
        k = self.first + i
        return self.record(self.ticks[k], self.refs[k], self.meas[k], self.currents[k])

    def __iter__(self) -> Iterator[Record]:
        return (self[i] for i in range(len(self)))


@dataclass
class PeriodLog:
    """A bounded list of period records with the tracking error accumulated over all."""

    keep: int | None = RECENT_PERIODS

    def __post_init__(self) -> None:
        self._recent: deque[Record | _Rows] = deque()
        self._kept = 0  # records in _recent
        self.count = 0  # periods recorded since the start
        self._squares: np.ndarray | None = None
        self._abs_max: np.ndarray | None = None

    def append(self, record: Record) -> None:
        """Record one period: keep it (bounded) and add its tracking error."""
        self._keep(record, 1)
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
        and maxima reduced over the rows in order, after the running ones (folded into the
        first row, in place: no stacked copy)."""
        n = len(ticks)
        if not n:
            return
        self._keep(_Rows(ticks, refs, meas, currents, record), n)
        err = refs - meas
        magnitudes = np.abs(err)
        squares = np.square(err, out=err)
        if self._squares is not None and self._abs_max is not None:  # the running ones first
            np.add(self._squares, squares[0], out=squares[0])
            np.maximum(self._abs_max, magnitudes[0], out=magnitudes[0])
        self._squares = np.add.reduce(squares, axis=0)
        self._abs_max = np.maximum.reduce(magnitudes, axis=0)
        self.count += n

    def _keep(self, item: "Record | _Rows", n: int) -> None:
        """Keep n more records, then drop the oldest beyond ``keep``."""
        self._recent.append(item)
        self._kept += n
        if self.keep is None:
            return
        while self._recent and self._kept - _length(self._recent[0]) >= self.keep:
            self._kept -= _length(self._recent.popleft())
        extra = self._kept - self.keep
        if extra > 0:  # a batch's first records fall out (a single record would have gone)
            rows = self._recent[0]
            assert isinstance(rows, _Rows)
            self._recent[0] = replace(rows, first=rows.first + extra)
            self._kept = self.keep

    def tracking(self, joints: int) -> tuple[list[float], list[float]]:
        """Per joint RMS and maximum absolute error (LSB, 3 decimals) over every period."""
        if self._squares is None or self._abs_max is None:
            return [0.0] * joints, [0.0] * joints
        rms = np.sqrt(self._squares / self.count)
        return rms.round(3).tolist(), self._abs_max.round(3).tolist()

    def __len__(self) -> int:
        return self._kept

    def __iter__(self) -> Iterator[Record]:
        for item in self._recent:
            if isinstance(item, _Rows):
                yield from item
            else:
                yield item

    def __getitem__(self, index: int) -> Record:
        """Record `index`, counted from the newer end for a negative one (log[-1]: no walk)."""
        back = index < 0
        at = -index - 1 if back else index
        for item in reversed(self._recent) if back else self._recent:
            n = _length(item)
            if at < n:
                if not isinstance(item, _Rows):
                    return item
                return item[n - 1 - at if back else at]
            at -= n
        raise IndexError(f"period record {index} of {self._kept}")


def _length(item: "Record | _Rows") -> int:
    """Records an item of the log holds."""
    return len(item) if isinstance(item, _Rows) else 1
