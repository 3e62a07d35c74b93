"""Ctrl-C during a compiled engine's batch (a tap raises SIGINT while the batch hands its frames
over): the run stops only after the batch is fully written back, so the report, the log and the
clock agree — both robots' engines (before: the log short of the frames counted, periods counted
but not run, the clock behind the nodes)."""

import signal
from pathlib import Path
from typing import Any

import pytest

from servobus.bus.log_reader import read_log
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.robot_file import load as load_robot

GUROO_FILE = load_robot("guroo")


def _spejbl(log: Path) -> tuple[Any, Any]:
    robot = Robot(RobotConfig(log_path=str(log)))
    return robot, lambda: robot.tick.sent  # periods: ticks sent


def _guroo(log: Path) -> tuple[Any, Any]:
    robot = DescribedRobot(GUROO_FILE, DescribedConfig(log_path=str(log)))
    return robot, lambda: robot.nodes["CENTRAL"].broadcasts  # type: ignore[attr-defined]


@pytest.fixture
def ctrl_c_raises():
    """Python's own SIGINT handler for the test: a shell starts a background job with SIGINT
    ignored, and then Python installs none (the interrupt would never arrive)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("ctrl_c_raises")
@pytest.mark.parametrize("build", [_spejbl, _guroo], ids=["spejbl", "guroo"])
def test_an_interrupt_during_a_batch_waits_for_its_write_back(tmp_path: Path, build) -> None:
    log = tmp_path / "i.log"
    robot, periods_run = build(log)
    raised: list[int] = []

    def interrupt(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        if not raised and end > 150_000_000:  # inside the batch that covers 150 ms
            raised.append(end)
            signal.raise_signal(signal.SIGINT)

    assert robot.lean is not None
    robot.lean.taps.append(interrupt)
    with pytest.raises(KeyboardInterrupt):
        robot.run(1.0)
    periods = robot.report(1.0)["engine_periods"]
    frames = read_log(log)
    assert raised and robot.env.now > raised[0]  # the batch ran to its end first
    assert robot.frames == len(frames) and round(frames[-1].timestamp * 1e9) <= robot.env.now
    assert periods["compiled"] > 10 and periods["compiled"] + periods["period"] == periods_run()
