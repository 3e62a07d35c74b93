"""The compile phase of `servobus run`: numba compiles before the run's clock starts.

A first run (numba's disk cache empty) compiles the kernels it calls, ~15 - 20 s; compiled inside
the run, that time would count as simulation (the report's ``rtf``).  ``warm_up`` runs a
throwaway copy of the robot for WARM_UP_S (boot, then steady periods on the compiled engine)
when a kernel the run needs has no cached code, which compiles everything its engine calls, and
``CompileClock`` measures numba's compiles: those of the phase, and any the run still meets (a
path the warm-up did not take), which the run's wall time then leaves out.
"""

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from numba.core import event

from servobus.bus.deferred_signals import undeferred
from servobus.bus.numba_cache import caching
from servobus.plant.compile_speed import frame_chunks_kept
from servobus.plant.kernel_cache import is_cached

WARM_UP_S = 0.05  # simulated: boot and about ten steady periods of either robot
COMPILING = "compiling "  # how every line of the compile phase starts


class Runs(Protocol):
    """A robot: it runs for a simulated duration."""

    def run(self, duration_s: float, chunk_s: float = ..., progress: Any = ...) -> None: ...


class CompileClock(event.Listener):
    """Wall seconds of numba's top-level compiles while installed; `say` hears each one start
    ("compiling NAME ...") and end (its seconds), on one line."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self.say = say
        self.seconds = 0.0
        self.compiles = 0
        self._depth = 0
        self._started = 0.0

    def on_start(self, ev: event.Event) -> None:
        """A compile starts (nested ones are part of the outermost)."""
        self._depth += 1
        if self._depth == 1:
            self._started = time.perf_counter()
            self.compiles += 1
            if self.say is not None:
                func = ev.data["dispatcher"].py_func
                module = func.__module__.removeprefix("servobus.")
                self.say(f"{COMPILING}{func.__qualname__} ({module}) ...")

    def on_end(self, ev: event.Event) -> None:
        """A compile ends."""
        self._depth -= 1
        if self._depth == 0:
            took = time.perf_counter() - self._started
            self.seconds += took
            if self.say is not None:
                self.say(f" {took:.1f} s\n")

    @contextmanager
    def installed(self) -> Iterator["CompileClock"]:
        """Listen to numba's compiles while the block runs."""
        with event.install_listener("numba:compile", self):
            yield self


def stderr_say(text: str) -> None:
    """Text on stderr at once (a compile line is finished by its seconds)."""
    sys.stderr.write(text)
    sys.stderr.flush()


def warm_up(make: Callable[[], Runs], needed: Sequence[Any],
            say: Callable[[str], None] | None) -> float:
    """Compile what a run needs: if any of the dispatchers `needed` has no cached code, run
    the robot `make` builds for WARM_UP_S (its compiles announced to `say`); the seconds it
    took (0.0 when all is cached)."""
    if is_cached(*needed):
        return 0.0
    started = time.perf_counter()
    robot = make()  # first: a bad fault or action is an error before anything is announced
    if say is not None:
        say(f"{COMPILING}the kernels of this run ("
            + ("first run only: numba caches them on disk" if caching() else
               "every run: numba cannot cache them here") + ")\n")
    # undeferred: Ctrl-C stops the throwaway run inside a compile, not ~15 s later
    with frame_chunks_kept(), CompileClock(say).installed(), undeferred():
        robot.run(WARM_UP_S)
    took = time.perf_counter() - started
    if say is not None:
        say(f"{COMPILING}done in {took:.1f} s\n")
    return took
