"""The compiled loop reads the DBC's signal scales, offsets and ranges and arbitrates by its IDs,
and checks the STATUS layout and transmitters it assumes: a schema with an offset current or
reordered IDs runs compiled and equal to the reference path; one with a moved STATUS bit or
another transmitter falls back to the period engine (and still equals the reference path)."""

import re
from pathlib import Path

import pytest

from servobus.bus import schema as schema_module
from servobus.robot import assembly
from tests.robot.test_engine_compiled import assert_equal


def _schema_with(tmp: Path, monkeypatch: pytest.MonkeyPatch, *edits: tuple[str, str]) -> None:
    """Robots built from now on read the shipped DBC with `edits` (regex, replacement)."""
    text = schema_module.default_dbc().read_text()
    for pattern, repl in edits:
        text, count = re.subn(pattern, repl, text, flags=re.M)
        assert count > 0, pattern
    path = tmp / "edited.dbc"
    path.write_text(text)
    monkeypatch.setattr(assembly, "Schema", lambda: schema_module.Schema(path))


def test_an_offset_actuation_current_runs_compiled(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """iw = raw * 2^-12 + 0.25 A: the host encodes, the boards decode, with the offset."""
    _schema_with(tmp_path, monkeypatch, (r"(SG_ iw_\d+ : \d+\|16@1- \(0\.000244140625,)0\) "
                                         r"\[-8\|7\.999755859375\]",
                                         r"\g<1>0.25) [-7.75|8.249755859375]"))
    _, report = assert_equal(tmp_path, 0.25, seed=2)
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 55


@pytest.mark.parametrize("edit", [
    (r"\b769\b", "200"),  # STATUS_1 below the MEAS: sent between the TICK and the MEAS
    (r"\b34\b", "31"),  # ACTUATION_3 before ACTUATION_1
    (r"\b257\b", "271")])  # MEAS_1 after MEAS_12: the host computes after MEAS_1
def test_other_arbitration_orders_run_compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               edit: tuple[str, str]) -> None:
    _schema_with(tmp_path, monkeypatch, edit)
    _, report = assert_equal(tmp_path, 0.25, seed=2)
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 55


@pytest.mark.parametrize(("edit", "why"), [
    ((r"(SG_ over_current_\d+ : )8\|", r"\g<1>13|"), "the STATUS layout"),
    ((r"(BO_ 34 ACTUATION_3: 8) HOST", r"\g<1> JOINT_1"), "transmitters")])
def test_a_changed_schema_falls_back_to_the_period_engine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str],
        why: str) -> None:
    _schema_with(tmp_path, monkeypatch, edit)
    _, report = assert_equal(tmp_path, 0.25, seed=2)
    assert report["engine"] == "period" and why in report["engine_fallback"]
