"""The compiled loop reads the DBC's signal scales, offsets and ranges, and checks the ID order
and STATUS layout it assumes: a schema with an offset current runs compiled and equal to the
reference path; one with reordered IDs or a moved STATUS bit falls back to the period engine
(and still equals the reference path)."""

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


@pytest.mark.parametrize(("edit", "why"), [
    ((r"\b769\b", "200"), "IDs in another arbitration order"),  # STATUS_1 below the MEAS
    ((r"\b34\b", "31"), "IDs in another arbitration order"),  # ACTUATION_3 before _1
    ((r"(SG_ over_current_\d+ : )8\|", r"\g<1>13|"), "the STATUS layout")])
def test_a_changed_schema_falls_back_to_the_period_engine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str],
        why: str) -> None:
    _schema_with(tmp_path, monkeypatch, edit)
    _, report = assert_equal(tmp_path, 0.25, seed=2)
    assert report["engine"] == "period" and why in report["engine_fallback"]
