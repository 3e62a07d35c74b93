"""Issue 9, supervision: boards time out a silent or stalled host and the report says so; host
windows are never negative; local-P runs no host PID."""

import heapq

import can
import cantools
import numpy as np

from servobus.bus.schema import Schema
from servobus.host.host_node import HostNode
from servobus.host.pid import PidBank
from servobus.host.trajectory import Player, default_gait
from servobus.robot.assembly import Robot, RobotConfig

SCHEMA = Schema()
JOINTS = [f"JOINT_{j}" for j in range(1, 13)]


def test_silenced_host_times_out_every_joint_and_status_shows_it(tmp_path) -> None:
    log = tmp_path / "run.log"
    robot = Robot(RobotConfig(faults=["silence HOST at 0.5s"], log_path=str(log)))
    robot.run(0.9)
    report = robot.report(1.0)
    assert report["actuation_timeouts"] == dict.fromkeys(JOINTS, 1)
    assert report["actuation_timed_out_at_end"] == JOINTS
    db = cantools.database.load_file("dbc/servobus.dbc")
    watchdog = {}
    for msg in can.LogReader(str(log)):
        if 0x301 <= msg.arbitration_id <= 0x30C:
            j = msg.arbitration_id - 0x300
            watchdog.setdefault(j, []).append(
                (round(msg.timestamp, 1), db.decode_message(msg.arbitration_id, msg.data)
                 [f"watchdog_{j}"]))
    # STATUS every 100 ms: bit clear while the host talks, set once it has been silent 12 ms
    assert all(w == [(0.1, 0), (0.2, 0), (0.3, 0), (0.4, 0), (0.5, 0), (0.6, 1), (0.7, 1),
                     (0.8, 1)] for w in watchdog.values()), watchdog


def test_stalled_host_times_out_then_recovers() -> None:
    robot = Robot(RobotConfig(faults=["host delay 50ms at 0.3s"]))
    robot.run(0.6)
    report = robot.report(1.0)
    assert report["actuation_timeouts"] == dict.fromkeys(JOINTS, 1)
    assert report["actuation_timed_out_at_end"] == []
    assert report["deadline_misses"] == 1 and report["slips"] > 0


def test_healthy_run_has_no_timeouts_and_local_p_runs_no_pid() -> None:
    robot = Robot(RobotConfig(mode="local-p"))
    robot.run(0.4)
    report = robot.report(1.0)
    assert report["actuation_timeouts"] == {} and report["actuation_timed_out_at_end"] == []
    assert report["current_limit_events"] == 0
    assert all(np.all(r.current == 0.0) for r in robot.host.records)
    assert robot.host.controller.saturated.sum() == 0  # never stepped


def test_host_windows_are_never_negative_under_a_babbler() -> None:
    robot = Robot(RobotConfig(faults=["babble 0x001 at 0.2s for 50ms"]))
    robot.run(0.5)
    sup = robot.host.supervisor
    assert sup.deadline_misses > 10  # the babbler really hurt
    assert min(sup.windows_ns) >= 0 and min(sup.used_ns) >= 200_000  # compute time at least


class FakeClock:
    """A hand-driven clock: frames and timers happen when the test says."""

    def __init__(self) -> None:
        self.now = 0
        self.timers: list[tuple[int, int, object]] = []

    def now_ns(self) -> int:
        return self.now

    def call_at(self, at: int, action) -> None:
        heapq.heappush(self.timers, (at, len(self.timers), action))

    def advance(self, to: int) -> None:
        while self.timers and self.timers[0][0] <= to:
            at, _, action = heapq.heappop(self.timers)
            self.now = at
            action()
        self.now = to


def test_a_frame_arriving_as_the_busy_host_finishes_waits_behind_the_queued_tick() -> None:
    """Real-time ordering: a late measurement is handled at the instant the host stops being
    busy, before the host's own timer drains the backlog holding the next tick."""
    host = HostNode(SCHEMA, PidBank(np.tile([0.01, 0.001, 0.0], (12, 1))),
                    Player(default_gait()), extra_delay=lambda now: 3_000_000)
    clock = FakeClock()
    host.start(None, clock)  # type: ignore[arg-type]
    host.bus = type("Bus", (), {"send": lambda self, msg: None})()
    tick = lambda seq: SCHEMA.encode("TICK", {"seq": seq})  # noqa: E731
    meas = lambda j: SCHEMA.encode(f"MEAS_{j}", {f"position_{j}": 512})  # noqa: E731
    host.on_message(tick(0))
    for j in range(1, 12):  # joint 12 is late
        clock.advance(100_000 + j * 70_000)
        host.on_message(meas(j))
    clock.advance(4_000_000)  # measurement phase ended at 2 ms; the host is busy until 5.2 ms
    host.on_message(tick(1))
    clock.now = 5_200_000
    host.on_message(meas(12))  # before the 5.2 ms timer fires
    clock.advance(5_200_000)
    sup = host.supervisor
    # window: last measurement in time (joint 11 at 0.87 ms) to tick 1; used: 2 ms to 5.2 ms
    assert list(sup.windows_ns) == [3_130_000] and list(sup.used_ns) == [3_200_000]
    assert sup.deadline_misses == 1 and sup.servo_faults == {12: 1}
    assert sup.arrived == {12}  # counted in period 1, where it arrived
