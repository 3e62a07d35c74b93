"""ci/vcan_guest.py replaces /tmp in the guest with a fresh tmpfs: what the command needs from
the host's /tmp (a venv, its packages, editable sources, the working directory) is mounted
back, read from the init script it writes."""

import importlib.util
import os
import re
import subprocess
import tempfile
import venv
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = Path("/usr/lib/uml/modules/6.1/kernel")  # only written into the script
MOUNT = re.compile(r"mount -t hostfs none (\S+) -o \1 ")


def _load() -> ModuleType:
    """ci/vcan_guest.py, a script outside the package."""
    spec = importlib.util.spec_from_file_location("vcan_guest", ROOT / "ci" / "vcan_guest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vcan_guest = _load()


@pytest.fixture(scope="module")
def fake() -> Iterator[Path]:
    """Under /tmp: a venv (no pip) whose site-packages adds `pth_src` through a .pth file and
    maps package `fake` to `editable/fake` through a setuptools-style editable finder, a script
    `tool` in its bin, and folders `run`, `work` and `unused` beside it."""
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="vcan-guest-test-") as tmp:
        root = Path(tmp)
        venv.create(root / "venv", with_pip=False, symlinks=True)
        for folder in ("pth_src", "editable/fake", "run", "work", "unused"):
            (root / folder).mkdir(parents=True)
        (site,) = (root / "venv" / "lib").glob("python3*/site-packages")
        (site / "extra.pth").write_text(f"{root / 'pth_src'}\n")
        (site / "__editable___fake_0_1_finder.py").write_text(
            f"MAPPING = {{'fake': {str(root / 'editable' / 'fake')!r}}}\n")
        (site / "__editable__.fake-0.1.pth").write_text("import __editable___fake_0_1_finder\n")
        tool = root / "venv" / "bin" / "tool"
        tool.write_text(f"#!{root / 'venv' / 'bin' / 'python'}\nprint('tool')\n")
        tool.chmod(0o755)
        yield root


def _binds(script: str) -> list[Path]:
    """The folders an init script mounts from the host."""
    return [Path(path) for path in MOUNT.findall(script)]


def _expected(root: Path) -> list[Path]:
    return [root / "editable" / "fake", root / "pth_src", root / "run", root / "venv",
            root / "work"]


@pytest.mark.parametrize("program", ["python", "tool"])
def test_the_commands_venv_under_tmp_is_mounted_back(fake: Path, program: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(fake / "work")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    script = vcan_guest.init_script(fake / "run", MODULES, 1,
                                    [str(fake / "venv" / "bin" / program), "-m", "pytest"])
    binds = _binds(script)
    assert sorted(b for b in binds if b.is_relative_to(fake)) == _expected(fake)
    assert not any(a != b and a.is_relative_to(b) for a in binds for b in binds)
    assert all(b.is_relative_to("/tmp") for b in binds)
    assert script.index("mount -t tmpfs tmpfs /tmp") < script.index("mount -t hostfs")


def test_the_runners_own_venv_under_tmp_is_mounted_back(fake: Path) -> None:
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "import vcan_guest; print(vcan_guest.init_script(Path(sys.argv[2]), "
            "Path('/m'), 1, ['true']))")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    script = subprocess.run([str(fake / "venv" / "bin" / "python"), "-c", code,
                             str(ROOT / "ci"), str(fake / "run")], cwd=fake / "work", env=env,
                            capture_output=True, text=True, check=True).stdout
    assert sorted(b for b in _binds(script) if b.is_relative_to(fake)) == _expected(fake)
    assert f"export VIRTUAL_ENV={fake / 'venv'}\n" in script


def test_binds_are_existing_folders_under_tmp_each_once_outermost(fake: Path) -> None:
    paths = [str(fake / "venv" / "bin" / "python"), str(fake / "venv"), str(fake / "venv"),
             str(fake / "pth_src"), str(fake / "missing"), "/usr/lib", str(fake / "editable"),
             str(fake / "editable" / "fake")]
    assert vcan_guest.tmp_binds(paths) == [fake / "editable", fake / "pth_src", fake / "venv"]
    assert vcan_guest.tmp_binds([str(fake / "venv" / "pyvenv.cfg")]) == [fake / "venv"]


def test_a_command_that_is_not_python_probes_nothing(fake: Path) -> None:
    env = {"PATH": f"{fake / 'venv' / 'bin'}:/usr/bin:/bin"}
    assert vcan_guest.command_python("sh", env) is None
    assert vcan_guest.command_python("tool", env) == str(fake / "venv" / "bin" / "python")


def test_every_vcan_carries_can_fd(tmp_path: Path) -> None:
    """Each vcan is given CAN FD's MTU before it comes up: FD frames pass on it."""
    script = vcan_guest.init_script(tmp_path, MODULES, 2, ["true"])
    for i in range(2):
        add, mtu = f"ip link add dev vcan{i} type vcan", f"ip link set vcan{i} mtu 72"
        assert script.index(add) < script.index(mtu) < script.index(f"ip link set up vcan{i}")
