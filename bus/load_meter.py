"""Measured bus load of recorded or live traffic: exact bits per frame, rolling windows.

Every frame occupies the wire over an interval: from its start of frame to the end of its
interframe space.  A window is charged the busy time that falls inside it (a frame straddling a
window edge is split by time, in integer nanoseconds), and a frame that would begin before the
previous one ended (a log read at the wrong bit rate, or timestamp jitter) is charged from that
end on and counted as overlapping, so no window exceeds 100 %.  A logged
frame's timestamp is its end of frame, so its interval is reconstructed from its exact length
(real stuff bits).  Failed transmissions count too: on a live medium the whole attempt (frame
up to the flag, error frame, interframe space); from a log, where the aborted frame's own bits
are not recorded, an error frame's flag, delimiter and interframe space from its timestamp on.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import can

from servobus.bus import frame_bits as fb
from servobus.bus.frame_fast import stuffed_length
from servobus.bus.medium import FrameRecord
from servobus.bus.scheduler import NS_PER_S

MAX_WINDOWS = 10_000_000  # per-window loads a report lists at most


@dataclass
class LoadMeter:
    """Accumulates busy wire time into fixed windows of `window_s` seconds."""

    bitrate: int = 1_000_000
    window_s: float = 0.1
    windows: dict[int, int] = field(default_factory=dict)  # window index -> busy ns inside
    frames: int = 0
    error_frames: int = 0
    bits: int = 0
    first: int | None = None  # start of the first frame (ns): window 0 begins here
    last: int | None = None  # end of the latest busy interval (ns)
    overlapping: int = 0  # frames that began before the previous one ended (wrong bit rate?)

    def __post_init__(self) -> None:
        if not math.isfinite(self.bitrate) or self.bitrate <= 0:
            raise ValueError(f"bit rate must be positive, got {self.bitrate}")
        if not math.isfinite(self.window_s) or self.window_s * self.bitrate < 1:
            raise ValueError(f"load window must be at least one bit time "
                             f"({1e6 / self.bitrate:g} us), got {self.window_s} s")
        self._window_ns = round(self.window_s * NS_PER_S)

    def add(self, msg: can.Message, bits: int | None = None) -> None:
        """Charge one logged frame (timestamp = end of frame), or an error frame (timestamp =
        its flag); the exact length is computed unless the caller knows it."""
        at = round(msg.timestamp * NS_PER_S)
        if msg.is_error_frame:
            bits = fb.ERROR_FRAME_BITS + fb.IFS_BITS if bits is None else bits
            self.charge(at, at + self._ns(bits), bits, ok=False)
            return
        if bits is None:
            bits = stuffed_length(msg.arbitration_id, bytes(msg.data), msg.is_extended_id) + \
                fb.TRAILER_BITS + fb.IFS_BITS
        end = at + self._ns(fb.IFS_BITS)
        self.charge(end - self._ns(bits), end, bits)

    def _ns(self, bits: int) -> int:
        return bits * NS_PER_S // self.bitrate

    def tap(self, record: FrameRecord) -> None:
        """A medium tap: charge every transmission attempt with its exact time on the wire."""
        bits = (record.busy_until_ns - record.start_ns) * self.bitrate // NS_PER_S
        self.charge(record.start_ns, record.busy_until_ns, bits, ok=record.ok)

    def charge(self, start: int, end: int, bits: int, ok: bool = True) -> None:
        """The wire was busy over [start, end) ns with `bits`: split the time over windows."""
        if self.first is None:
            self.first = start
        if self.last is not None and start < self.last:
            self.overlapping += 1
            start = min(self.last, end)
        self.last = end if self.last is None else max(self.last, end)
        if ok:
            self.frames += 1
        else:
            self.error_frames += 1
        self.bits += bits
        w, origin = self._window_ns, self.first
        k = (start - origin) // w
        while True:
            hi = min(end, origin + (k + 1) * w)
            self.windows[k] = self.windows.get(k, 0) + hi - max(start, origin + k * w)
            if hi >= end:
                return
            k += 1

    def add_all(self, messages: Iterable[can.Message]) -> "LoadMeter":
        """Charge many frames; returns self."""
        for msg in messages:
            self.add(msg)
        return self

    def report(self) -> dict:
        """Overall and per-window load in percent (busy time over elapsed time)."""
        if not self.windows or self.first is None or self.last is None:
            return {"frames": 0, "error_frames": 0, "load_pct": 0.0, "windows": []}
        w = self._window_ns
        lo, hi = min(self.windows), max(self.windows)
        if hi - lo >= MAX_WINDOWS:
            raise ValueError(f"the traffic spans {(hi - lo) * self.window_s:g} s: over "
                             f"{MAX_WINDOWS:,} windows of {self.window_s:g} s (a longer window?)")
        per_window = [100.0 * self.windows.get(k, 0) / w for k in range(lo, hi + 1)]
        span = max(self.last - self.first, w)
        return {"frames": self.frames, "error_frames": self.error_frames, "bits": self.bits,
                "overlapping_frames": self.overlapping,
                "span_s": span / NS_PER_S, "load_pct": 100.0 * sum(self.windows.values()) / span,
                "window_s": self.window_s, "window_load_max_pct": max(per_window),
                "window_load_mean_pct": sum(per_window) / len(per_window),
                "windows": per_window}
