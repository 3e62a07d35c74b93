"""The GuRoo central node on the simulated bus, with fake boards that answer FEEDBACK."""

import math

import can
import numpy as np
import pytest

from servobus.bus.frame_bits import exact_frame_bits
from servobus.bus.medium import Medium
from servobus.bus.node import Clock, attach_sim
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema, shipped_dbc
from servobus.bus.sim_interface import SimBus
from servobus.host.guroo_central import COUNTS_PER_RAD, CentralNode
from servobus.host.guroo_trajectory import Gait, Moves, default_walk

SCHEMA = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))
MS = 1_000_000


class FakeBoard:
    """A high-power board that integrates its velocity set-points perfectly and reports the
    positions every 4 ms, until `silent_from_ns`."""

    def __init__(self, b: int, silent_from_ns: int = 10**18, status: int = 0) -> None:
        self.b, self.silent_from_ns, self.status = b, silent_from_ns, status
        self.name = f"HP_{b}"
        self.x = np.zeros(3)
        self.w = np.zeros(3)
        self.t = 0
        self.seqs: list[int] = []

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        self.bus, self.clock = bus, clock
        bus.send(SCHEMA.encode(f"ANNOUNCE_{self.b}", {f"board_{self.b}_{k}": self.b
                                                      for k in range(4)}))
        clock.call_at(4 * MS, self._feedback)

    def _advance(self) -> None:
        now = self.clock.now_ns()
        self.x += self.w * (now - self.t) / 1e9
        self.t = now

    def on_message(self, msg: can.Message) -> None:
        if msg.arbitration_id == 0x10 + self.b - 1:
            values = SCHEMA.decode(msg).values
            self._advance()
            j = 3 * (self.b - 1)
            self.w = np.array([values[f"w_{j + i}"] for i in (1, 2, 3)], dtype=float)
            self.seqs.append(int(values[f"seq_{self.b}"]))

    def _feedback(self) -> None:
        if self.clock.now_ns() >= self.silent_from_ns:
            return
        self._advance()
        j = 3 * (self.b - 1)
        values = {f"x_{j + i + 1}": 8 * round(self.x[i] / 8) for i in range(3)}
        self.bus.send(SCHEMA.encode(f"FEEDBACK_{self.b}", values | {
            f"status_{self.b}": self.status | self.b << 4}))
        self.clock.call_at(self.clock.now_ns() + 4 * MS, self._feedback)


def ramp_gait(theta: float = 0.5, duration: float = 1.0) -> Gait:
    """Joint 1 and joint 16 move by theta in `duration`, every other joint holds."""
    start = [Moves()] * 23
    start[0] = start[15] = Moves((theta,), (duration,))
    return Gait(tuple(start), tuple([Moves()] * 23))


def run(central: CentralNode, boards: list[FakeBoard], until_ns: int) -> list[can.Message]:
    medium = Medium(Environment())
    listener = SimBus(channel="LISTENER", medium=medium)
    for node in [central, *boards]:
        attach_sim(node, medium)
    medium.env.run(until=until_ns)
    frames = []
    while (m := listener.recv(0)) is not None:
        frames.append(m)
    return frames


def test_setpoints_every_2ms_with_the_right_values() -> None:
    gait = ramp_gait()
    central = CentralNode(SCHEMA, gait)
    frames = run(central, [], 101 * MS)
    sp = [m for m in frames if m.arbitration_id in range(0x10, 0x17)]
    assert len(sp) == 7 * 51 and central.broadcasts == 51  # t = 0, 2, ..., 100 ms
    vel1 = [(round(m.timestamp * 1e9) - (exact_frame_bits(0x10, bytes(m.data)) - 3) * 1000,
             SCHEMA.decode(m).values) for m in sp if m.arbitration_id == 0x10]
    for k, (_, values) in enumerate(vel1):
        t = k * 2e-3
        omega = 0.5 * (1 - math.cos(2 * math.pi * t))  # theta / T (1 - cos 2 pi t / T)
        assert values["w_1"] == 16 * round(omega * 2000 * 156 / (2 * math.pi) / 16)
        assert values["w_2"] == 0 and values["seq_1"] == k
    # the highest-priority frame starts on an idle bus at each broadcast instant
    assert [t for t, _ in vel1] == [k * 2 * MS for k in range(51)]
    servo = [SCHEMA.decode(m).values["p_16"] for m in sp if m.arbitration_id == 0x15]
    t = 0.05  # broadcast 25: the integral of omega, theta/T (t - T/(2 pi) sin(2 pi t/T))
    assert servo[25] == pytest.approx(round(0.5 * (t - math.sin(2 * math.pi * t) / (2 * math.pi))
                                            * 1000) / 1000, abs=1e-9)


def test_tracking_and_announce_with_fake_boards() -> None:
    central = CentralNode(SCHEMA, ramp_gait())
    run(central, [FakeBoard(b) for b in range(1, 6)], 400 * MS)
    report = central.report()
    assert report["boards_announced"] == [1, 2, 3, 4, 5]
    assert report["servo_faults"] == {"HP_1": 0, "HP_2": 0, "HP_3": 0, "HP_4": 0, "HP_5": 0,
                                      "SERVO_BOARD": 1}  # no servo board on this bus
    assert report["rx_faults"] == 0 and report["board_id_mismatches"] == 0
    tracking = report["tracking"]
    # the fake integrates exactly what it was sent: the error is the 8-count quantisation
    # plus the set-point's flight time (< 0.3 ms at < 2^19 cnt/s): well under 150 counts
    assert 0 < tracking["max_counts"][0] < 150 and tracking["max_counts"][1] == 0
    assert tracking["max_deg"][0] == pytest.approx(tracking["max_counts"][0] / 866.6667, rel=1e-4)
    # commanded at the last broadcast (398 ms): the closed form 0.5 (t - sin(2 pi t) / 2 pi) rad
    # to within the hold's left-Riemann error (1 ms x omega(0.398) x counts/rad ~ 45 counts)
    t = 0.398
    exact = 0.5 * (t - math.sin(2 * math.pi * t) / (2 * math.pi)) * COUNTS_PER_RAD
    assert central._commanded[0] == pytest.approx(exact, abs=60)


def test_an_announce_word_other_than_the_board_id_is_a_mismatch() -> None:
    """ANNOUNCE_3 (0x23) must carry 3 in each of its four words, ANNOUNCE_6 (0x26, the servo
    board's) 6 in its one byte: a wrong word anywhere is counted, the board not announced."""
    central = CentralNode(SCHEMA, ramp_gait())
    medium = Medium(Environment())
    attach_sim(central, medium)
    rogue = SimBus(channel="ROGUE", medium=medium)
    for can_id, data in ((0x23, b"\x03\x00\x03\x00\x03\x00\x07\x00"), (0x26, b"\x05"),
                         (0x22, b"\x02\x00\x02\x00\x02\x00\x02\x00"), (0x26, b"\x06")):
        rogue.send(can.Message(arbitration_id=can_id, data=data, is_extended_id=False))
    medium.env.run(until=3 * MS)
    report = central.report()
    assert report["board_id_mismatches"] == 2 and report["boards_announced"] == [2, 6]
    assert report["rx_faults"] == 0


def test_silent_board_detected_after_silent_after_periods_not_before() -> None:
    """HP_3's last frame is sent at 20 ms and arrives behind 9 higher-priority frames at about
    21.2 ms; with silent_after = 3 its 24, 28, 32 ms frames are missed once their deadlines pass
    (16 ms after that arrival, ~37.2 ms): the fault is counted at the 38 ms broadcast, not at
    the 36 ms one."""
    def faults(until_ms: int) -> dict[str, int]:
        central = CentralNode(SCHEMA, ramp_gait(), silent_after=3)
        boards = [FakeBoard(b, silent_from_ns=21 * MS if b == 3 else 10**18) for b in (1, 2, 3)]
        run(central, boards, until_ms * MS)
        return central.report()["servo_faults"]

    assert faults(37)["HP_3"] == 0
    later = faults(39)
    assert later["HP_3"] == 1 and later["HP_1"] == later["HP_2"] == 0
    assert faults(200)["HP_3"] == 1  # one silence, one fault


def test_trip_and_limit_bits_and_undecodable_frames() -> None:
    central = CentralNode(SCHEMA, ramp_gait())
    medium = Medium(Environment())
    attach_sim(central, medium)
    attach_sim(FakeBoard(2, status=0x3), medium)
    rogue = SimBus(channel="ROGUE", medium=medium)
    rogue.send(can.Message(arbitration_id=0x40, data=bytes(3), is_extended_id=False))
    rogue.send(can.Message(arbitration_id=0x7FF, data=bytes(1), is_extended_id=False))
    medium.env.run(until=50 * MS)
    report = central.report()
    assert report["trips_seen"]["HP_2"] == 1  # latched: one trip, not one per frame
    assert report["current_limit_frames"]["HP_2"] == 12  # 4, 8, ..., 48 ms
    assert report["rx_faults"] == 2


def test_walk_is_deterministic_and_bounded() -> None:
    def frames() -> list[bytes]:
        central = CentralNode(SCHEMA, default_walk())
        return [bytes(m.data) for m in run(central, [], 60 * MS)]

    first = frames()
    assert first == frames() and len(first) == 7 * 30
    with pytest.raises(ValueError, match="silent_after"):
        CentralNode(SCHEMA, default_walk(), silent_after=0)
