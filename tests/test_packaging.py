"""The wheel installs everything under `servobus.*`: it lives beside a distribution that ships
top-level `tools` and `bus` packages (common names), and both keep working."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

DUMMY_PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "dummy-tools-bus"
version = "1.0"

[tool.setuptools]
packages = ["tools", "bus"]
"""

# run by the venv's python: the simulated bus through python-can's entry point, two nodes
BUS_CHECK = textwrap.dedent("""\
    import can
    import servobus
    from servobus.bus.medium import Medium
    from servobus.bus.scheduler import Environment

    medium = Medium(Environment())
    a = can.Bus(interface="servobus", channel="A", medium=medium)
    b = can.Bus(interface="servobus", channel="B", medium=medium)
    a.send(can.Message(arbitration_id=0x123, data=b"\\x01\\x02", is_extended_id=False))
    got = b.recv(timeout=0.01)
    print(hex(got.arbitration_id), got.data.hex(), servobus.__file__)
""")

DUMMY_CHECK = "import tools, bus; print(tools.WHO, bus.WHO, tools.__file__)"


def _copy(source: Path, copy: Path) -> Path:
    """The project's files in `copy` (nothing built or installed lands in the checkout)."""
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".ci-venv", "build", "*.egg-info", "__pycache__", ".*_cache",
        ".hypothesis"))
    return copy


def _pip_quietly(*argv: str) -> None:
    """This interpreter's `pip ARGV` (verbose, so the build backend's output is seen): it must
    print no Python warning (setuptools warns, e.g., about data in a folder not listed as a
    package; pip 25 and later show a backend's warnings even with --quiet)."""
    pip = subprocess.run([sys.executable, "-m", "pip", *argv, "--verbose"], check=True,
                         capture_output=True, text=True)
    warnings = re.findall(r"\w+Warning: .*", pip.stdout + pip.stderr)
    assert not warnings, warnings


def _wheel(source: Path, out: Path) -> Path:
    """`pip wheel` of a copy of `source` (no dependencies) into `out`; the wheel's path."""
    copy = _copy(source, out.parent / f"src-{source.name}-{out.name}")
    _pip_quietly("wheel", "--no-deps", "-w", str(out), str(copy))
    (wheel,) = out.glob("*.whl")
    return wheel


def _dummy(tmp: Path) -> Path:
    """A distribution whose top-level packages are `tools` and `bus`."""
    for package in ("tools", "bus"):
        (tmp / package).mkdir(parents=True)
        (tmp / package / "__init__.py").write_text(f"WHO = 'dummy {package}'\n")
    (tmp / "pyproject.toml").write_text(DUMMY_PYPROJECT)
    return tmp


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the servobus wheel and the dummy wheel installed (dependencies are
    the running interpreter's, put on the path without its .pth files, so the editable install of
    this checkout is not visible there)."""
    tmp = tmp_path_factory.mktemp("wheel")
    ours = _wheel(ROOT, tmp / "dist")
    theirs = _wheel(_dummy(tmp / "dummy"), tmp / "dist-dummy")
    prefix = tmp / "venv"
    venv.create(prefix, with_pip=True)
    python = prefix / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], check=True, capture_output=True, text=True
                               ).stdout.strip())
    ours_too = [p for p in sys.path if p.endswith("site-packages")]  # a venv's and its base's
    (site / "_dependencies.pth").write_text("\n".join(ours_too) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    str(ours), str(theirs)], check=True, capture_output=True, text=True)
    return prefix


def _run(prefix: Path, *argv: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    result = subprocess.run([str(prefix / "bin" / argv[0]), *argv[1:]], capture_output=True,
                            text=True, cwd=prefix, env=env, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_wheel_holds_only_the_servobus_package(tmp_path: Path) -> None:
    names = zipfile.ZipFile(_wheel(ROOT, tmp_path)).namelist()
    assert {name.split("/")[0] for name in names} == {"servobus", "servobus-0.1.0.dist-info"}
    packages = {name.rsplit("/", 1)[0] for name in names if name.endswith("/__init__.py")}
    assert packages == {"servobus"} | {f"servobus/{folder}" for folder in (
        "firmware", "plant", "presets", "bus", "dbc", "host", "robot", "analysis", "tools", "sweep",
        "sweeps", "robots")}
    data = [f"servobus/{path.relative_to(ROOT)}" for pattern in (
        "firmware/c/*.c", "firmware/c/*.h", "dbc/*.dbc", "host/data/*", "sweeps/*.toml",
        "sweeps/*.traj", "robots/*.toml", "robots/*.dbc") for path in ROOT.glob(pattern)]
    assert {"servobus/dbc/servobus.dbc", "servobus/firmware/c/board.c",
            "servobus/firmware/c/servo.h", "servobus/host/data/gait.traj",
            "servobus/robots/spejbl.toml", "servobus/robots/spejbl-leg.dbc"} <= set(data)
    assert {"servobus/__main__.py", *data} <= set(names)


def test_servobus_commands_work_from_the_wheel(env: Path) -> None:
    assert _run(env, "servobus", "--version").strip() == "servobus 0.1.0"
    report = json.loads(_run(env, "servobus", "busload", "--json"))
    assert report["period_s"] == 0.004 and report["models"]["stretch_6_5"]["load_pct"] > 0
    assert _run(env, "python", "-m", "servobus", "--version").strip() == "servobus 0.1.0"
    ident, data, where = _run(env, "python", "-c", BUS_CHECK).split()
    assert (ident, data) == ("0x123", "0102")
    assert where.startswith(str(env)), "servobus must come from the wheel, not this checkout"


def test_the_conflicting_packages_keep_working(env: Path) -> None:
    who_tools, _, who_bus, _, where = _run(env, "python", "-c", DUMMY_CHECK).split()
    assert (who_tools, who_bus) == ("dummy", "dummy")
    assert where.startswith(str(env))


def test_an_editable_install_prints_no_warning(tmp_path: Path) -> None:
    # quiet_setuptools (the build backend) drops setuptools' notice about the package-dir layout
    venv.create(tmp_path / "venv")
    _pip_quietly("--python", str(tmp_path / "venv" / "bin" / "python"), "install", "--no-deps",
                 "-e", str(_copy(ROOT, tmp_path / "src")))
