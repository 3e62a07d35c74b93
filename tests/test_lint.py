"""Style and types are part of the suite: ruff and mypy must be clean.

Both run as modules of the interpreter running the tests (`python -m ruff`), so a venv's python
called by its path, not activated and so not on PATH, still uses its own tools."""

import importlib.util
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str]:
    """The command line that runs a test tool with this interpreter."""
    assert importlib.util.find_spec(name), f"{name} is a test dependency: pip install -e '.[test]'"
    return [sys.executable, "-m", name]


def test_ruff_is_clean() -> None:
    result = subprocess.run([*_tool("ruff"), "check", "--quiet", str(ROOT)], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def servobus_tree() -> Path:
    """The installed layout (``servobus/<folder>``) as symlinks to the repository's folders.

    mypy cannot follow the editable install's import hook, so it checks this tree instead; the
    mapping is read from pyproject.toml, so the tree is what a wheel holds.
    """
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    tree = ROOT / ".mypy_cache" / "servobus-tree"
    shutil.rmtree(tree, ignore_errors=True)
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        target = tree.joinpath(*package.split("."))
        target.parent.mkdir(parents=True, exist_ok=True)
        if package == "servobus":
            target.mkdir()
            for source in (ROOT / folder).glob("*.py"):
                (target / source.name).symlink_to(source)
        else:
            target.symlink_to(ROOT / folder, target_is_directory=True)
    return tree


def test_mypy_is_clean() -> None:
    tree = servobus_tree()
    result = subprocess.run(
        [*_tool("mypy"), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
         str(ROOT / ".mypy_cache"), "-p", "servobus"],
        cwd=tree, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues found in" in result.stdout
