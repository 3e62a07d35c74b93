"""The host's per-period records, bounded: the latest periods kept, tracking figures streamed.

A run of hours would otherwise keep a PeriodRecord per 4 ms period.  The tracking RMS and
maximum error per joint are accumulated as each period is recorded: squares summed row by row
and divided by the count, which is bit for bit numpy's ``np.mean(err**2, axis=0)`` (a
reduction over the first axis of a C array adds the rows in order), and the maximum is exact.
The records themselves are kept for the last ``keep`` periods (None: all, for a plot).
"""

from collections import deque
from collections.abc import Iterator
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

    def accumulators(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The running sums of squared errors and the maximum absolute errors, for a caller that
        adds periods itself (the compiled engine: ``s += e * e``, ``m = max(m, |e|)`` per
        period in order, numpy's arithmetic); None before the first record."""
        if self._squares is None or self._abs_max is None:
            return None
        return self._squares, self._abs_max

    def extend_accumulated(self, records: list[Record], count: int) -> None:
        """`count` periods whose errors the caller has added to the accumulators; `records`,
        the latest of them (at least the last ``keep``), are kept."""
        self._recent.extend(records)
        self.count += count

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
