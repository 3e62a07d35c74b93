"""Start-up: `servobus --help` and `servobus busload` import only what they use."""

import importlib.metadata
import subprocess
import sys

import pytest

# packages and modules `--help` and `busload` must not load (numpy: only through plant code)
HEAVY = ("scipy", "matplotlib", "numba", "numpy", "servobus.plant.rig", "servobus.robot")

# run in a fresh interpreter: the CLI, then the heavy modules it imported
PROBE = f"""\
import contextlib, io, sys
from servobus.tools.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    status = main(sys.argv[1:])
print(" ".join(sorted(n for n in sys.modules if n.startswith({HEAVY!r}))))
"""


@pytest.mark.parametrize("argv", [["--help"], ["busload"], ["busload", "--json"],
                                  ["busload", "--meas-bytes", "6"]])
def test_light_commands_do_not_import_heavy_modules(argv: list[str]) -> None:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == "", f"{argv} imported {result.stdout.split()[:8]}"


def test_every_command_is_registered_by_its_module() -> None:
    import argparse

    from servobus.tools.cli import COMMANDS, build_parser

    for name, (_, text) in COMMANDS.items():
        (sub,) = (a for a in build_parser(name)._actions
                  if isinstance(a, argparse._SubParsersAction))
        command = sub.choices[name]
        assert len(command._actions) > 1, f"{name} has no options: its module did not register it"
        assert command.description == text


def test_version_and_python_m() -> None:
    import servobus

    result = subprocess.run([sys.executable, "-m", "servobus", "--version"], capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == f"servobus {servobus.__version__}"
    assert servobus.__version__ == importlib.metadata.version("servobus")
