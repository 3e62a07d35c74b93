"""The compiled engines' frame rows (one int64 row per frame a batch sent, its payload in a
byte row beside it) and their hand-over to the LeanBus's load meter and taps, in the order the
LeanBus would have delivered them frame by frame."""

import numpy as np

from servobus.bus import frame_bits as fb
from servobus.bus.load_meter import LoadMeter
from servobus.bus.period_engine import Tap

F_START, F_END, F_BUSY, F_ID, F_SENDER, F_BITS, F_DLC = range(7)
COLUMNS = F_DLC + 1


def hand_over(frames: np.ndarray, data: np.ndarray, meter: LoadMeter, taps: list[Tap]) -> None:
    """Charge the frames to the meter in one call (on the rows' columns in place), then hand
    each to every tap in order."""
    meter.charge_batch(frames[:, F_START], frames[:, F_BUSY], frames[:, F_BITS],
                       fb.TRAILER_BITS + fb.IFS_BITS)
    if taps:
        for f, (start, end, busy, can_id, sender, _, dlc) in enumerate(frames.tolist()):
            payload = data[f, :dlc].tobytes()
            for tap in taps:
                tap(start, end, busy, can_id, payload, sender)
