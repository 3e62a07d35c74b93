"""The RC servo board: firmware pulse widths and update counting, the slew-limited PD servos,
and the board node on the simulated bus."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from servobus.bus.medium import Medium
from servobus.bus.node import attach_sim
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema, shipped_dbc
from servobus.bus.sim_interface import SimBus
from servobus.firmware import servo_board as fw
from servobus.host.guroo_central import CentralNode
from servobus.host.guroo_trajectory import default_walk
from servobus.plant.rc_servo import RCServoBank
from servobus.plant.servo_board import ServoBoardNode
from tests.fakes import LateClock

SCHEMA = Schema(shipped_dbc("guroo.dbc"), required=("SERVO_SP_1",))
MS = 1_000_000


def test_pulse_width_by_hand() -> None:
    """1000 mrad: 1000 * 18776 / 2^15 = 572.998 -> 572 us (floored): 2072 us; -1 mrad: -0.573
    floors to -1: 1499 us; +-1048 mrad: 2100 (in range), -1048 -> 899.5 -> 899 -> clamped 900."""
    assert fw.pulse_width(1000) == (2072, False)
    assert fw.pulse_width(-1) == (1499, False)
    assert fw.pulse_width(1048) == (2100, False)
    assert fw.pulse_width(-1048) == (900, True)
    assert fw.pulse_width(32767) == (2100, True)


@given(st.integers(-32768, 32767))
def test_pulse_width_is_the_floored_q15_product_clamped(word: int) -> None:
    """Big-int truth: 1500 + floor(word * 18776 / 2^15), clamped to 900..2100 us."""
    exact = 1500 + (word * 18776) // 32768
    assert fw.pulse_width(word) == (min(max(exact, 900), 2100), not 900 <= exact <= 2100)


def test_only_changed_words_update_and_are_counted() -> None:
    ram = fw.ServoBoardRam()
    assert fw.can_setpoints(ram, 1, [0, 0, 0, 0]) == 0  # power-up words are 0: nothing changes
    assert fw.can_setpoints(ram, 1, [0, 100, 0, 0]) == 1 and ram.pulse_us[1] == 1557
    assert fw.can_setpoints(ram, 2, [5, 5, 5, -2000]) == 4 and ram.status == 0x80
    assert fw.can_setpoints(ram, 2, [5, 5, 5, 0]) == 1 and ram.status == 0
    assert ram.updates == 6
    ram.updates = 0xFFFF
    fw.can_setpoints(ram, 1, [1, 1, 1, 1])
    assert ram.updates == 3  # the 16-bit counter wraps


def test_large_step_is_slew_limited_then_settles() -> None:
    """1 rad step: at 5.2 rad/s it cannot arrive before 1 / 5.2 = 0.19 s; at 0.1 s it is at most
    0.52 rad; it reaches the torque-limited top speed (140 rad/s^2 for 37 ms) and settles."""
    bank = RCServoBank(1)
    bank.set_pulse(0, 1500 + 573)  # 1 rad
    speeds = []
    for _ in range(200):  # 0.1 s
        bank.step()
        speeds.append(bank.omega[0])
    assert bank.theta[0] <= 5.2 * 0.1 and max(speeds) == pytest.approx(5.2)
    bank.advance_to(400 * MS)
    assert bank.theta[0] == pytest.approx(1.0, abs=0.005)
    assert bank.max_error[0] == pytest.approx(1.0, abs=0.01)


def test_small_step_settles_like_the_critically_damped_pd() -> None:
    """0.05 rad (torque 0.7 N m < 1.4, speed < 5.2): theta = r (1 - (1 + wn t) e^(-wn t)),
    wn = sqrt(14 / 0.01) = 37.4 rad/s; at t = 0.1 s within 1% of that."""
    bank = RCServoBank(1)
    bank.set_pulse(0, 1500 + 29)  # 29 / 573 = 0.0506 rad
    bank.advance_to(100 * MS)
    r, wn, t = 29 / 573, np.sqrt(1400.0), 0.1
    assert bank.theta[0] == pytest.approx(r * (1 - (1 + wn * t) * np.exp(-wn * t)), rel=0.01)


def _bus() -> tuple[Medium, SimBus]:
    medium = Medium(Environment())
    return medium, SimBus(channel="LISTENER", medium=medium)


def test_node_announces_and_reports_status_every_4ms() -> None:
    medium, listener = _bus()
    node = ServoBoardNode(SCHEMA, seed=3)
    attach_sim(node, medium)
    central = SimBus(channel="CENTRAL", medium=medium)
    central.send(SCHEMA.encode("SERVO_SP_1", {"p_16": 0.1, "p_17": 0, "p_18": 0, "p_19": 0}))
    medium.env.run(until=21 * MS)
    frames = []
    while (m := listener.recv(0)) is not None:
        frames.append(m)
    assert [SCHEMA.decode(m) for m in frames[:2]] == [
        ("SERVO_SP_1", {"p_16": 0.1, "p_17": 0, "p_18": 0, "p_19": 0}),  # wins arbitration
        ("ANNOUNCE_6", {"board_6": 6})]
    status = [m for m in frames if m.arbitration_id == 0x45]
    ends = [round(m.timestamp * 1e9) for m in status]
    assert len(status) == 5 and [b - a for a, b in itertools.pairwise(ends)] == [4 * MS] * 4
    assert SCHEMA.decode(status[-1]).values == {"updates": 1, "servo_status": 0}
    assert node.report()["updates"] == 1 and node.rx_faults == 0


def test_seeded_power_up_is_deterministic() -> None:
    a, b = ServoBoardNode(SCHEMA, seed=1), ServoBoardNode(SCHEMA, seed=1)
    assert np.array_equal(a.servos.theta, b.servos.theta)
    assert not np.array_equal(a.servos.theta, ServoBoardNode(SCHEMA, seed=2).servos.theta)
    assert np.all(np.abs(a.servos.theta) <= 0.020)


def test_held_servos_report_zero_not_their_decay_residue() -> None:
    """Servos held at 0 rad from their power-up angles decay towards 0 without reaching it;
    the report gives angles to 1 urad, so they read 0.0 (not 1e-40, not -0.0)."""
    medium = Medium(Environment())
    node = ServoBoardNode(SCHEMA, seed=3)
    attach_sim(node, medium)
    medium.env.run(until=2_000 * MS)
    report = node.report()
    assert np.all(node.servos.theta != 0.0) and np.all(np.abs(node.servos.theta) < 1e-12)
    assert [(x, math.copysign(1.0, x)) for x in report["positions_rad"]] == [(0.0, 1.0)] * 8


def test_central_drives_the_servo_board_through_the_walk() -> None:
    """The walk swings the shoulders +-10 deg: every changed word is one update, the servos
    follow within the slew limit, and the central node hears SERVO_STATUS."""
    medium = Medium(Environment())
    central = CentralNode(SCHEMA, default_walk())
    board = ServoBoardNode(SCHEMA)
    attach_sim(central, medium)
    attach_sim(board, medium)
    medium.env.run(until=2_500 * MS)
    report = board.report()
    assert report["frames"] == 2 * (central.broadcasts - 1)  # the last is still on the wire
    assert 0 < report["updates"] <= 2 * central.broadcasts  # shoulders move, the rest hold
    arm = central.gait.position(2.498)[15]
    assert report["positions_rad"][0] == pytest.approx(arm, abs=0.01)
    assert report["max_tracking_error_rad"] < 0.05
    assert central.report()["servo_faults"]["SERVO_BOARD"] == 0
    assert central.report()["boards_announced"] == [6]
    assert central.servo_updates is not None and central.servo_status == 0


def test_servo_status_keeps_its_absolute_grid_when_fired_late() -> None:
    """A SERVO_STATUS sent 1 ms late does not move the next ones: 4, 8, 12 ms from boot."""
    import can

    schema = Schema(shipped_dbc("guroo.dbc"), required=("SERVO_SP_1",))
    bus = can.Bus(interface="virtual", channel="servo-grid")
    try:
        node, clock = ServoBoardNode(schema), LateClock(late=1_000_000)
        node.start(bus, clock)
        due = [clock.fire_next() for _ in range(3)]
    finally:
        bus.shutdown()
    assert due == [4_000_000, 8_000_000, 12_000_000]
