"""`servobus robot check|dbc|list`: summaries, generated DBCs, the shipped list, and a bad
description as `error: FILE: key: what` with exit status 2."""

import json
from pathlib import Path

import cantools
import pytest

from servobus.tools.cli import main
from tests.robot.test_robot_dbc import description

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def test_list_names_the_shipped_robots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["robot", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["joints"], r["nodes"], r["period_ms"], r["dbc"]) for r in rows] == [
        ("guroo", 23, 7, 2.0, "guroo.dbc"), ("guroo-arm", 8, 4, 2.0, "guroo-arm.dbc"),
        ("nxt-joint", 1, 3, 4.0, "nxt-joint.dbc"), ("sg90-arm", 3, 5, 4.0, "sg90-arm.dbc"),
        ("spejbl", 12, 14, 4.0, "servobus.dbc"), ("spejbl-fd", 12, 14, 4.0, "spejbl-fd.dbc"),
        ("spejbl-leg", 6, 8, 4.0, "spejbl-leg.dbc"),
        ("spejbl-leg-ax12", 6, 8, 4.0, "spejbl-leg-ax12.dbc")]
    assert main(["robot", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "shipped robots:" and [line.split()[0] for line in lines[2:]] == \
        ["guroo", "guroo-arm", "nxt-joint", "sg90-arm", "spejbl", "spejbl-fd", "spejbl-leg",
         "spejbl-leg-ax12"]


def test_check_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["robot", "check", "spejbl-leg", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["joints"], summary["bitrate"], summary["period_s"]) == (6, 1_000_000, 0.004)
    assert summary["nodes"]["host"] == ["HOST"] and Path(summary["dbc"]).name == "spejbl-leg.dbc"
    assert main(["robot", "check", str(ROBOTS / "guroo.toml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("robot guroo: ok\n")
    assert "  hp-board     [HP_1, HP_2, HP_3, HP_4, HP_5]\n" in out


def test_dbc_writes_a_file_once_then_only_with_force(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    toml, dbc = tmp_path / "r.toml", tmp_path / "robot.dbc"
    toml.write_text(description(7))
    assert main(["robot", "dbc", str(toml), "--out", str(dbc)]) == 0
    assert capsys.readouterr().out == f"wrote {dbc} (r7: 7 joints)\n"
    assert len(cantools.database.load_file(str(dbc)).messages) == 2 + 2 * 2 + 4 * 7
    dbc.write_text("mine")
    assert main(["robot", "dbc", str(toml), "--out", str(dbc)]) == 2
    assert capsys.readouterr().err == f"error: {dbc} exists: give --force to overwrite it\n"
    assert dbc.read_text() == "mine"
    assert main(["robot", "dbc", str(toml), "--out", str(dbc), "--force"]) == 0
    assert main(["robot", "check", str(toml)]) == 0


def test_dbc_to_stdout_is_the_committed_leg_dbc(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["robot", "dbc", "spejbl-leg"]) == 0
    assert capsys.readouterr().out == (ROBOTS / "spejbl-leg.dbc").read_text()


def test_a_cyclic_robots_dbc_is_generated(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["robot", "dbc", "guroo-arm"]) == 0
    assert capsys.readouterr().out == (ROBOTS / "guroo-arm.dbc").read_text()


def test_a_bad_description_is_an_error_naming_file_and_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml = tmp_path / "r.toml"
    toml.write_text(description(3).replace('name = "B2", id = 2', 'name = "B2", id = 1'))
    for action in ("check", "dbc"):
        assert main(["robot", action, str(toml)]) == 2
        assert capsys.readouterr().err == f"error: {toml}: nodes[3].id: 1 is also nodes[2]'s " \
                                          "(B1)\n"
    toml.write_text("name = [")
    assert main(["robot", "check", str(toml)]) == 2
    assert capsys.readouterr().err == f"error: {toml}: line 1: invalid value (at its end): " \
                                      "not TOML\n"


def test_new_writes_a_checked_robot_and_its_dbc(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`robot new`: a description of N joints whose generated DBC has a MEAS per joint and an
    ACTUATION per four joints; an existing file is kept unless --force."""
    assert main(["robot", "new", "arm", "--joints", "5", "--out", str(tmp_path)]) == 0
    assert "(5 joints," in capsys.readouterr().out
    db = cantools.database.load_file(str(tmp_path / "arm.dbc"))
    names = {m.name for m in db.messages}
    assert {f"MEAS_{j}" for j in range(1, 6)} <= names and "MEAS_6" not in names
    assert {"ACTUATION_1", "ACTUATION_2"} <= names and "ACTUATION_3" not in names
    assert main(["robot", "check", str(tmp_path / "arm.toml")]) == 0
    capsys.readouterr()
    assert main(["robot", "new", "arm", "--joints", "3", "--out", str(tmp_path)]) == 2
    assert "exists: give --force" in capsys.readouterr().err
    assert main(["robot", "new", "one", "--joints", "1", "--out", str(tmp_path)]) == 0
    assert "(1 joint," in capsys.readouterr().out


def test_new_with_a_data_bit_rate_writes_a_can_fd_robot(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`robot new --data-bitrate 5M`: every message of the DBC an FD frame, 1/5 Mbit/s; the
    description says so and checks."""
    assert main(["robot", "new", "fd", "--joints", "3", "--data-bitrate", "5M", "--out",
                 str(tmp_path)]) == 0
    capsys.readouterr()
    assert "data_bitrate = 5000000" in (tmp_path / "fd.toml").read_text()
    db = cantools.database.load_file(str(tmp_path / "fd.dbc"))
    assert all(m.is_fd for m in db.messages)
    assert db.dbc is not None and db.dbc.attributes["BaudrateCANFD"].value == 5_000_000
    assert main(["robot", "check", str(tmp_path / "fd.toml"), "--json"]) == 0
    assert "CAN FD" in json.loads(capsys.readouterr().out)["bit_timing"]


@pytest.mark.parametrize(("args", "expected"), [
    (["--joints", "3", "--data-bitrate", "500k"], "--data-bitrate 500000: data bit time 2000 ns "
     "is outside"),
    (["--joints", "3", "--period", "8ms"], "divides its boards' 100 ms STATUS cycle"),
    (["--joints", "128", "--period", "1ms"], "more than the period of 1 ms"),
    (["--joints", "0"], "--joints"),
])
def test_new_refuses_a_robot_that_cannot_run_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
        expected: str) -> None:
    out = tmp_path / "out"
    assert main(["robot", "new", "bad", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expected in err
    assert not out.exists()
