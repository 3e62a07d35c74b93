"""numba's on-disk cache where one can be written, else compiled code kept in memory only.

numba writes its cache to NUMBA_CACHE_DIR, else to ``__pycache__`` beside the source, else to a
user-wide folder (``~/.cache``); when none is writable (a read-only install, source tree and
HOME) ``cache=True`` raises ``RuntimeError: cannot cache function`` as the module is imported.
Here the kernels are compiled without the cache instead, and one ``warning:`` line on stderr says
why and what it costs (every run compiles them again).
"""

import sys
from collections.abc import Callable
from typing import Any

import numba

_warned: list[str] = []  # the first reason, once said


def _uncached(err: RuntimeError, func: Callable[..., Any]) -> None:
    """Say once why compiled code is not cached (re-raise what is not numba's cache refusal)."""
    if not str(err).startswith("cannot cache function"):
        raise err
    if not _warned:
        _warned.append(str(err))
        print(f"warning: numba cannot cache compiled code: no writable cache folder for "
              f"{func.__code__.co_filename} (NUMBA_CACHE_DIR, __pycache__ beside the sources, "
              f"~/.cache); every run compiles its kernels again (~15 s): set NUMBA_CACHE_DIR "
              f"to a writable folder", file=sys.stderr)


def njit_cached(func: Callable[..., Any]) -> Any:
    """``numba.njit(cache=True)(func)``, or ``numba.njit(func)`` where nothing can be cached."""
    try:
        return numba.njit(cache=True)(func)
    except RuntimeError as err:
        _uncached(err, func)
        return numba.njit(func)


def cfunc_cached(signature: Any, func: Callable[..., Any]) -> Any:
    """``numba.cfunc(signature, cache=True)(func)``, or uncached where nothing can be cached."""
    try:
        return numba.cfunc(signature, cache=True)(func)
    except RuntimeError as err:
        _uncached(err, func)
        return numba.cfunc(signature)(func)


def caching() -> bool:
    """Whether compiled code is cached on disk (no cache folder refused so far)."""
    return not _warned
