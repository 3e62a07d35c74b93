"""PeriodLog.extend (the compiled engine's batch of periods) leaves bit for bit the figures of
one append per period: the squared errors summed row by row after the running sums, the
maxima with numpy's NaN-wins rule, the same records kept within the bound."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from servobus.host.host_node import PeriodRecord
from servobus.host.period_log import PeriodLog

VALUES = st.floats(-2000.0, 2000.0) | st.sampled_from([np.nan, 1e-300, 0.1, 1e15])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([None, 1, 3, 500]), st.integers(0, 4), st.integers(1, 40),
       arrays(np.float64, (50, 2, 3), elements=VALUES))
def test_extend_equals_appends(keep: int | None, before: int, n: int, data: np.ndarray) -> None:
    refs, meas = data[:, 0], data[:, 1]
    one, many = PeriodLog(keep), PeriodLog(keep)
    for log in (one, many):
        for i in range(before):
            log.append(PeriodRecord(i, refs[i], meas[i], refs[i] * 0.5))
    rows = slice(before, before + n)
    ticks = list(range(before, before + n))
    for i in ticks:
        one.append(PeriodRecord(i, refs[i], meas[i], refs[i] * 0.5))
    many.extend(ticks, refs[rows], meas[rows], refs[rows] * 0.5, PeriodRecord)
    assert one.count == many.count == before + n
    a, b = one.tracking(3), many.tracking(3)
    assert np.array_equal(np.array(a), np.array(b), equal_nan=True)
    assert one._squares is not None and many._squares is not None
    assert one._abs_max is not None and many._abs_max is not None
    assert np.array_equal(one._squares.view(np.int64), many._squares.view(np.int64))
    assert np.array_equal(one._abs_max.view(np.int64), many._abs_max.view(np.int64))
    assert [r.tick_ns for r in one] == [r.tick_ns for r in many]
    for x, y in zip(one, many, strict=True):
        assert np.array_equal(x.measured, y.measured, equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([None, 0, 1, 2, 5, 12]), st.lists(st.integers(0, 7), min_size=1, max_size=8))
def test_records_kept_over_batches_and_appends(keep: int | None, sizes: list[int]) -> None:
    """Batches (0 = one append) kept within the bound: the same records, length and indexing
    as one append per period."""
    total = sum(max(k, 1) for k in sizes)
    refs = np.arange(3.0 * total).reshape(total, 3)
    one, many = PeriodLog(keep), PeriodLog(keep)
    at = 0
    for k in sizes:
        rows = slice(at, at + max(k, 1))
        ticks = list(range(rows.start, rows.stop))
        for i in ticks:
            one.append(PeriodRecord(i, refs[i], refs[i] * 2, refs[i] * 3))
        if k:
            many.extend(ticks, refs[rows], refs[rows] * 2, refs[rows] * 3, PeriodRecord)
        else:
            many.append(PeriodRecord(at, refs[at], refs[at] * 2, refs[at] * 3))
        at = rows.stop
        assert len(many) == len(one) == min(at, at if keep is None else keep)
        assert [r.tick_ns for r in many] == [r.tick_ns for r in one]
    n = len(one)
    for i in [0, n - 1, -1, -n, n // 2] if n else []:
        assert many[i].tick_ns == one[i].tick_ns
        assert np.array_equal(many[i].current, one[i].current)
    for i in (n, -n - 1):
        with pytest.raises(IndexError):
            many[i]
