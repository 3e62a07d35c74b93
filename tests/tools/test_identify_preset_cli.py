"""`servobus identify --preset nxt`: the paper's Table 3 beside the emulator's models, as a
table and as JSON; the robot form of `identify` and its options stay apart from it."""

import json

import pytest

from servobus.tools.cli import main


def test_the_table_shows_the_paper_and_the_emulator_per_level(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["identify", "--preset", "nxt", "--levels", "5,4", "--seconds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("nxt: b / (z + f)") and out[1] == "Table 3 beside the emulator:"
    rows = [line.split() for line in out[3:7]]
    assert [(r[0], r[3]) for r in rows] == [("5", "paper"), ("5", "emulator"),
                                            ("4", "paper"), ("4", "emulator")]
    assert rows[0][4:8] == ["1.568", "0.02715", "1.52694", "27.7296"]
    assert out[-1].startswith("the paper's white-box constants instead: DC gain 1.905")


def test_json_holds_each_levels_models_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["identify", "--preset", "nxt", "--levels", "1,3", "--seconds", "1",
                 "--start-deg", "0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["seconds"], result["start_deg"]) == (1.0, 0.0)
    one, three = result["levels"]
    assert (one["level"], one["ts_s"], three["ts_s"]) == (1, 0.01, 0.1)
    assert set(one) >= {"paper", "emulator", "gain_error_percent", "tau_error_percent"}
    assert "paper" not in three and three["emulator"]["gain"] > 1.4
    assert result["white_box"]["dc_gain_output"] < 0.06


@pytest.mark.parametrize(("argv", "message"), [
    (["--preset", "nxt", "--levels", "0"], "--levels: '0': give power levels 1..5"),
    (["--preset", "nxt", "--levels", "1,,4"], "--levels"),
    (["--preset", "nxt", "--levels", "4,4"], "named twice"),
    (["--preset", "nxt", "--start-deg", "1"], "--start-deg: 1 is outside [0, 1)"),
    (["--preset", "nxt", "--start-deg", "nan"], "not a finite number"),
    (["--preset", "nxt", "--seconds", "0.05"], "at least 10 are needed"),
    (["--preset", "ax-12"], "--preset: invalid choice"),
    (["--preset", "nxt", "--joint", "1", "--hold", "R2"], "--joint, --hold: a robot's joint"),
    (["--levels", "1", "--joint", "1"], "--levels: only with --preset"),
    ([], "--joint N is required (or --preset nxt"),
])
def test_bad_input_is_an_error_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                                 argv: list[str], message: str) -> None:
    assert main(["identify", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
