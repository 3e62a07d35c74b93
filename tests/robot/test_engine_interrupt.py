"""Ctrl-C during the SPEJBL compiled engine's batch (a tap raises SIGINT while the batch hands
its frames over): the run stops after the batch is fully written back, so the report, the log
and the clock agree (GuRoo's engine: tests/robot/test_guroo_engine.py)."""

import signal
from pathlib import Path

import pytest

from servobus.bus.log_reader import read_log
from servobus.robot.assembly import Robot, RobotConfig


def test_an_interrupt_during_a_spejbl_batch_waits_for_its_write_back(tmp_path: Path) -> None:
    log = tmp_path / "i.log"
    robot = Robot(RobotConfig(log_path=str(log)))
    raised: list[int] = []

    def interrupt(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        if not raised and end > 150_000_000:  # inside the batch that covers 150 ms
            raised.append(end)
            signal.raise_signal(signal.SIGINT)

    assert robot.lean is not None
    robot.lean.taps.append(interrupt)
    with pytest.raises(KeyboardInterrupt):
        robot.run(1.0)
    report = robot.report(1.0)
    periods = report["engine_periods"]
    frames = read_log(log)
    assert raised and robot.env.now > raised[0]  # the batch ran to its end first
    assert robot.frames == len(frames) and report["ticks"] == robot.tick.sent
    assert periods["compiled"] > 10
    assert periods["compiled"] + periods["period"] == robot.tick.sent
