"""Measured bus load of recorded or live traffic: exact bits per frame, rolling windows.

Each frame's exact length (real stuff bits, interframe space included) is charged to the window
holding its timestamp (end of frame).  Error frames are not in logs, so a log's load is the load
of the frames that got through.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

import can

from servobus.bus import frame_bits as fb
from servobus.bus.frame_fast import stuffed_length
from servobus.bus.medium import FrameRecord


@dataclass
class LoadMeter:
    """Accumulates frame bits into fixed windows of `window_s` seconds."""

    bitrate: int = 1_000_000
    window_s: float = 0.1
    windows: dict[int, int] = field(default_factory=dict)
    frames: int = 0
    bits: int = 0
    first: float | None = None
    last: float | None = None

    def add(self, msg: can.Message, bits: int | None = None) -> None:
        """Charge one frame (its exact length is computed unless the caller knows it)."""
        if msg.is_error_frame:
            return
        if bits is None:
            bits = stuffed_length(msg.arbitration_id, bytes(msg.data), msg.is_extended_id) + \
                fb.TRAILER_BITS + fb.IFS_BITS
        if self.first is None:
            self.first = msg.timestamp
        self.last = msg.timestamp
        k = int((msg.timestamp - self.first) // self.window_s)
        self.windows[k] = self.windows.get(k, 0) + bits
        self.frames += 1
        self.bits += bits

    def tap(self, record: FrameRecord) -> None:
        """A medium tap: charge each delivered frame with its exact bits on the wire."""
        if record.ok:
            self.add(record.msg, (record.busy_until_ns - record.start_ns) * self.bitrate //
                     1_000_000_000)

    def add_all(self, messages: Iterable[can.Message]) -> "LoadMeter":
        """Charge many frames; returns self."""
        for msg in messages:
            self.add(msg)
        return self

    def report(self) -> dict:
        """Overall and per-window load in percent."""
        if not self.frames or self.first is None or self.last is None:
            return {"frames": 0, "load_pct": 0.0, "windows": []}
        capacity = self.bitrate * self.window_s
        n = max(self.windows) + 1
        per_window = [100.0 * self.windows.get(k, 0) / capacity for k in range(n)]
        span = max(self.last - self.first, self.window_s)
        return {"frames": self.frames, "bits": self.bits, "span_s": span,
                "load_pct": 100.0 * self.bits / (self.bitrate * span),
                "window_s": self.window_s, "window_load_max_pct": max(per_window),
                "window_load_mean_pct": sum(per_window) / n, "windows": per_window}
