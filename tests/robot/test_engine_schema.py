"""The compiled loop reads the DBC's signal scales, offsets and ranges and arbitrates by its IDs,
and checks the STATUS layout it assumes: a description whose DBC has an offset current or
reordered IDs runs compiled and equal to the reference path; one with a moved STATUS bit falls
back to the period engine (and still equals the reference path); one whose DBC gives a host's
message to a board is refused before anything runs."""

import re
from pathlib import Path

import pytest

from servobus.bus import schema as schema_module
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.file_keys import RobotFileError
from tests.robot.test_engine_compiled import assert_equal


def _schema_with(tmp: Path, *edits: tuple[str, str]) -> str:
    """A description: SPEJBL on the shipped DBC with `edits` (regex, replacement)."""
    text = schema_module.default_dbc().read_text()
    for pattern, repl in edits:
        text, count = re.subn(pattern, repl, text, flags=re.M)
        assert count > 0, pattern
    (tmp / "edited.dbc").write_text(text)
    path = tmp / "edited.toml"
    path.write_text('base = "spejbl"\n[bus]\ndbc = "edited.dbc"\n')
    return str(path)


def test_an_offset_actuation_current_runs_compiled(tmp_path: Path) -> None:
    """iw = raw * 2^-12 + 0.25 A: the host encodes, the boards decode, with the offset."""
    robot = _schema_with(tmp_path, (r"(SG_ iw_\d+ : \d+\|16@1- \(0\.000244140625,)0\) "
                                    r"\[-8\|7\.999755859375\]",
                                    r"\g<1>0.25) [-7.75|8.249755859375]"))
    _, report = assert_equal(tmp_path, 0.25, seed=2, robot=robot)
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 55


@pytest.mark.parametrize("edit", [
    (r"\b769\b", "200"),  # STATUS_1 below the MEAS: sent between the TICK and the MEAS
    (r"\b34\b", "31"),  # ACTUATION_3 before ACTUATION_1
    (r"\b257\b", "271")])  # MEAS_1 after MEAS_12: the host computes after MEAS_1
def test_other_arbitration_orders_run_compiled(tmp_path: Path, edit: tuple[str, str]) -> None:
    _, report = assert_equal(tmp_path, 0.25, seed=2, robot=_schema_with(tmp_path, edit))
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 55


def test_a_moved_status_bit_falls_back_to_the_period_engine(tmp_path: Path) -> None:
    robot = _schema_with(tmp_path, (r"(SG_ over_current_\d+ : )8\|", r"\g<1>13|"))
    _, report = assert_equal(tmp_path, 0.25, seed=2, robot=robot)
    assert report["engine"] == "period" and "the STATUS layout" in report["engine_fallback"]


def test_a_host_message_sent_by_a_board_is_refused(tmp_path: Path) -> None:
    robot = _schema_with(tmp_path, (r"(BO_ 34 ACTUATION_3: 8) HOST", r"\g<1> JOINT_1"))
    with pytest.raises(RobotFileError, match=r"sends ACTUATION_3, whose sender in edited\.dbc "
                                             "is JOINT_1"):
        Robot(RobotConfig(robot=robot))
