"""The load meter's charges from a LeanBus, batched: a frame's (start, busy until, bits) is kept
in a list and the list charged in one compiled call (``LoadMeter.charge_batch``) every
``size`` frames and whenever the meter is read (``flush``), instead of one Python call per
frame.  The meter ends in the same state as with ``LoadMeter.charge`` per frame
(tests/robot/test_guroo_speed_parts.py)."""

import numpy as np

from servobus.bus.load_meter import LoadMeter

BATCH = 4096  # frames kept before a flush (bounded memory)


class BatchedCharges:
    """A LeanBus charge (``add``) that defers a meter's charges; ``flush`` before reading it."""

    def __init__(self, meter: LoadMeter, size: int = BATCH) -> None:
        if size < 1:
            raise ValueError(f"batch size must be positive, got {size}")
        self.meter, self.size = meter, size
        self._rows: list[tuple[int, int, int]] = []

    def add(self, start: int, busy_until: int, bits: int, ok: bool = True) -> None:
        """Charge a frame: the meter's first frame and any failed one at once, the rest later."""
        if not ok or self.meter.first is None:
            self.flush()
            self.meter.charge(start, busy_until, bits, ok)
            return
        rows = self._rows
        rows.append((start, busy_until, bits))
        if len(rows) >= self.size:
            self.flush()

    def flush(self) -> None:
        """Charge every kept frame, in order."""
        if not self._rows:
            return
        frames = np.array(self._rows, dtype=np.int64)
        self._rows.clear()
        # strided columns, as the compiled engines' frame rows: one compiled charge for both
        self.meter.charge_batch(frames[:, 0], frames[:, 1], frames[:, 2])
