"""Simulated time: a SimPy-style event heap keyed by (time, priority, sequence).

Time is an integer number of nanoseconds, so CAN bit times (1000 ns at 1 Mbit/s) and PWM
periods stay exact.  Events at the same instant run by priority, then in scheduling order, so a
run is deterministic.  Real-time pacing is the same loop with a sleep before each event.
"""

import heapq
import time
from collections.abc import Callable

BUS = 0  # the medium's own events: end of frame, error frame, recovery
NODE = 1  # node callbacks: timers, frame reception
ARBITRATION = 2  # the start of a frame, after everything else that happens at that instant

NS_PER_S = 1_000_000_000


class Handle:
    """What `schedule` returns: lets the caller cancel the event before it runs."""

    __slots__ = ("_entry",)

    def __init__(self, entry: list) -> None:
        self._entry = entry

    def cancel(self) -> None:
        """The event will be skipped."""
        self._entry[3] = None

    @property
    def time(self) -> int:
        """When the event is due (ns)."""
        return int(self._entry[0])


def earliest(env: "Environment", handle: Handle | None, at: int, action: Callable[[], None],
             priority: int) -> Handle:
    """One pending event that runs `action` no later than `at`: `handle` if it is due by then,
    else a new event at `at` (the later one cancelled)."""
    if handle is not None:
        if handle.time <= at:
            return handle
        handle.cancel()
    return env.schedule(at, action, priority)


class Environment:
    """The event loop of a lockstep simulation (optionally paced to wall time)."""

    def __init__(self, realtime_factor: float | None = None) -> None:
        if realtime_factor is not None and realtime_factor <= 0:
            raise ValueError(f"realtime factor must be positive, got {realtime_factor}")
        self.now = 0
        self.realtime_factor = realtime_factor
        self.running = False
        self.until: int | None = None  # the current run's limit (ns), None: no limit
        self._heap: list[list] = []  # [time, priority, seq, action or None when cancelled]
        self._seq = 0
        self._wall_start: float | None = None

    def schedule(self, at: int, action: Callable[[], None], priority: int = NODE) -> Handle:
        """Run `action` at simulated time `at` (ns, not before now)."""
        if at < self.now:
            raise ValueError(f"cannot schedule in the past: {at} < {self.now}")
        self._seq += 1
        entry = [int(at), priority, self._seq, action]
        heapq.heappush(self._heap, entry)
        return Handle(entry)

    def now_ns(self) -> int:
        """Simulated time in ns (the Clock interface shared with real-time runners)."""
        return self.now

    def call_at(self, at: int, action: Callable[[], None]) -> Handle:
        """Node-facing alias of `schedule` at node priority."""
        return self.schedule(max(at, self.now), action, NODE)

    @property
    def heap(self) -> list[list]:
        """The pending events in place, for reading only (a heap of [time, priority, seq, action
        or None when cancelled]): the LeanBus checks its head per frame without a call."""
        return self._heap

    def peek(self) -> int | None:
        """Time of the next pending event, or None when there is none."""
        heap = self._heap
        while heap and heap[0][3] is None:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def step(self) -> bool:
        """Run the next event; False when nothing is pending."""
        if self.peek() is None:
            return False
        at, _, _, action = heapq.heappop(self._heap)
        if self.realtime_factor is not None:
            self._pace(at)
        self.now = at
        action()
        return True

    def run(self, until: int | None = None, stop: Callable[[], bool] | None = None) -> None:
        """Run events up to and including time `until` (ns), or until `stop()` is true."""
        self.running = True
        self.until = until
        try:
            while stop is None or not stop():
                nxt = self.peek()
                if nxt is None or (until is not None and nxt > until):
                    break
                self.step()
            if until is not None and (stop is None or not stop()):
                self.now = max(self.now, until)
        finally:
            self.running = False
            self.until = None

    def advance(self, at: int) -> None:
        """Move the clock to `at` inside an event that computes what happens until then inline
        (the period engine's stretch of frames), paced to wall time like ``step``."""
        if self.realtime_factor is not None:
            self._pace(at)
        self.now = at

    def _pace(self, at: int) -> None:
        assert self.realtime_factor is not None
        if self._wall_start is None:
            self._wall_start = time.perf_counter() - self.now / NS_PER_S / self.realtime_factor
        target = self._wall_start + at / NS_PER_S / self.realtime_factor
        delay = target - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
