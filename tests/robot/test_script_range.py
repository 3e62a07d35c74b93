"""Run-time scripts in range: a fault or operator action timed at or after the run's end is an
error before anything runs (it could never act, and the report would look as if it had), and an
unknown word of a robot-level line is named, for both robots and `bussim`."""

import pytest

from servobus.bus.faults import FaultScriptError, fit_words
from servobus.tools.cli import main


@pytest.mark.parametrize(("args", "message"), [
    (["--fault", "tick drop at 20s"], "at 20 s is not before the run's end (10 s)"),
    (["--fault", "tick drop at 9.999s"], "the tick nearest 9.999 s, at 10 s is not before"),
    (["--fault", "host delay 3ms at 10s"], "at 10 s is not before the run's end"),
    (["--fault", "node 5 silent at 11s"], "at 11 s is not before the run's end"),
    (["--fault", "silence JOINT_3 at 11s for 1ms"], "at 11 s is not before"),
    (["--fault", "corrupt 0x101 at 12s count 2"], "at 12 s is not before"),
    (["--fault", "noack 0x101 at 10s"], "at 10 s is not before"),
    (["--fault", "babble 0x001 at 30s for 1ms"], "at 30 s is not before"),
    (["--fault", "late JOINT_3 by 1ms at 10.5s"], "at 10.5 s is not before"),
    (["--do", "release 3 at 11s"], "at 11 s is not before the run's end (10 s)"),
    (["--do", "freeze all at 10s"], "at 10 s is not before"),
    (["--do", "pause at 1h"], "bad time '1h'"),
    (["--do", "scrub 0.5 at 10.001s"], "at 10.001 s is not before"),
    (["--robot", "guroo", "--fault", "node 3 silent at 11s"], "at 11 s is not before"),
    (["--robot", "guroo", "--fault", "corrupt 0x010 at 10s"], "at 10 s is not before"),
])
def test_a_script_time_after_the_run_is_an_error(capsys, args: list[str], message: str) -> None:
    assert main(["run", "--duration", "10", "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    line = args[-1]
    assert err.startswith(f"error: {'action' if args[-2] == '--do' else 'fault'} '{line}': ")
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(("args", "word"), [
    (["--fault", "node 5 explodes at 1s"], "unknown word 'explodes' where 'silent' belongs"),
    (["--fault", "node 5 silent after 1s"], "unknown word 'after' where 'at' belongs"),
    (["--fault", "node 5 silent at 1s during 2ms"], "unknown word 'during' where 'for'"),
    (["--fault", "node 5 silent at"], "missing 'T'"),
    (["--fault", "node 5 silent at 1s for"], "missing 'D'"),
    (["--fault", "node 5 silent at 1s for 2ms now"], "unexpected 'now'"),
    (["--fault", "tick skip at 1s"], "unknown word 'skip' where 'drop' belongs"),
    (["--fault", "host stall 3ms at 1s"], "unknown word 'stall' where 'delay' belongs"),
    (["--fault", "explode 5 at 1s"], "unknown fault 'explode': use node, tick, host, corrupt"),
    (["--fault", "silence JOINT_3 sometime at 1s"], "unknown part 'sometime'"),
    (["--fault", "silence JOINT_3 at 1s for"], "'for' needs a value"),
    (["--do", "explode 3 at 1s"], "unknown action 'explode': use release, engage"),
    (["--do", "release 3 after 1s"], "unknown word 'after' where 'at' belongs"),
    (["--do", "scrub 0.5 at 1s now"], "unexpected 'now'"),
    (["--robot", "guroo", "--fault", "node 3 explodes at 1s"], "unknown word 'explodes'"),
    (["--robot", "guroo", "--fault", "node x silent at 1s"], "board 'x' is not a number"),
    (["--robot", "guroo", "--fault", "tick drop at 1s"], "unknown fault 'tick': use node, "),
])
def test_an_unknown_word_is_named(capsys, args: list[str], word: str) -> None:
    assert main(["run", "--duration", "10", "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {'action' if args[-2] == '--do' else 'fault'} '{args[-1]}': ")
    assert word in err and err.count("\n") == 1


def test_bussim_refuses_a_fault_after_its_end_and_leaves_no_log(capsys, tmp_path) -> None:
    log = tmp_path / "bus.log"
    assert main(["bussim", "--duration", "1", "--log", str(log),
                 "--fault", "corrupt 0x101 at 2s"]) == 2
    assert "at 2 s is not before the run's end (1 s)" in capsys.readouterr().err
    assert not log.exists()


def test_a_script_time_inside_the_run_still_acts(capsys) -> None:
    assert main(["bussim", "--duration", "0.1", "--json",
                 "--fault", "corrupt 0x101 at 0.09s"]) == 0
    assert '"faults_injected": 1' in capsys.readouterr().out


@pytest.mark.parametrize(("line", "usage", "values"), [
    ("node 5 silent at 1s", "node N silent at T [for D]", ["5", "1s"]),
    ("node 5 silent at 1s for 2ms", "node N silent at T [for D]", ["5", "1s", "2ms"]),
    ("pause at 2s", "pause at T", ["2s"]),
])
def test_fit_words_returns_the_values(line: str, usage: str, values: list[str]) -> None:
    assert fit_words(line, usage) == values


def test_fit_words_names_the_first_word_that_does_not_fit() -> None:
    with pytest.raises(FaultScriptError, match="unknown word 'explodes' where 'silent'"):
        fit_words("node 5 explodes at 1s", "node N silent at T [for D]")
