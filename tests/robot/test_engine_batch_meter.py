"""The load meter charged from a batch's frame rows (``frame_rows.hand_over``: the compiled
kernel on the rows' strided columns, its state in locals, a frame's window found from the latest
end's) leaves the meter as ``LoadMeter.charge`` frame by frame: random frames, windows, gaps,
overlaps and late frames, long frames over many windows, several batches, windows kept or not."""

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import frame_bits as fb
from servobus.bus.load_meter import LoadMeter
from servobus.robot.frame_rows import COLUMNS, F_BITS, F_BUSY, F_END, F_START, hand_over

EXTRA = fb.TRAILER_BITS + fb.IFS_BITS


def _frames(rng: random.Random, count: int, at: int) -> list[tuple[int, int, int]]:
    """(start, busy until, stuffed bits) of frames mostly in time order, some overlapping the
    previous one, some late (before it), some long, some after long silences."""
    rows = []
    for _ in range(count):
        at += rng.choice([0, 0, rng.randrange(3_000), rng.randrange(400_000),
                          rng.randrange(20_000_000)])
        bits = rng.randrange(40, 140) * rng.choice([1, 1, 1, 5])
        start = at - rng.choice([0, 0, rng.randrange(1, 5_000), rng.randrange(1, 2_000_000)])
        end = start + (bits + EXTRA) * 1000
        rows.append((start, end, bits))
        at = max(at, end)
    return rows


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), window_us=st.sampled_from([50, 333, 2_000, 100_000]),
       keep=st.booleans(), batches=st.integers(1, 4))
def test_the_batch_meter_equals_charging_frame_by_frame(seed: int, window_us: int, keep: bool,
                                                        batches: int) -> None:
    rng = random.Random(seed)
    one, batched = (LoadMeter(1_000_000, window_us * 1e-6, keep_windows=keep) for _ in range(2))
    rows = _frames(rng, rng.randrange(2, 400), rng.randrange(10**7))
    start, end, bits = rows[0]
    batched.charge(start, end, bits + EXTRA)  # a batch goes to a meter that has charged a frame
    cuts = sorted(rng.randrange(1, len(rows) + 1) for _ in range(batches - 1))
    for lo, hi in zip([1, *cuts], [*cuts, len(rows)], strict=True):
        table = np.zeros((hi - lo, COLUMNS), dtype=np.int64)
        for f, (s, e, b) in enumerate(rows[lo:hi]):
            table[f, [F_START, F_END, F_BUSY, F_BITS]] = s, e - 1000 * fb.IFS_BITS, e, b
        hand_over(table, np.zeros((hi - lo, 8), dtype=np.uint8), batched, [])
    for s, e, b in rows:
        one.charge(s, e, b + EXTRA)
    assert batched.report() == one.report()
    assert (batched._open, batched._done, batched._closed_sum, batched._closed_max) == \
        (one._open, one._done, one._closed_sum, one._closed_max)
