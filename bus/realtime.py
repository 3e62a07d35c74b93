"""Run nodes on a real python-can bus in wall-clock time (the counterpart of attach_sim).

One loop per process: it waits in ``bus.recv`` until the next timer is due, hands frames to the
nodes, and fires timers.  Time is ``time.monotonic_ns()`` relative to the start.  A timer that a
due timer re-arms waits for the next turn of the loop, so a node that falls behind (a period
shorter than it can send) still lets the loop see frames and stop at its duration.

A run of duration D is the window [0, D] whatever the scheduling: the nodes never see a time past
D (a process preempted past the end acts at D), and the timers due within it that a late end left
are fired at the end, as long as each round of them advances in time.
"""

import heapq
import itertools
import time
from collections.abc import Callable, Sequence

import can

from servobus.bus.node import Node

LATE_NS = 1_000_000  # a timer fired this long after it was due counts as late


class RealtimeClock:
    """Wall-clock ns since start, and a timer heap served by RealtimeRunner."""

    def __init__(self) -> None:
        self._t0 = time.monotonic_ns()
        self._timers: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self.end: int | None = None  # the run's end: the nodes never see a later time

    def elapsed_ns(self) -> int:
        """Nanoseconds since the clock was made (the wall clock, past the end too)."""
        return time.monotonic_ns() - self._t0

    def now_ns(self) -> int:
        """The nodes' time: nanoseconds since the clock was made, at most the run's end."""
        now = self.elapsed_ns()
        return now if self.end is None else min(now, self.end)

    def call_at(self, at: int, action: Callable[[], None]) -> None:
        """Run `action` once the clock reaches `at`."""
        heapq.heappush(self._timers, (at, next(self._seq), action))

    def next_due(self) -> int | None:
        """When the earliest timer is due."""
        return self._timers[0][0] if self._timers else None

    def fire_due(self) -> int:
        """Run the timers due now (by the end at most), not those they arm (those wait for the
        next call); return how many of them fired more than LATE_NS after they were due."""
        now = self.elapsed_ns()
        due = []
        limit = now if self.end is None else min(now, self.end)
        while self._timers and self._timers[0][0] <= limit:
            due.append(heapq.heappop(self._timers))
        for _, _, action in due:
            action()
        return sum(now - at > LATE_NS for at, _, _ in due)

    def drain(self) -> int:
        """At the end, fire the timers due by it that the loop left (a process preempted past
        the end), round by round while the earliest one advances (a timer re-armed at or
        before the one that armed it could never stop); return how many fired late."""
        assert self.end is not None
        late, floor = 0, -1
        while self._timers and floor < self._timers[0][0] <= self.end:
            floor = self._timers[0][0]
            late += self.fire_due()
        return late


class RealtimeRunner:
    """Drive nodes that share one real bus until a duration passes or Ctrl-C."""

    def __init__(self, bus: can.BusABC, nodes: Sequence[Node]) -> None:
        self.bus = bus
        self.nodes = list(nodes)
        self.clock = RealtimeClock()
        self.received = 0
        self.late = 0

    def run(self, duration_s: float | None = None, max_wait_s: float = 0.05) -> None:
        """Start the nodes and serve frames and timers (None: until interrupted)."""
        if duration_s is not None and not 0 < duration_s < 1e9:  # NaN fails this too
            raise ValueError(f"duration must be positive and finite, got {duration_s}")
        for node in self.nodes:
            node.start(self.bus, self.clock)
        end = None if duration_s is None else round(duration_s * 1e9)
        self.clock.end = end
        while end is None or self.clock.elapsed_ns() < end:
            now = self.clock.elapsed_ns()
            due = self.clock.next_due()
            wait = max_wait_s if due is None else max(0.0, (due - now) / 1e9)
            if end is not None:
                wait = max(0.0, min(wait, (end - now) / 1e9))
            msg = self.bus.recv(timeout=min(wait, max_wait_s))
            if msg is not None:
                self.received += 1
                for node in self.nodes:
                    node.on_message(msg)
            self.late += self.clock.fire_due()
        if end is not None:  # a process preempted past the end still fires what was due by it
            self.late += self.clock.drain()
