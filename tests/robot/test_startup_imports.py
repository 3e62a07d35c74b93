"""Start-up of `servobus run` (issue 11 item 6): what a default run loads before it ends, and
the kernels' source digests read once per process."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servobus.plant import kernel_cache
from servobus.plant.kernel_cache import RACY_S, sources_digest

# optional libraries numba probes for while its target loads, and the progress bar's tqdm:
# none is used by a `--json` run (cffi + pycparser ~30 ms, tqdm ~20 ms, scipy.linalg ~0.3 s)
UNUSED = ("cffi", "pycparser", "tqdm", "scipy.linalg")  # packages, and one module

PROBE = f"""\
import sys
from servobus.tools.cli import main
assert main(["run", "--duration", "0.004", "--json"]) == 0
print(" ".join(sorted(n for n in sys.modules
                      if any(n == u or n.startswith(u + ".") for u in {UNUSED!r}))))
import cffi
print(cffi.FFI().sizeof("int"))
"""


def test_a_json_run_loads_no_probed_library_nor_the_progress_bar() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    assert out[-3] == "", out[-3].split()[:8]
    assert out[-2] == "4"  # cffi itself stays importable after the kernels loaded


def test_a_run_with_its_progress_bar_still_shows_it() -> None:
    result = subprocess.run([sys.executable, "-m", "servobus", "run", "--duration", "0.2"],
                            check=True, capture_output=True, text=True)
    assert "0.2/0.2 sim s" in result.stderr


def _old_sources(folder: Path, count: int = 3) -> None:
    """`count` source files last written well before RACY_S ago."""
    past = time.time() - 10 * RACY_S
    for k in range(count):
        (folder / f"m{k}.py").write_text(f"x = {k}\n")
        os.utime(folder / f"m{k}.py", (past, past))


def test_settled_sources_are_read_once_per_process(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _old_sources(tmp_path)
    reads: list[Path] = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: reads.append(p) or read_bytes(p))
    first = sources_digest([tmp_path])
    assert len(reads) == 3
    assert [sources_digest([tmp_path]) for _ in range(5)] == [first] * 5
    assert len(reads) == 3  # the dispatchers after the first ask without reading


def test_a_source_written_just_now_is_read_every_time(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Within its mtime's granularity a file can change without its size or mtime showing it:
    such a folder is not remembered, so the change is seen (and the kernel's cache flushed)."""
    _old_sources(tmp_path)
    (tmp_path / "m1.py").write_text("x = 7\n")  # same size, written now
    before = sources_digest([tmp_path])
    (tmp_path / "m1.py").write_text("x = 8\n")
    assert sources_digest([tmp_path]) != before
    monkeypatch.setattr(kernel_cache, "_DIGESTS", {})
    _old_sources(tmp_path)
    assert sources_digest([tmp_path]) == sources_digest([tmp_path]) != before


def test_a_settled_source_edited_later_in_the_process_is_read_again(tmp_path: Path) -> None:
    """An edit after the process first hashed the folder (a module imported later, a reload)
    moves the file's time or size: the folder is read again and the digest moves."""
    _old_sources(tmp_path)
    first = sources_digest([tmp_path])
    (tmp_path / "m1.py").write_text("x = 17\n")
    past = time.time() - 5 * RACY_S
    os.utime(tmp_path / "m1.py", (past, past))
    assert sources_digest([tmp_path]) != first
