"""The compiled engine takes a host computation only when the period's frames at their longest
fit after it: at the edge (6-byte MEAS: 1,850 bits = 1.85 ms at 1 Mbit/s) the run still equals
the reference path, just inside compiled, at and beyond it on the period engine."""

from pathlib import Path

import pytest

from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.engine_sync import frame_budget_ns, frame_ns
from tests.robot.test_engine_compiled import assert_equal

WHY = "a host computation that may not end within the period"


def test_budget_is_the_worst_case_of_the_period_frames() -> None:
    """TICK 65 + 12 MEAS 75 (2 bytes) or 115 (6 bytes) + 3 ACTUATION or POSREF 135; STATUS 95
    bits, 1 us each at 1 Mbit/s."""
    robot = Robot(RobotConfig(meas_bytes=6))
    assert frame_ns(robot.schema, 2, False) == (1000 * (65 + 12 * 75 + 3 * 135), 95_000)
    assert frame_ns(robot.schema, 6, True) == (1_850_000, 95_000)
    assert frame_budget_ns(robot) == 1_850_000
    assert frame_budget_ns(robot, 12) == 1_850_000 + 12 * 95_000


@pytest.mark.parametrize(("compute_ns", "engine"), [
    (4_000_000 - 1_850_000 - 1, "compiled"), (4_000_000 - 1_850_000, "period"),
    (2_385_000, "period")])
def test_six_byte_measurements_at_the_budget_edge(tmp_path: Path, compute_ns: int,
                                                  engine: str) -> None:
    """2.385 ms passed the former 1.6 ms budget (64 of 113 periods compiled, equal in this run
    only because the frames were shorter than their longest: a second ACTUATION ending after
    the next tick loses to the TICK on the reference path); 0.45 s crosses four STATUS bursts,
    run in Python at the edge (the 12 STATUS frames do not fit after the computation)."""
    _, report = assert_equal(tmp_path, 0.45, meas_bytes=6, compute_ns=compute_ns, seed=4)
    assert report["engine"] == engine
    if engine == "compiled":
        assert report["engine_periods"]["compiled"] > 90
    else:
        assert WHY in report["engine_fallback"]
