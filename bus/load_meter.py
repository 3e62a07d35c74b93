"""Measured bus load of recorded or live traffic: exact bits per frame, rolling windows.

Every frame occupies the wire over an interval: from its start of frame to the end of its
interframe space.  A window is charged the busy time that falls inside it (a frame straddling a
window edge is split by time, in integer nanoseconds), and a frame that would begin before the
previous one ended (a log read at the wrong bit rate, or timestamp jitter) is charged from that
end on and counted as overlapping, so no window exceeds 100 %.  A logged frame's timestamp is
its end of frame, so its interval is reconstructed from its exact length (real stuff bits; a
CAN FD frame's data phase at the bus's data bit rate, ``BitTiming.frame_ns``).  Failed
transmissions count too: on a live medium the whole attempt (frame up to the flag, error
frame, interframe space); from a log, where the aborted frame's own bits are not recorded, an
error frame's flag, delimiter and interframe space from its timestamp on.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import can
import numpy as np

from servobus.bus import frame_bits as fb
from servobus.bus.bit_timing import BitTiming
from servobus.bus.frame_fast import stuffed_length
from servobus.bus.medium import FrameRecord
from servobus.bus.scheduler import NS_PER_S

LOG_STAMP_NS = 1000  # a log timestamp's resolution: candump's microsecond
MAX_WINDOWS = 10_000_000  # per-window loads a report lists at most
Gaps = list[tuple[int, float]]  # (empty windows before, load % of the window after them)


@dataclass
class LoadMeter:
    """Accumulates busy wire time into fixed windows of `window_s` seconds, on a bus of
    `bitrate` (nominal) and `data_bitrate` (a CAN FD bus's data phase; None: classic CAN)."""

    bitrate: int = 1_000_000
    window_s: float = 0.1
    keep_windows: bool = True  # list every window's load in the report (else summary only)
    data_bitrate: int | None = None
    frames: int = 0
    error_frames: int = 0
    bits: int = 0
    first: int | None = None  # start of the first frame (ns): window 0 begins here
    last: int | None = None  # end of the latest busy interval (ns)
    overlapping: int = 0  # frames that began before the previous one ended (wrong bit rate?)
    busy_ns: int = 0  # busy time charged over all windows
    _open: dict[int, int] = field(default_factory=dict, init=False, repr=False)  # index -> ns
    _done: int = field(default=0, init=False)  # windows below this index are closed
    _lo: int = field(default=0, init=False)  # lowest and highest window index charged (a
    _hi: int | None = field(default=None, init=False)  # late frame can charge 0 ns before 0)
    _closed_sum: float = field(default=0.0, init=False)  # closed windows' load %, in order
    _closed_max: float = field(default=0.0, init=False)
    _closed: list[float] = field(default_factory=list, init=False, repr=False)  # kept load %

    def __post_init__(self) -> None:
        if not math.isfinite(self.bitrate) or self.bitrate <= 0:
            raise ValueError(f"bit rate must be positive, got {self.bitrate}")
        if not math.isfinite(self.window_s) or self.window_s * self.bitrate < 1:
            raise ValueError(f"load window must be at least one bit time "
                             f"({1e6 / self.bitrate:g} us), got {self.window_s} s")
        self._window_ns = round(self.window_s * NS_PER_S)
        self.timing = BitTiming(self.bitrate, self.data_bitrate)

    def add(self, msg: can.Message) -> None:
        """Charge one logged frame (timestamp = end of frame) its exact length, or an error
        frame (timestamp = its flag) its flag, delimiter and interframe space."""
        at = round(msg.timestamp * NS_PER_S)
        if msg.is_error_frame:
            bits = fb.ERROR_FRAME_BITS + fb.IFS_BITS
            self.charge(at, at + self._ns(bits), bits, ok=False)
            return
        end = at + self._ns(fb.IFS_BITS)
        if msg.is_fd:
            if not self.timing.fd:
                raise ValueError(f"a CAN FD frame (ID 0x{msg.arbitration_id:X}, at "
                                 f"{msg.timestamp:.6f} s) on a classic CAN bus "
                                 f"({self.timing.describe()}): its load needs the bus's data "
                                 "bit rate")
            length_ns, fd_bits = self.timing.wire(msg)
            self._charge_logged(end, length_ns, fd_bits)
            return
        bits = stuffed_length(msg.arbitration_id, bytes(msg.data), msg.is_extended_id) + \
            fb.TRAILER_BITS + fb.IFS_BITS
        self._charge_logged(end, self._ns(bits), bits)

    def _charge_logged(self, end: int, length_ns: int, bits: int) -> None:
        """Charge a logged frame its exact time, ending at `end`; one whose start lies within
        LOG_STAMP_NS of the previous frame's end, before or after it, starts there (a candump
        stamp resolves 1 us, and an FD frame at 5 Mbit/s ends on 0.2 us steps; a .blf one is a
        float of ns): back-to-back frames stay back to back, neither overlapping nor leaving
        a gap of rounding.  A frame starting earlier than that is overlapping."""
        start, last = end - length_ns, self.last
        if last is not None and abs(start - last) < LOG_STAMP_NS:
            start = last
        self.charge(start, start + length_ns, bits)

    def _ns(self, bits: int) -> int:
        return bits * NS_PER_S // self.bitrate

    def tap(self, record: FrameRecord) -> None:
        """A medium tap: charge every transmission attempt with its exact time on the wire."""
        self.charge(record.start_ns, record.busy_until_ns, record.bits, ok=record.ok)

    def charge(self, start: int, end: int, bits: int, ok: bool = True) -> None:
        """The wire was busy over [start, end) ns with `bits`: split the time over windows."""
        if self.first is None:
            self.first = start
        previous = self.last
        if previous is not None and start < previous:
            self.overlapping += 1
            start = min(previous, end)
        self.last = end if previous is None else max(previous, end)
        if ok:
            self.frames += 1
        else:
            self.error_frames += 1
        self.bits += bits
        w, origin = self._window_ns, self.first
        if previous is not None and (previous - origin) // w > self._done:
            self._close(self._gaps((previous - origin) // w))  # no more busy time before it
        k = (start - origin) // w
        while True:
            hi = min(end, origin + (k + 1) * w)
            busy = hi - max(start, origin + k * w)
            self.busy_ns += busy
            self._lo, self._hi = min(self._lo, k), k if self._hi is None else max(self._hi, k)
            if k >= self._done:  # a closed window is only ever charged 0 ns
                self._open[k] = self._open.get(k, 0) + busy
            if hi >= end:
                return
            k += 1

    def charge_batch(self, starts: np.ndarray, ends: np.ndarray, bits: np.ndarray,
                     extra_bits: int = 0) -> None:
        """``charge`` of frames i = 0.. in order (all transmitted; bits[i] + `extra_bits` each),
        in one compiled call (``bus.load_kernel``); the columns may be strided views of a frame
        table (no copies); the meter must have charged a frame before."""
        from servobus.bus import load_kernel as lk  # numba: the compiled engine's runs only

        if self.first is None or self.last is None or self._hi is None:
            raise ValueError("charge_batch needs a meter that has charged a frame")
        if not len(starts):
            return
        keys = np.zeros(lk.MAX_OPEN, dtype=np.int64)
        values = np.zeros(lk.MAX_OPEN, dtype=np.int64)
        opened = sorted(self._open)
        keys[:len(opened)] = opened
        values[:len(opened)] = [self._open[k] for k in opened]
        ints = np.array([self.first, self.last, self.overlapping, self.frames, self.bits,
                         self.busy_ns, self._done, self._lo, self._hi, self._window_ns,
                         len(opened)], dtype=np.int64)
        floats = np.array([self._closed_sum, self._closed_max])
        # a row per window closed: the batch closes windows up to its latest end's at most
        latest = max(self.last, int(ends.max()))
        gaps = np.empty(((latest - self.first) // self._window_ns - self._done + 2, 2))
        n_gaps = lk.charge_frames_c(starts, ends, bits, extra_bits, ints, floats, keys, values,
                                    gaps)
        (_, self.last, self.overlapping, self.frames, self.bits, self.busy_ns, self._done,
         self._lo, self._hi, _, n_open) = ints.tolist()
        self._closed_sum, self._closed_max = floats.tolist()
        self._open = dict(zip(keys[:n_open].tolist(), values[:n_open].tolist(), strict=True))
        if self.keep_windows:
            self._keep_rows(gaps[:n_gaps])

    def _gaps(self, limit: int) -> Gaps:
        """The open windows below `limit`, in order, each after the empty ones before it."""
        out, at = [], self._done
        for k in sorted(k for k in self._open if k < limit):
            out.append((k - at, 100.0 * self._open[k] / self._window_ns))
            at = k + 1
        if limit > at:
            out.append((limit - at - 1, 0.0))
        return out

    def _close(self, gaps: Gaps) -> None:
        """Fold windows into the running figures (and the kept list) and forget them."""
        for empty, pct in gaps:
            self._done += empty + 1
            self._open.pop(self._done - 1, None)
            self._closed_sum += pct
            self._closed_max = max(self._closed_max, pct)  # every load is >= 0.0
            if self.keep_windows:
                self._keep(empty, pct)

    def _keep(self, empty: int, pct: float) -> None:
        """List a closed window after the empty ones before it (up to MAX_WINDOWS)."""
        if len(self._closed) < MAX_WINDOWS:
            self._closed.extend([0.0] * min(empty, MAX_WINDOWS))
            self._closed.append(pct)

    def _keep_rows(self, gaps: np.ndarray) -> None:
        """``_keep`` of each (empty, load %) row in order: one extend when no empty windows
        come between them and the list stays below MAX_WINDOWS."""
        if len(self._closed) + len(gaps) < MAX_WINDOWS and not gaps[:, 0].any():
            self._closed.extend(gaps[:, 1].tolist())
            return
        for empty, pct in gaps.tolist():
            self._keep(int(empty), pct)

    def add_all(self, messages: Iterable[can.Message]) -> "LoadMeter":
        """Charge many frames; returns self."""
        for msg in messages:
            self.add(msg)
        return self

    def report(self) -> dict:
        """Overall and per-window load in percent (busy time over elapsed time)."""
        if self._hi is None or self.first is None or self.last is None:
            return {"frames": 0, "error_frames": 0, "load_pct": 0.0, "windows": []}
        w, lo, hi = self._window_ns, self._lo, self._hi
        if self.keep_windows and hi - lo >= MAX_WINDOWS:
            raise ValueError(f"the traffic spans {(hi - lo) * self.window_s:g} s: over "
                             f"{MAX_WINDOWS:,} windows of {self.window_s:g} s (a longer window?)")
        tail = self._gaps(hi + 1)
        total, top = self._closed_sum, self._closed_max
        for _, pct in tail:
            total += pct
            top = max(top, pct)
        span = max(self.last - self.first, w)
        report: dict[str, Any] = {
            "frames": self.frames, "error_frames": self.error_frames, "bits": self.bits,
            "overlapping_frames": self.overlapping,
            "span_s": span / NS_PER_S, "load_pct": 100.0 * self.busy_ns / span,
            "window_s": self.window_s, "window_load_max_pct": top,
            "window_load_mean_pct": total / (hi - lo + 1)}
        if self.keep_windows:
            report["windows"] = [0.0] * -lo + self._closed + \
                [x for empty, pct in tail for x in [0.0] * empty + [pct]]
        return report
