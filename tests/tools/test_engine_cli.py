"""`servobus run --engine`: the compiled engine by default, the reference path on request or for
what only it runs, and a clear error when the engine is asked for that."""

import json

import pytest

from servobus.tools.cli import main


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["run", "--duration", "0.05", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_engine_by_default_and_reference_on_request(capsys) -> None:
    engine = _report(capsys)
    reference = _report(capsys, "--engine", "reference")
    assert engine["engine"] == "compiled" and reference["engine"] == "reference"
    assert "engine_fallback" not in engine and "engine_fallback" not in reference
    assert engine["ticks"] == reference["ticks"] == 13
    assert engine["tracking_rms_lsb"] == reference["tracking_rms_lsb"]


def test_bus_fault_falls_back_under_auto_and_is_an_error_for_compiled(capsys) -> None:
    out = _report(capsys, "--fault", "babble 0x001 at 10ms for 1ms")
    assert out["engine"] == "reference" and "bus-level faults" in out["engine_fallback"]
    assert main(["run", "--duration", "0.05", "--engine", "period", "--fault",
                 "node 3 silent at 10ms"]) == 2
    assert "error: engine period: bus-level faults" in capsys.readouterr().err
    assert main(["run", "--duration", "0.05", "--engine", "compiled", "--fault",
                 "node 3 silent at 10ms"]) == 2
    assert "error: engine compiled: bus-level faults" in capsys.readouterr().err


def test_robot_faults_the_engine_runs(capsys) -> None:
    out = _report(capsys, "--engine", "period", "--fault", "tick drop at 20ms")
    assert out["engine"] == "period" and out["slips"] == 1
