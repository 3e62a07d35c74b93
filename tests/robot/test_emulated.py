"""Emulated boards and the time trigger on a simulated channel, heard by a plain python-can
host: what `emulate` promises a host written by the user."""

import itertools

import can

from servobus.bus.schema import Schema
from servobus.robot.emulated import emulate


def test_a_host_hears_a_tick_and_each_measurement_every_period_and_the_announcements() -> None:
    boards = emulate("test-emulated", joints=[2, 5], seed=3)
    schema = Schema()
    host = can.Bus(interface="servobus", channel="test-emulated", node="HOST")
    try:
        heard = []
        while (msg := host.recv(timeout=0.1)) is not None and msg.timestamp < 0.0199:
            heard.append((schema.decode(msg).name, round(msg.timestamp * 1e9)))
    finally:
        host.shutdown()
    names = [name for name, _ in heard]
    # queued at boot, the announcements lose arbitration to the first period's frames
    assert names == ["TICK", "MEAS_2", "MEAS_5", "ANNOUNCE_2", "ANNOUNCE_5"] + \
        ["TICK", "MEAS_2", "MEAS_5"] * 4
    ticks = [at for name, at in heard if name == "TICK"]
    # released every 4 ms; a frame's end moves by the stuff bits of its sequence number
    # (1 µs each at 1 Mbit/s; at most 2 in one data byte)
    assert all(abs(b - a - 4_000_000) <= 2_000 for a, b in itertools.pairwise(ticks))
    assert [b.joint for b in boards] == [2, 5]
    assert all(b.rx_faults == 0 and b.tx_faults == 0 for b in boards)
