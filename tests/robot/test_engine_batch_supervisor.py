"""``Supervisor.steady_periods`` on a batch's integer arrays (windows counted per distinct
length, the latest kept) leaves the supervisor as the per-period calls it stands for
(``on_tick``, ``on_measurement`` x 12, ``on_compute``, ``on_actuation_sent``), over several
batches, bounded and unbounded histories, and lengths past MAX_DISTINCT (coarsened counts)."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.host import supervisor as sv
from servobus.host.supervisor import Supervisor

COMPUTE_NS = 200_000

JOINTS = 12  # a SPEJBL host's
ALL = frozenset(range(1, JOINTS + 1))


def _state(sup: Supervisor) -> tuple:
    return (sup.ticks, sup.slips, sup.deadline_misses, sup.servo_faults, sup.fault_periods,
            list(sup.window_counts.items()), sup.window_quantum_ns, sup.window_range_ns,
            sup.used_max_ns, list(sup.windows_ns), list(sup.used_ns), sup.seq, sup.tick_ns,
            sup.arrived, sup.last_meas_ns, sup.ready_ns, sup.sent_ns, sup.window_stats())


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), history=st.sampled_from([None, 0, 3, 500]),
       distinct=st.sampled_from([3, 40, 10**6]), batches=st.integers(1, 4))
def test_steady_periods_equal_the_calls_per_period(seed: int, history: int | None,
                                                   distinct: int, batches: int) -> None:
    rng = random.Random(seed)
    one, batched = (Supervisor(expected=ALL, history=history) for _ in range(2))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sv, "MAX_DISTINCT", 20)  # coarsened counts within a few batches
        at, seq = rng.randrange(10**9), rng.randrange(256)
        for _ in range(batches):
            n = rng.randrange(1, 60)
            ticks = at + 4_000_000 * np.arange(n, dtype=np.int64)
            spread = [rng.randrange(distinct) % 300_000 * 7 for _ in range(n)]
            last = ticks + 1_000_000 + np.array(spread)
            batched.steady_periods(seq, ticks, last, COMPUTE_NS)
            for i in range(n):
                one.on_tick((seq + i) % 256, int(ticks[i]))
                for j in range(1, JOINTS + 1):
                    one.on_measurement(j, int(last[i]) - 1000 * (JOINTS - j))
                one.on_compute(int(last[i]))
                one.on_actuation_sent(int(last[i]) + COMPUTE_NS)
            at, seq = int(ticks[-1]) + 4_000_000, (seq + n) % 256
    assert _state(batched) == _state(one) and one.ticks > 0
