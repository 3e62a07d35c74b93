"""The time-trigger node: a TICK every period with the 8-bit sequence number (SPEC 1.1).

Its crystal is modelled: tick k is due at offset + k * period * (1 + drift_ppm / 1e6) plus a
seeded uniform jitter in [-jitter, +jitter].  ``skip_at_ns`` lists instants whose tick is not
sent (a dropped tick, for fault runs; counted in ``skipped``).

A time trigger never bursts: a tick that fires late (a stalled process, a slow ``send``) goes out
as the newest tick already due, and the older ones it overtook are not sent at all (counted in
``ticks_skipped``).  Tick k always carries sequence number k mod 256 and the next tick keeps the
absolute grid, so the host sees the gap as slips and the trigger stops with its run.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import can

from servobus.bus.node import Clock, send_or_count
from servobus.bus.schema import TICK, Schema
from servobus.firmware.time_trigger import tick_sequence


@dataclass
class TickNode:
    """Sends TICK frames on its own clock."""

    schema: Schema
    period_ns: int = 4_000_000
    offset_ns: int = 0
    drift_ppm: float = 0.0
    jitter_ns: int = 0
    seed: int = 0
    skip_at_ns: list[int] = field(default_factory=list)
    name: str = "TIME_TRIGGER"
    sent: int = 0
    skipped: int = 0
    ticks_skipped: int = 0
    tx_faults: int = 0

    def __post_init__(self) -> None:
        if self.period_ns <= 0:
            raise ValueError(f"tick period must be positive, got {self.period_ns} ns")
        self._rng = random.Random(self.seed)
        self._k = 0
        self._jitter = 0
        self._bus: can.BusABC | None = None
        self._clock: Clock | None = None
        # what the tick timer calls: `fire` unless an engine takes the ticks over (it then
        # sends some itself and reports them with `sent_by_engine`)
        self.on_due: Callable[[], None] = self.fire

    def due(self, k: int) -> int:
        """Nominal time of tick k on this node's crystal (ns), before jitter."""
        return self.offset_ns + round(k * self.period_ns * (1.0 + self.drift_ppm * 1e-6))

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Arm the first tick."""
        self._bus, self._clock = bus, clock
        self._arm()

    def on_message(self, msg: can.Message) -> None:
        """The time trigger listens to nothing."""

    def _arm(self) -> None:
        assert self._clock is not None
        jitter = self._rng.randint(-self.jitter_ns, self.jitter_ns) if self.jitter_ns else 0
        self._jitter = jitter
        # at its own instant even if that has passed (a slow send): the clock fires a past timer
        # at once, and a real-time run that ends meanwhile still fires it if it was due within
        self._clock.call_at(self.due(self._k) + jitter, lambda: self.on_due())

    def _newest_due(self, t: int) -> int:
        """The newest tick k >= the armed one whose nominal time is not after t."""
        k = max(self._k, int((t - self.offset_ns) // (self.period_ns *
                                                       (1.0 + self.drift_ppm * 1e-6))))
        while k > self._k and self.due(k) > t:
            k -= 1
        while self.due(k + 1) <= t:
            k += 1
        return k

    def next_due(self) -> int:
        """When the armed tick's timer fires (its nominal time and jitter)."""
        return self.due(self._k) + self._jitter

    @property
    def armed(self) -> int:
        """The number of the tick armed next (k: its sequence number is k mod 256)."""
        return self._k

    def sent_by_engine(self, n: int) -> None:
        """An engine sent the next n ticks on this node's behalf: count them, arm the next."""
        self._k += n
        self.sent += n
        self._arm()

    def report(self) -> dict[str, int]:
        """Ticks sent, skipped (behind: a time trigger never bursts; or dropped by a fault) and
        frames it could not send."""
        return {"ticks_sent": self.sent, "ticks_skipped": self.ticks_skipped,
                "ticks_dropped": self.skipped, "tx_faults": self.tx_faults}

    def fire(self) -> None:
        """The tick timer: send the tick due (or skip a faulted one), arm the next."""
        assert self._bus is not None and self._clock is not None
        now = self._clock.now_ns()
        behind = self._newest_due(now - self._jitter) - self._k
        self.ticks_skipped += behind
        self._k += behind
        if any(abs(now - t) < self.period_ns // 2 for t in self.skip_at_ns):
            self.skipped += 1
        else:
            send_or_count(self._bus, self.schema.encode(TICK, {"seq": tick_sequence(self._k)}),
                          self)
            self.sent += 1
        self._k += 1
        self._arm()
