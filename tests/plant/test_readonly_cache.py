"""Environment: with no writable numba cache folder (a read-only install, source tree and HOME:
numba would raise `RuntimeError: cannot cache function` as the modules load) the kernels
compile without the cache, with one `warning:` line saying why.

Reproduced with the repository bind-mounted read-only in a private mount namespace (`unshare
-m`, root only: root ignores file modes, not a read-only mount), HOME inside it, neither
NUMBA_CACHE_DIR nor XDG_CACHE_HOME set: every folder numba tries refuses the write."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from servobus.bus.frame_fast import stuffed_length

ROOT = Path(__file__).resolve().parent.parent.parent

# every module that compiles with cache=True, then the compile-phase allocator's cfuncs and the
# bus's stuffed length called (compiled, uncached)
SCRIPT = """
import servobus.robot.engine_compiled, servobus.robot.guroo_compiled, servobus.host.host_step
import servobus.plant.board_drive, servobus.plant.rig, servobus.plant.rc_servo
from servobus.bus.frame_fast import stuffed_length
from servobus.plant.compile_speed import frame_chunks_kept
with frame_chunks_kept():
    pass
print(stuffed_length(0x101, bytes(8), False))
"""


def _read_only_run(code: str) -> subprocess.CompletedProcess:
    shell = (f"mount --bind {ROOT} {ROOT} && mount -o remount,bind,ro {ROOT} && cd {ROOT} && "
             f'exec "$0" -c "$1"')
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = str(ROOT / "docs")
    return subprocess.run(["unshare", "-m", "sh", "-c", shell, sys.executable, code],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


@pytest.fixture(scope="module")
def read_only() -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare for a read-only bind mount")
    probe = _read_only_run("import pathlib; pathlib.Path('x.tmp').write_text('')")
    if "Read-only file system" not in probe.stderr:
        pytest.skip(f"no read-only bind mount here: {probe.stderr.strip()[-200:]}")


def test_a_read_only_cache_runs_uncached_with_one_warning(read_only: None) -> None:
    done = _read_only_run(SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(stuffed_length(0x101, bytes(8), False))  # as cached
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "numba cannot cache compiled code" in warnings[0]
    assert "NUMBA_CACHE_DIR" in warnings[0] and "Traceback" not in done.stderr
