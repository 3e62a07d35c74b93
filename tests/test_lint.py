"""Style and types are part of the suite: ruff and mypy must be clean."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_is_clean() -> None:
    ruff = shutil.which("ruff")
    assert ruff, "ruff is a test dependency: pip install -e '.[test]'"
    result = subprocess.run([ruff, "check", "--quiet", str(ROOT)], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    mypy = shutil.which("mypy")
    assert mypy, "mypy is a test dependency: pip install -e '.[test]'"
    result = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
