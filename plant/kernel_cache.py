"""Compiled kernels with numba's on-disk cache, flushed when any source they inline changed.

numba keys its cache on the file of the compiled function alone: a change to a firmware or plant
function that the kernel inlines (``register_jitable``) would otherwise load the stale machine
code.  A digest of every source the kernel can reach is kept beside numba's index.
"""

import hashlib
import importlib.abc
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from numba.core.caching import NullCache

import servobus.firmware
import servobus.plant
from servobus.bus.numba_cache import njit_cached
from servobus.plant.compile_speed import share_scope_copies

# the folders the board kernels are built from (firmware and plant functions)
KERNEL_SOURCES = (Path(servobus.firmware.__file__).parent, Path(servobus.plant.__file__).parent)


class _Hidden(importlib.abc.MetaPathFinder):
    """Answers imports of `names` 'absent' (ImportError) while it sits on ``sys.meta_path``."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name in self.names:
            raise ImportError(f"servobus kernels do not use {name}")


# numba's lazily loaded target modules and the optional libraries each probes for at load:
# numba.np.arraymath imports scipy.linalg for its cython_blas (~0.3 s), the typing of CFFI
# functions builds a cffi.FFI (~30 ms, pycparser); no servobus kernel calls BLAS or CFFI.
# numba module -> (the library it probes for, the names answered 'absent' while it loads)
OPTIONAL_PROBES = {"numba.np.arraymath": ("scipy.linalg", frozenset({"scipy", "scipy.linalg"})),
                   "numba.core.typing.cffi_utils": ("cffi", frozenset({"cffi"}))}


def _load_numba_target_without_probes() -> None:
    """Load the probing numba modules with their optional library answered 'absent', unless the
    module or the library is already loaded (then numba has it as usual)."""
    for module, (probed, hidden) in OPTIONAL_PROBES.items():
        if module in sys.modules or probed in sys.modules:
            continue
        finder = _Hidden(hidden)
        sys.meta_path.insert(0, finder)
        try:
            importlib.import_module(module)
        finally:
            sys.meta_path.remove(finder)


_load_numba_target_without_probes()
share_scope_copies()

# sources_digest's results per (folders, patterns): the files' names, times and sizes when
# hashed, and the digest; kept only if every file was older than RACY_S then
Stats = list[tuple[str, int, int]]
_DIGESTS: dict[tuple[tuple[Path, ...], tuple[str, ...]], tuple[Stats, str]] = {}
RACY_S = 2.0  # a file changed this recently may change again within its mtime's granularity


def sources_digest(folders: Sequence[Path], patterns: Sequence[str] = ("*.py",)) -> str:
    """SHA-256 over the names and contents of the files matching `patterns` in `folders`; the
    files are read again only when one's name, time or size moved since this process last read
    them, or one was written within RACY_S of that (each dispatcher asks; one stat per file)."""
    key = (tuple(folders), tuple(patterns))
    files = [p for folder in folders
             for p in sorted(p for pattern in patterns for p in folder.glob(pattern))]
    stats = [(p.name, *_time_size(p)) for p in files]
    if key in _DIGESTS and _DIGESTS[key][0] == stats:
        return _DIGESTS[key][1]
    started = time.time_ns()
    digest = hashlib.sha256()
    for source in files:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    if all(mtime < started - RACY_S * 1e9 for _, mtime, _ in stats):
        _DIGESTS[key] = (stats, digest.hexdigest())
    return digest.hexdigest()


def _time_size(path: Path) -> tuple[int, int]:
    """A file's modification time (ns) and size."""
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


def cached_njit(func: Callable[..., Any], sources: Sequence[Path] = KERNEL_SOURCES) -> Any:
    """``numba.njit(cache=True)(func)``; its cache is emptied first if `sources` changed since
    the cache was written (without a writable cache folder: uncached, ``bus.numba_cache``)."""
    dispatcher: Any = njit_cached(func)
    cache = dispatcher._cache
    if isinstance(cache, NullCache):  # nothing can be cached here (njit_cached warned)
        return dispatcher
    stamp = Path(cache.cache_path) / f"{func.__module__}.{func.__qualname__}.sources"
    digest = sources_digest(sources)
    with suppress(OSError):
        if stamp.exists() and stamp.read_text() == digest:
            return dispatcher
    cache.flush()
    with suppress(OSError):
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    return dispatcher


def is_cached(*dispatchers: Any) -> bool:
    """Whether numba's on-disk cache holds compiled code for every one of `dispatchers` (else
    their first call compiles, ~15 s for the board kernels)."""
    try:
        return all(not isinstance(d._cache, NullCache) and d._cache._cache_file._load_index()
                   for d in dispatchers)
    except (AttributeError, OSError):  # another numba version: say nothing rather than guess
        return True
