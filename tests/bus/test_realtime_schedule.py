"""The real-time runner's tick schedule measured in simulated time: a fake monotonic clock that
advances only when the runner waits (or stalls), so the exact send times are known."""

from types import SimpleNamespace

import can
import pytest

from servobus.bus import realtime
from servobus.bus.realtime import RealtimeRunner
from servobus.bus.schema import Schema
from servobus.bus.tick_node import TickNode

MS = 1_000_000


class FakeBus(can.BusABC):
    """Records send times on the fake clock; recv waits its timeout out (plus a stall once)."""

    def __init__(self, clock: list[int], stall_at: int, stall: int) -> None:
        super().__init__(channel="fake")
        self.clock, self.stall_at, self.stall, self.sent = clock, stall_at, stall, []

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        self.sent.append(self.clock[0])

    def recv(self, timeout: float | None = None) -> can.Message | None:
        self.clock[0] += round((timeout or 0) * 1e9)
        if self.stall and self.clock[0] >= self.stall_at:
            self.clock[0] += self.stall  # the process was descheduled
            self.stall = 0
        return None

    def _recv_internal(self, timeout: float | None):
        raise NotImplementedError  # recv is overridden


def test_ticks_keep_the_absolute_schedule_after_a_stall(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0]
    monkeypatch.setattr(realtime, "time", SimpleNamespace(monotonic_ns=lambda: clock[0]))
    bus = FakeBus(clock, stall_at=25 * MS, stall=13 * MS)  # the wait to 30 ms ends at 43 ms
    RealtimeRunner(bus, [TickNode(Schema(), period_ns=10 * MS)]).run(duration_s=0.1)
    # on time to 20 ms; the overdue tick(s) of 30 (and 40) ms go out when the stall ends;
    # then back on the 10 ms grid from t = 0 (a relative re-arm would continue at 53, 63, ...)
    # up to the 100 ms end, whose tick is due at the end
    assert bus.sent[:3] == [0, 10 * MS, 20 * MS]
    assert set(bus.sent[3:-6]) == {43 * MS} and 1 <= len(bus.sent[3:-6]) <= 2
    assert bus.sent[-6:] == [50 * MS, 60 * MS, 70 * MS, 80 * MS, 90 * MS, 100 * MS]
