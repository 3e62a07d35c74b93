"""Compiled kernels with numba's on-disk cache, flushed when any source they inline changed.

numba keys its cache on the file of the compiled function alone: a change to a firmware or plant
function that the kernel inlines (``register_jitable``) would otherwise load the stale machine
code.  A digest of every source the kernel can reach is kept beside numba's index.
"""

import hashlib
import importlib.abc
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import numba

import servobus.firmware
import servobus.plant

# the folders the board kernels are built from (firmware and plant functions)
KERNEL_SOURCES = (Path(servobus.firmware.__file__).parent, Path(servobus.plant.__file__).parent)


class _NoBlas(importlib.abc.MetaPathFinder):
    """Answers numba's BLAS probe 'absent': importing scipy.linalg (for its cython_blas) fails."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name in ("scipy", "scipy.linalg"):
            raise ImportError("servobus kernels use no BLAS")


def _load_numba_target_without_blas_probe() -> None:
    """numba's CPU target probes for BLAS once, when its array functions load, by importing
    scipy.linalg (~0.3 s of every start-up); no servobus kernel calls BLAS (np.dot, linalg),
    so the probe is answered 'absent' unless scipy.linalg is already loaded."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    finder = _NoBlas()
    sys.meta_path.insert(0, finder)
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        sys.meta_path.remove(finder)


_load_numba_target_without_blas_probe()


def sources_digest(folders: Sequence[Path], patterns: Sequence[str] = ("*.py",)) -> str:
    """SHA-256 over the names and contents of the files matching `patterns` in `folders`."""
    digest = hashlib.sha256()
    for folder in folders:
        for source in sorted(p for pattern in patterns for p in folder.glob(pattern)):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def cached_njit(func: Callable[..., Any], sources: Sequence[Path] = KERNEL_SOURCES) -> Any:
    """``numba.njit(cache=True)(func)``; its cache is emptied first if `sources` changed since
    the cache was written."""
    dispatcher: Any = numba.njit(cache=True)(func)
    cache = dispatcher._cache
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
        return all(d._cache._cache_file._load_index() for d in dispatchers)
    except (AttributeError, OSError):  # another numba version: say nothing rather than guess
        return True
