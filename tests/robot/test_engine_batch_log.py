"""``PeriodLog.extend`` (a compiled batch's records; the running sums folded into the batch's
first row in place) leaves bit for bit the squared-error sums and maxima of one ``append`` per
period, on random real-valued errors over several batches (rounding differs in the last bits
if the running sums are added anywhere but first)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.host.host_node import PeriodRecord
from servobus.host.period_log import PeriodLog


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(1, 300), min_size=1,
                                                      max_size=4))
def test_batches_sum_the_squares_as_appends(seed: int, sizes: list[int]) -> None:
    rng = np.random.default_rng(seed)
    one, many = PeriodLog(), PeriodLog()
    at = 0
    for n in sizes:
        refs = rng.normal(512.0, 300.0, (n, 12))
        meas = refs + rng.normal(0.0, 3.0, (n, 12)) * rng.choice([1e-3, 1.0, 1e3], (n, 1))
        ticks = list(range(at, at + n))
        for i in range(n):
            one.append(PeriodRecord(ticks[i], refs[i], meas[i], refs[i] * 0.0))
        many.extend(ticks, refs, meas, refs * 0.0, PeriodRecord)
        at += n
    assert one._squares is not None and many._squares is not None
    assert one._abs_max is not None and many._abs_max is not None
    assert one._squares.tobytes() == many._squares.tobytes()
    assert one._abs_max.tobytes() == many._abs_max.tobytes()
    assert one.tracking(12) == many.tracking(12) and one.count == many.count == sum(sizes)
