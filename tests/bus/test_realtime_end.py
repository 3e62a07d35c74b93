"""A real-time run of duration D is the window [0, D] however late the process runs: on a fake
monotonic clock that a stall throws past the end, every timer due by D still fires, and at a
time no later than D (the CI failures were wall-clock races at the end of a run)."""

from types import SimpleNamespace

import can
import pytest

from servobus.bus import realtime
from servobus.bus.node import Clock
from servobus.bus.realtime import RealtimeRunner
from servobus.bus.schema import Schema
from servobus.bus.tick_node import TickNode
from tests.bus.test_realtime_defects import EarlyWakeBus, PreemptedTime

MS = 1_000_000


class StallBus(can.BusABC):
    """recv waits its timeout out on the fake clock; the wait that reaches `stall_at` ends
    `stall` ns late (the process was descheduled); send records (time, seq) of a TICK."""

    def __init__(self, clock: list[int], stall_at: int, stall: int) -> None:
        super().__init__(channel="fake")
        self.clock, self.stall_at, self.stall = clock, stall_at, stall
        self.sent: list[tuple[int, int]] = []
        self.schema = Schema()

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        self.sent.append((self.clock[0], int(self.schema.decode(msg).values["seq"])))

    def recv(self, timeout: float | None = None) -> can.Message | None:
        self.clock[0] += round((timeout or 0) * 1e9)
        if self.stall and self.clock[0] >= self.stall_at:
            self.clock[0] += self.stall
            self.stall = 0
        return None

    def _recv_internal(self, timeout: float | None):
        raise NotImplementedError  # recv is overridden


class GridNode:
    """A node with a 4 ms timer re-armed on its own grid (as the GuRoo boards' feedback): it
    records the time it sees at each firing."""

    name = "GRID"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        self.clock = clock
        clock.call_at(4 * MS, self.fire)

    def fire(self) -> None:
        self.seen.append(self.clock.now_ns())
        self.clock.call_at(4 * MS * (len(self.seen) + 1), self.fire)

    def on_message(self, msg: can.Message) -> None:
        """No traffic."""


def _fake_time(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    clock = [0]
    monkeypatch.setattr(realtime, "time", SimpleNamespace(monotonic_ns=lambda: clock[0]))
    return clock


def test_a_grid_timer_preempted_past_the_end_still_fires_every_time_due_by_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait for the 152 ms timer ends 110 ms late, at 262 ms: the timers of 152..200 ms
    fire at the end (the loop used to fire one of them), each seeing a time no later than the
    200 ms end."""
    clock = _fake_time(monkeypatch)
    node = GridNode()
    RealtimeRunner(StallBus(clock, stall_at=152 * MS, stall=110 * MS), [node]).run(0.2)
    assert len(node.seen) == 50  # 4, 8, ..., 200 ms
    assert node.seen[:37] == [4 * MS * k for k in range(1, 38)]  # on time up to 148 ms
    assert node.seen[37:] == [200 * MS] * 13  # late, at the end: never at 262 ms
    assert clock[0] == 262 * MS


@pytest.mark.parametrize("duration_s", [0.2, 0.205])
def test_a_time_trigger_preempted_past_the_end_accounts_for_exactly_the_ticks_due_by_it(
        monkeypatch: pytest.MonkeyPatch, duration_s: float) -> None:
    """The wait for tick 20 (200 ms, due by either end) ends 65 ms late: tick 20 goes out at
    265 ms as tick 20, not as the tick of 260 ms with six after-the-end ticks counted as
    skipped (was 27 for 205 ms), nor left out when due exactly at the end (was 20 for 200 ms)."""
    clock = _fake_time(monkeypatch)
    bus = StallBus(clock, stall_at=200 * MS, stall=65 * MS)
    tick = TickNode(Schema(), period_ns=10 * MS)
    RealtimeRunner(bus, [tick]).run(duration_s)
    bus.shutdown()
    assert [k for _, k in bus.sent] == list(range(21))
    assert [t for t, _ in bus.sent] == [10 * MS * k for k in range(20)] + [265 * MS]
    assert (tick.sent, tick.ticks_skipped) == (21, 0)


def test_a_tick_due_exactly_at_the_end_is_sent_when_the_end_check_comes_late(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait for the 200 ms tick (the end) wakes 0.1 ms early, and the process is preempted
    for 6 ms before the end check: the tick due at the end is still sent, as tick 20 (it was
    left out; decisions.md: the tick due exactly at the end is sent)."""
    fake = PreemptedTime(stall=6 * MS)
    monkeypatch.setattr(realtime, "time", fake)
    bus = EarlyWakeBus(fake, stall_at=200 * MS)
    tick = TickNode(Schema(), period_ns=10 * MS)
    RealtimeRunner(bus, [tick]).run(0.2)
    bus.shutdown()
    assert fake.now > 200 * MS and [k for _, k in bus.sent] == list(range(21))
    assert tick.ticks_skipped == 0
