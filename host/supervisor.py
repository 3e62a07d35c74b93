"""The host's cycle bookkeeping (SPEC 1.1, 4.1): servo faults, slips, host window, deadlines.

Per period k: the tick arrives; measurements arrive; the host computes and sends the actuation.
At tick k+1: every joint whose measurement of period k did not arrive is a servo fault (named);
a sequence number that is not previous + 1 mod 256 counts the lost samples as slips; an
actuation of period k not sent before tick k+1 is a deadline miss.

A tick with the previous tick's number or one up to OLD_TICKS behind it is an old tick arriving
after a newer one (a reorder or a duplicate): counted in ``ticks_out_of_order``, no period, no
slip (plain ``(seq - previous - 1) mod 256`` counted one such reorder as 254 slips).  Any other
number opens the next period with ``(seq - previous - 1) mod 256`` slips, so an outage of
240..255 lost ticks (about 1 s at 4 ms) costs at most OLD_TICKS ignored ticks.

The host window of period k is the time from its last measurement to tick k+1 (SPEC 1.1); the
part the host used runs from the instant it started computing (its last measurement, or the end
of the measurement phase when one is missing) to its actuation.  A measurement arriving after the
host started computing belongs to no window (it used to make "used" negative under a babbler),
and frames are handled in arrival order (a late frame overtaking a queued tick made a window
negative), so neither figure can be negative.  A period whose computation had not started when
tick k+1 arrived (a stalled host) has no window; it is a deadline miss.

Memory stays bounded however long the run: the window statistics come from a count of the
distinct window lengths (exact; on the lockstep simulator a handful of values), the per-period
window and used times are kept for the last ``history`` periods only (None: all, for a plot),
and the fault periods are counted with only the first FAULT_PERIODS listed.
"""

from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

from servobus.bus.schema import sequence_gap

OLD_TICKS = 16  # a tick this many numbers behind the newest one is old, not 240 lost ticks
HISTORY = 500  # periods of window / used times kept by default (2 s at 4 ms)
FAULT_PERIODS = 1_000  # fault periods listed (all are counted)
MAX_DISTINCT = 65_536  # distinct window lengths counted before they are quantised coarser


@dataclass
class Supervisor:
    """Counters and per-period records of the host cycle."""

    expected: frozenset[int] = frozenset()  # the joints heard; empty: the host's, all of them
    ticks: int = 0
    slips: int = 0
    deadline_misses: int = 0
    servo_faults: dict[int, int] = field(default_factory=dict)
    fault_periods: list[tuple[int, list[int]]] = field(default_factory=list)  # (period, joints)
    fault_period_count: int = 0
    history: int | None = HISTORY
    window_counts: Counter[int] = field(default_factory=Counter)  # window (ns) -> periods
    window_quantum_ns: int = 1  # window lengths are counted in multiples of this
    window_range_ns: tuple[int, int] | None = None  # exact (shortest, longest) host window
    used_max_ns: int = 0
    ticks_out_of_order: int = 0
    seq: int | None = None
    tick_ns: int = 0
    arrived: set[int] = field(default_factory=set)
    last_meas_ns: int | None = None
    ready_ns: int | None = None  # when the host started computing this period
    sent_ns: int | None = None

    def __post_init__(self) -> None:
        self.windows_ns: deque[int] = deque(maxlen=self.history)  # the latest host windows
        self.used_ns: deque[int] = deque(maxlen=self.history)  # the latest used times

    def on_tick(self, seq: int, now: int, ended: int | None = None) -> bool:
        """Close the previous period and open the next (True), or count an old tick (False);
        `ended` is when the previous period ended if that was earlier than `now`."""
        if self.seq is not None and sequence_gap(seq, self.seq) <= OLD_TICKS:
            self.ticks_out_of_order += 1
            return False
        if self.seq is not None:
            end = now if ended is None else ended
            missing = sorted(self.expected - self.arrived)
            if missing:
                self.fault_period_count += 1
                if len(self.fault_periods) < FAULT_PERIODS:
                    self.fault_periods.append((self.ticks - 1, missing))
                for j in missing:
                    self.servo_faults[j] = self.servo_faults.get(j, 0) + 1
            if self.sent_ns is None or self.sent_ns > end:
                self.deadline_misses += 1
            if self.ready_ns is not None and self.ready_ns <= end:
                if self.last_meas_ns is not None:
                    self._add_window(end - self.last_meas_ns)
                if self.sent_ns is not None:
                    used = self.sent_ns - self.ready_ns
                    self.used_ns.append(used)
                    self.used_max_ns = max(self.used_max_ns, used)
            self.slips += sequence_gap(self.seq, seq) - 1
        self.ticks += 1
        self.seq = seq
        self.tick_ns = now
        self.arrived = set()
        self.last_meas_ns = None
        self.ready_ns = None
        self.sent_ns = None
        return True

    def steady_periods(self, seq: int, ticks: np.ndarray, last_meas: np.ndarray,
                       compute_ns: int) -> None:
        """Periods that ran compiled, each complete (every measurement, computed, sent before
        the next tick): tick i at ticks[i] with sequence number seq + i (mod 256), its last
        measurement last_meas[i] (integer arrays), then `compute_ns` of computation from it (so
        no deadline miss).  The same figures as ``on_tick``, ``on_measurement``, ``on_compute``
        and ``on_actuation_sent`` in that order."""
        n = len(ticks)
        self.on_tick(seq, int(ticks[0]))
        if n > 1:
            self._add_window_array(ticks[1:] - last_meas[:-1])
            self.used_ns.extend([compute_ns] * len(_latest(ticks[1:], self.used_ns.maxlen)))
            self.used_max_ns = max(self.used_max_ns, compute_ns)
        self.ticks += n - 1
        self.seq = (seq + n - 1) % 256
        self.tick_ns = int(ticks[-1])
        self.arrived = set(self.expected)
        self.last_meas_ns = self.ready_ns = int(last_meas[-1])
        self.sent_ns = self.last_meas_ns + compute_ns

    def on_measurement(self, joint: int, now: int) -> bool:
        """Record a measurement; True when it completes the period's set."""
        if self.seq is None or joint in self.arrived or joint not in self.expected:
            return False
        self.arrived.add(joint)
        if self.ready_ns is None:
            self.last_meas_ns = now
        return self.arrived == self.expected

    def on_compute(self, now: int) -> None:
        """The host may compute this period's actuation from `now` on (all measurements in, or
        the measurement phase is over)."""
        if self.ready_ns is None:
            self.ready_ns = max(now, self.tick_ns)

    def on_actuation_sent(self, now: int) -> None:
        """The period's actuation went out."""
        self.sent_ns = now

    def _add_window(self, window: int) -> None:
        """Count one host window; past MAX_DISTINCT lengths, coarsen the counts 10x."""
        self.windows_ns.append(window)
        lo, hi = self.window_range_ns or (window, window)
        self.window_range_ns = (min(lo, window), max(hi, window))
        q = self.window_quantum_ns
        self.window_counts[window // q * q] += 1
        self._coarsen()

    def _add_window_array(self, windows: np.ndarray) -> None:
        """``_add_window`` of each window of a batch (a non-empty integer array) in order: the
        latest ``history`` kept, each distinct length counted once with its number, new lengths
        in order of appearance (the counter's order as one update per window).  Coarsening once
        after the batch counts the same as after each window: a length counted at quantum q and
        then coarsened to 10q lands where 10q puts it directly, and the batch reaches the same
        final quantum (more distinct lengths never fall below)."""
        self.windows_ns.extend(_latest(windows, self.windows_ns.maxlen).tolist())
        lo, hi = int(windows.min()), int(windows.max())
        if self.window_range_ns is not None:
            lo, hi = min(self.window_range_ns[0], lo), max(self.window_range_ns[1], hi)
        self.window_range_ns = (lo, hi)
        q = self.window_quantum_ns
        lengths, first, counts = np.unique(windows // q * q, return_index=True,
                                           return_counts=True)
        order = np.argsort(first, kind="stable")
        for w, c in zip(lengths[order].tolist(), counts[order].tolist(), strict=True):
            self.window_counts[w] += c
        self._coarsen()

    def _coarsen(self) -> None:
        """Past MAX_DISTINCT counted lengths, count them 10x coarser (until they fit)."""
        q = self.window_quantum_ns
        while len(self.window_counts) > MAX_DISTINCT:
            q = self.window_quantum_ns = q * 10
            coarse: Counter[int] = Counter()
            for w, n in self.window_counts.items():
                coarse[w // q * q] += n
            self.window_counts = coarse

    def window_stats(self) -> dict[str, float]:
        """min / median / max host window (s) over the closed periods (the median as
        numpy's: the mean of the two middle values of an even count)."""
        total = sum(self.window_counts.values())
        if not total or self.window_range_ns is None:
            return {"min": 0.0, "median": 0.0, "max": 0.0}
        lengths = sorted(self.window_counts)
        middle = [(total - 1) // 2, total // 2]  # ranks of the one or two middle values
        values, seen = [], 0
        for w in lengths:
            seen += self.window_counts[w]
            while middle and middle[0] < seen:
                middle.pop(0)
                values.append(w / 1e9)
        median = values[0] if total % 2 else (values[0] + values[1]) / 2
        lo, hi = self.window_range_ns
        return {"min": lo / 1e9, "median": median, "max": hi / 1e9}


def _latest(rows: np.ndarray, kept: int | None) -> np.ndarray:
    """The rows a deque of maxlen `kept` keeps of them (all when None; none when 0)."""
    return rows if kept is None else rows[max(0, len(rows) - kept):]
