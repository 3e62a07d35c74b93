"""Both reference robots reproduce their recorded runs: the bus log byte for byte (its SHA-256)
and the report (less its wall-clock fields), for the runs `goldens.json` holds.

The goldens pin today's behaviour so that reshaping how a robot is assembled (issue 24: a robot
is a description) provably moves nothing.  Record them again only for a change meant to alter
a run, and say so in its commit:

    python tests/robot/test_goldens.py --record
"""

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

GOLDENS = Path(__file__).with_name("goldens.json")
VOLATILE = frozenset({"wall_time_s", "rtf", "compile_s", "log", "plot"})  # wall clock, paths
# name -> the command's arguments (each run with --json; those with a log also --log)
CASES: dict[str, list[str]] = {
    "spejbl-default": ["run"],
    "spejbl-faults": ["run", "--duration", "3", "--fault", "node 5 silent at 1.0s",
                      "--fault", "tick drop at 2.0s", "--fault", "host delay 3ms at 1.5s"],
    "spejbl-actions": ["run", "--duration", "4", "--do", "release 3 at 1s",
                       "--do", "freeze all at 2s", "--do", "engage 3 at 2.5s",
                       "--do", "pause at 3s", "--do", "resume at 3.5s"],
    "spejbl-reference": ["run", "--duration", "0.5", "--engine", "reference", "--seed", "4"],
    "spejbl-identify": ["identify", "--joint", "2"],
    "spejbl-limit-cycle": ["analyze", "limit-cycle", "--seconds", "6"],
    "guroo-default": ["run", "--robot", "guroo"],
    "guroo-2khz": ["run", "--robot", "guroo", "--loop", "2khz", "--duration", "2"],
    "guroo-silent-board": ["run", "--robot", "guroo", "--duration", "2",
                           "--fault", "node 3 silent at 1s"],
}
LOGGED = frozenset(name for name, args in CASES.items() if args[0] == "run")


def _steady(value: Any) -> Any:
    """A report without its wall-clock fields (at any depth)."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value


def observe(name: str, folder: Path) -> dict[str, Any]:
    """Run case `name`: its steady report and, for a run, its log's digest and line count."""
    args = [*CASES[name], "--json"]
    log = folder / f"{name}.log"
    if name in LOGGED:
        args += ["--log", str(log)]
    result = subprocess.run([sys.executable, "-m", "servobus", *args], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    seen: dict[str, Any] = {"report": _steady(json.loads(result.stdout))}
    if name in LOGGED:
        data = log.read_bytes()
        seen["log_sha256"] = hashlib.sha256(data).hexdigest()
        seen["log_lines"] = data.count(b"\n")
    return seen


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_recorded_run_is_reproduced(name: str, tmp_path: Path) -> None:
    golden = json.loads(GOLDENS.read_text())[name]
    assert observe(name, tmp_path) == golden


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        GOLDENS.write_text(json.dumps({name: observe(name, Path(scratch)) for name in CASES},
                                      indent=1, sort_keys=True) + "\n")
