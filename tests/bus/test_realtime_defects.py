"""Issue 10's real-time defects, each in simulated time: a time trigger that fell behind never
bursts, the host handles ticks in arrival order and counts slips modulo 256 correctly, and a
board started long before the first tick neither simulates the gap nor lags behind it."""

import heapq
from collections.abc import Callable
from types import SimpleNamespace

import can
import numpy as np
import pytest

from servobus.bus import realtime
from servobus.bus.realtime import RealtimeRunner
from servobus.bus.schema import TICK, Schema
from servobus.bus.tick_node import TickNode
from servobus.host.host_node import HostNode
from servobus.host.pid import PidBank
from servobus.host.supervisor import Supervisor
from servobus.host.trajectory import Player, default_gait
from servobus.plant.board_bank import BoardBank
from servobus.plant.board_node import BoardNode
from servobus.plant.build import PlantOptions
from tests.fakes import ListBus

MS = 1_000_000


class SlowSendBus(can.BusABC):
    """A bus on a fake clock whose send() takes `cost` ns until `slow_until`; recv waits."""

    def __init__(self, clock: list[int], cost: int, slow_until: int) -> None:
        super().__init__(channel="fake")
        self.clock, self.cost, self.slow_until = clock, cost, slow_until
        self.sent: list[tuple[int, int]] = []  # (send start, seq)
        self.schema = Schema()

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        self.sent.append((self.clock[0], int(self.schema.decode(msg).values["seq"])))
        if self.clock[0] < self.slow_until:
            self.clock[0] += self.cost

    def recv(self, timeout: float | None = None) -> can.Message | None:
        self.clock[0] += round((timeout or 0) * 1e9)
        return None

    def _recv_internal(self, timeout: float | None):
        raise NotImplementedError  # recv is overridden


def test_a_time_trigger_behind_schedule_skips_ticks_and_stops_at_the_duration(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0]
    monkeypatch.setattr(realtime, "time", SimpleNamespace(monotonic_ns=lambda: clock[0]))
    bus = SlowSendBus(clock, cost=10 * MS, slow_until=500 * MS)  # 10 ms sends for 0.5 s
    tick = TickNode(Schema(), period_ns=4 * MS)
    RealtimeRunner(bus, [tick]).run(duration_s=1.0)
    # every tick that went out is tick k of the absolute 4 ms grid, sent within its period
    # (k counts on across the skipped ticks, so its 8-bit sequence number is k)
    bus.shutdown()
    ks = [seq for _, seq in bus.sent]  # 251 ticks: k < 256
    for (t, _), k in zip(bus.sent, ks, strict=True):
        assert 4 * MS * k <= t < 4 * MS * (k + 1)
    assert ks == sorted(set(ks))  # never two sends of a tick, never two ticks at once
    # 0.5 s of 10 ms sends carry a tick every 10 ms (51 sends: 0, 10, ..., 500 ms); the
    # 0.5 s after it are on the grid (ticks 126..250); each of the 251 ticks is sent or skipped
    assert len(bus.sent) == 51 + 125 and ks[-1] == 250
    assert tick.sent == len(bus.sent) and tick.sent + tick.ticks_skipped == 251
    assert clock[0] <= 1000 * MS  # the run ends at --duration


class FakeClock:
    """now_ns and call_at on a hand-driven time line."""

    def __init__(self) -> None:
        self.now = 0
        self.timers: list[tuple[int, int, Callable[[], None]]] = []

    def now_ns(self) -> int:
        return self.now

    def call_at(self, at: int, action: Callable[[], None]) -> None:
        heapq.heappush(self.timers, (at, len(self.timers) + id(action) % 1000, action))

    def run_until(self, t: int, before: bool = False) -> None:
        """Fire every timer due up to t (`before`: due before t), then stand at t."""
        while self.timers and self.timers[0][0] < t + (not before):
            at, _, action = heapq.heappop(self.timers)
            self.now = at
            action()
        self.now = t


def test_a_tick_arriving_as_the_busy_host_frees_up_is_handled_in_order() -> None:
    """Issue 10's scenario: the third tick arrives exactly when the host's busy time ends,
    before its send timer fires.  Handled first, it was followed by the queued older tick, which
    counted as 254 slips (ticks=3 slips=255); merged before issue 10 (4723e08)."""
    schema, clock = Schema(), FakeClock()
    host = HostNode(schema, PidBank(np.ones((12, 3))), Player(default_gait()),
                    compute_ns=2 * MS, supervisor=Supervisor(expected=frozenset({1})))
    host.start(ListBus(), clock)

    def arrive(t: int, name: str, values: dict) -> None:
        clock.run_until(t, before=True)  # the runner hands a frame over before due timers
        host.on_message(schema.encode(name, values))

    arrive(0, TICK, {"seq": 0})
    arrive(1 * MS, "MEAS_1", {"position_1": 500})  # complete: busy computing until 3 ms
    arrive(2 * MS, TICK, {"seq": 1})  # while busy: queued
    arrive(3 * MS, TICK, {"seq": 2})  # as the busy time ends: queued behind tick 1
    clock.run_until(20 * MS)
    sup = host.supervisor
    # in arrival order, the host found ticks 1 and 2 queued and jumped to the newest: one
    # period it was too slow for is one slip (SPEC 1.1); period 0's actuation went out at 3 ms,
    # after tick 1 ended it at 2 ms: one deadline miss
    assert (sup.ticks, sup.slips, sup.seq, sup.deadline_misses) == (2, 1, 2, 1)
    assert sup.ticks_out_of_order == 0


def test_slips_are_counted_modulo_256_and_an_old_tick_is_no_slip() -> None:
    sup = Supervisor(expected=frozenset({1}))
    for t, seq in enumerate([254, 255, 0, 3]):  # wraps; then ticks 1 and 2 were lost
        sup.on_tick(seq, t * 4 * MS)
    assert (sup.ticks, sup.slips) == (4, 2)
    sup.on_tick(2, 20 * MS)  # an older tick arriving after a newer one is not 255 lost ticks
    assert (sup.ticks, sup.slips, sup.seq) == (4, 2, 3)  # was (5, 256, 2)
    assert sup.ticks_out_of_order == 1
    sup.on_tick(4, 24 * MS)
    assert (sup.ticks, sup.slips, sup.seq) == (5, 2, 4)


class TickOnlyBus(ListBus):
    """A bus for a board: filters accepted and ignored."""

    def _apply_filters(self, filters) -> None:
        pass


def test_a_board_started_long_before_the_first_tick_idles_and_never_catches_up_more_than_a_period(
        ) -> None:
    schema, clock = Schema(), FakeClock()
    # the real-time commands' setting: catch up one tick period at most
    bank = BoardBank([PlantOptions(rotor="free")], [0], seed=1, max_step_ns=4 * MS)
    booted = int(bank.done[0])
    node = BoardNode(bank, 0, schema)
    bus = TickOnlyBus()
    node.start(bus, clock)
    clock.run_until(54_000 * MS)  # the board waited 54 s for the first tick
    node.on_message(schema.encode(TICK, {"seq": 0}))
    per_ms = 1_000_000 // bank.period_ns  # PWM periods per ms (20 at 20 kHz)
    assert int(bank.done[0]) - booted <= 1  # idle until the first tick: the gap is not run
    clock.run_until(54_004 * MS)
    node.on_message(schema.encode(TICK, {"seq": 1}))
    assert int(bank.done[0]) - booted in (4 * per_ms, 4 * per_ms + 1)
    clock.run_until(54_504 * MS)  # the process was descheduled for half a second
    node.on_message(schema.encode(TICK, {"seq": 2}))
    assert int(bank.done[0]) - booted in (8 * per_ms, 8 * per_ms + 1)  # one period, no more
    assert bank.skipped_ns == 54_000 * MS + 496 * MS
    meas = [m for m in bus.sent if schema.decode(m).name == "MEAS_1"]
    assert len(meas) == 3


class PreemptedTime:
    """monotonic_ns on a fake time line where the process is preempted for `stall` ns once
    `reads_to_stall` more reads have passed (between the read that fires timers and the end
    check)."""

    def __init__(self, stall: int) -> None:
        self.now, self.stall, self.reads_to_stall = 0, stall, -1

    def monotonic_ns(self) -> int:
        if self.reads_to_stall == 0:
            self.now += self.stall
        self.reads_to_stall -= 1
        return self.now


class EarlyWakeBus(SlowSendBus):
    """recv wakes 0.1 ms before a timeout over 1 ms (as a timed wait may) and, at `stall_at`,
    the process is preempted right after its next clock read."""

    def __init__(self, fake: PreemptedTime, stall_at: int) -> None:
        super().__init__([0], cost=0, slow_until=0)
        self.fake, self.stall_at = fake, stall_at

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        self.sent.append((self.fake.now, int(self.schema.decode(msg).values["seq"])))

    def recv(self, timeout: float | None = None) -> can.Message | None:
        wait = round((timeout or 0) * 1e9)
        self.fake.now += wait - 100_000 if wait > MS else wait
        if self.stall_at - MS <= self.fake.now < self.stall_at:
            self.fake.reads_to_stall = 1  # the fire_due read passes, the end check is late
        return None


def test_a_run_preempted_past_its_end_still_sends_the_ticks_due_within_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = PreemptedTime(stall=6 * MS)
    monkeypatch.setattr(realtime, "time", fake)
    bus = EarlyWakeBus(fake, stall_at=200 * MS)
    tick = TickNode(Schema(), period_ns=10 * MS)
    RealtimeRunner(bus, [tick]).run(duration_s=0.205)
    bus.shutdown()
    # ticks 0..20 are due before the end (205 ms); the stall hits just before tick 20's time
    assert fake.now >= 205 * MS and [k for _, k in bus.sent] == list(range(21))


class SendStallBus(SlowSendBus):
    """A send that starts within [stall_from, stall_from + 5 ms) takes `cost` ns."""

    def __init__(self, clock: list[int], cost: int, stall_from: int) -> None:
        super().__init__(clock, cost=0, slow_until=0)
        self.stall_cost, self.stall_from = cost, stall_from

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        super().send(msg, timeout)
        if self.stall_from <= self.clock[0] < self.stall_from + 5 * MS:
            self.clock[0] += self.stall_cost


def test_a_send_that_stalls_past_the_end_still_accounts_for_every_tick_due(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Tick 19's send (190 ms) takes 20 ms, past the end (205 ms): tick 20, due at 200 ms, is
    still fired at the end — sent late as the newest tick due, the one it overtook counted — so
    every tick due within the run is sent or skipped (the vcan0 test once counted 149 of 150)."""
    clock = [0]
    monkeypatch.setattr(realtime, "time", SimpleNamespace(monotonic_ns=lambda: clock[0]))
    bus = SendStallBus(clock, cost=20 * MS, stall_from=190 * MS)
    tick = TickNode(Schema(), period_ns=10 * MS)
    RealtimeRunner(bus, [tick]).run(duration_s=0.205)
    bus.shutdown()
    assert tick.sent + tick.ticks_skipped == 21 and [k for _, k in bus.sent][:20] == list(range(20))
