"""python-can's own back-to-back suite (``test/back2back_test.py`` of the installed python-can's
source distribution, fetched with pip at test time and cached) run on the ``servobus`` interface.

The sdist is kept in $SERVOBUS_CACHE or ~/.cache/servobus, subfolder python-can; without it and
without a package index to fetch it from, the module is skipped, saying so.  python-can's suite
decides itself what it skips (``test_timestamp`` on CI, its two ``is_rx`` drafts).  Both of its
cases run: ``Back2BackTestCase`` and ``TestThreadSafeBus`` (100 threads sending 1,000 frames
through a 64-frame transmit queue, which a wall-clock channel's ``send`` waits on, as
python-can's buses block, and 100 threads receiving).
"""

import importlib
import importlib.util
import os
import subprocess
import sys
import tarfile
import tempfile
import warnings
from pathlib import Path
from types import ModuleType

import can
import pytest

PACKAGE = "python_can_sdist_tests"  # the sdist's test folder, imported under this name
PIP_TIMEOUT_S = 300


def _cache_dir() -> Path:
    root = os.environ.get("SERVOBUS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "servobus")
    return Path(root) / "python-can"


def _sdist_tests(version: str) -> Path:
    """The test folder of python-can `version`'s sdist: unpacked from the cache, downloaded with
    pip into it first when missing (skips the module when pip cannot)."""
    unpacked = _cache_dir() / f"python_can-{version}" / "test"
    if (unpacked / "back2back_test.py").is_file():
        return unpacked
    _cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=_cache_dir()) as tmp:
        try:
            got = subprocess.run(
                [sys.executable, "-m", "pip", "download", f"python-can=={version}",
                 "--no-binary", ":all:", "--no-deps", "--disable-pip-version-check", "-d", tmp],
                capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
            said = (got.stderr or got.stdout).strip().splitlines()[-1:] if got.returncode else []
        except subprocess.TimeoutExpired:
            said = [f"no answer within {PIP_TIMEOUT_S} s"]
        archives = list(Path(tmp).glob("python_can-*.tar.gz"))
        if said or not archives:
            pytest.skip(f"python-can {version}'s sdist could not be fetched (pip download: "
                        f"{(said or ['no archive'])[0]})", allow_module_level=True)
        with tarfile.open(archives[0]) as sdist:
            prefix = f"python_can-{version}/test/"
            members = [m for m in sdist.getmembers()
                       if m.name.startswith(prefix) and m.name.endswith(".py")]
            sdist.extractall(tmp, members=members, filter="data")
        target = unpacked.parent
        if not target.exists():  # another run may have unpacked it meanwhile
            (Path(tmp) / target.name).rename(target)
    return unpacked


def _back2back() -> ModuleType:
    """python-can's back2back_test module (its relative imports resolved in its own folder)."""
    folder = _sdist_tests(can.__version__)
    package = importlib.util.spec_from_file_location(
        PACKAGE, folder / "__init__.py", submodule_search_locations=[str(folder)])
    assert package is not None and package.loader is not None
    module = importlib.util.module_from_spec(package)
    sys.modules[PACKAGE] = module
    package.loader.exec_module(module)
    with warnings.catch_warnings():  # its thread-safe case marks pytest-timeout limits
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        return importlib.import_module(f"{PACKAGE}.back2back_test")


B2B = _back2back()


class TestServobusBack2Back(B2B.Back2BackTestCase):  # type: ignore[misc]
    """Two standalone buses on one wall-clock channel, as python-can runs ``virtual``."""

    INTERFACE_1 = "servobus"
    CHANNEL_1 = "back2back"
    INTERFACE_2 = "servobus"
    CHANNEL_2 = "back2back"


class TestServobusThreadSafeBus(B2B.TestThreadSafeBus):  # type: ignore[misc]
    """The same two buses as ``can.ThreadSafeBus``, sent to and read from by 100 threads each."""

    INTERFACE_1 = "servobus"
    CHANNEL_1 = "back2back"
    INTERFACE_2 = "servobus"
    CHANNEL_2 = "back2back"
