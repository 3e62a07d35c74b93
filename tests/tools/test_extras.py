"""Extras (issue 23 item 4): a command that needs a missing extra says which and how to install
it, before it runs; the core install runs the robot.  An installed package is hidden from a
fresh interpreter the way a missing one looks: `None` in sys.modules, so both `import` and
`importlib.util.find_spec` see no module."""

import subprocess
import sys
from pathlib import Path

import pytest

# hide the listed modules, then run the command line on the remaining arguments
PROBE = """\
import sys
hidden, argv = sys.argv[1].split(","), sys.argv[2:]
for name in hidden:
    sys.modules[name] = None
from servobus.tools.cli import main
sys.exit(main(argv))
"""
PLOT = ["matplotlib"]
SWEEP = ["dask", "distributed", "pyarrow"]


def _servobus(hidden: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE, ",".join(hidden), *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("hidden", "argv", "message"), [
    (PLOT, ["run", "--robot", "guroo", "--plot", "x.png"],
     "servobus run --plot needs the plot extra: pip install 'servobus[plot]'"),
    (PLOT, ["step", "--plot", "x.png"],
     "servobus step --plot needs the plot extra: pip install 'servobus[plot]'"),
    (PLOT, ["analyze", "limit-cycle", "--plot", "x.png"],
     "servobus analyze limit-cycle --plot needs the plot extra: pip install 'servobus[plot]'"),
    (["pyarrow"], ["sweep", "alpha-scan"],
     "servobus sweep alpha-scan needs the sweep extra: pip install 'servobus[sweep]'"),
    (PLOT, ["sweep", "alpha-scan", "--plot", "x.png"],
     "servobus sweep alpha-scan --plot needs the plot extra: pip install 'servobus[plot]'"),
    ([*PLOT, "dask"], ["--debug", "sweep", "alpha-scan", "--workers", "1", "--plot", "x.png"],
     None),  # --debug: the same error as a traceback
    (PLOT + SWEEP, ["sweep", "alpha-scan", "--plot", "x.png"],
     "servobus sweep alpha-scan --plot needs the plot and sweep extras: "
     "pip install 'servobus[plot,sweep]'"),
])
def test_a_missing_extra_is_an_error_before_anything_runs(
        hidden: list[str], argv: list[str], message: str | None, tmp_path: Path) -> None:
    result = _servobus(hidden, argv, tmp_path)
    if message is None:
        assert result.returncode == 1 and "ServobusError: servobus sweep alpha-scan --plot " \
            "needs the plot and sweep extras" in result.stderr.splitlines()[-1]
    else:
        assert (result.returncode, result.stderr) == (2, f"error: {message}\n")
    assert result.stdout == "" and list(tmp_path.iterdir()) == []  # no report, no file


def test_the_core_install_runs_the_robot(tmp_path: Path) -> None:
    result = _servobus(PLOT + SWEEP, ["run", "--duration", "0.02", "--no-progress"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ticks" in result.stdout and list(tmp_path.iterdir()) == []

