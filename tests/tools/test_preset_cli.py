"""`servobus preset`: the list, a preset's check as a table and as JSON, the Markdown table;
an unknown preset is an `error:` with exit status 2."""

import json

import pytest

from servobus.presets.servos import SERVOS
from servobus.tools.cli import main


def test_list_names_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preset", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["presets"]
    assert [r["name"] for r in rows] == list(SERVOS)
    assert main(["preset", "list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in SERVOS)


def test_check_prints_the_source_beside_the_emulator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preset", "check", "sg90", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["preset"] == "sg90"
    stall = next(f for f in result["figures"] if f["figure"].startswith("stall current"))
    assert stall["source_printed"] == "0.6" and stall["agrees"] is True
    assert main(["preset", "check", "sg90"]) == 0
    out = capsys.readouterr().out
    assert "agrees" in out and "stall current at 6 V" in out and "notes:" in out


def test_table_is_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preset", "table", "sg90"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| preset | figure |")
    assert all(line.startswith("| sg90 |") for line in lines[2:])


@pytest.mark.parametrize("action", ["check", "table"])
def test_an_unknown_preset_is_an_error(action: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preset", action, "hs-5995"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown preset 'hs-5995'") and "hsr-5995tg" in err
