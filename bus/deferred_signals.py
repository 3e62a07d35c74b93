"""SIGINT and SIGTERM held back while a compiled batch and its bookkeeping run: the numba call
changes the nodes' arrays in place and Python then writes the rest back (counters, frames to the
meter and the log, the clock); an interrupt between the two would leave a report and a log that
disagree.  A signal received inside is handed to the handler in force once the block ends.  The
simulated buses' run loops stop between two events when one is held (``held`` is true), so that a
report counts exactly the frames its log holds; a hold is true as soon as it or any hold around it
has one (a signal taken by an outer hold just before an inner one began stops the inner run too).
A throwaway run (the compile phase's) runs ``undeferred``: a signal acts at once."""

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_OPEN: list["Held"] = []  # the holds in force, outermost first
_UNDEFERRED: list[bool] = []  # non-empty inside `undeferred`


class Held(list[tuple[int, FrameType | None]]):
    """The signals a hold has taken; true when it has one, or when a hold around it had one as
    it began (while it is open, its own handler takes every signal)."""

    def __init__(self, inherited: bool = False) -> None:
        super().__init__()
        self.inherited = inherited

    def __bool__(self) -> bool:
        return self.inherited or len(self) > 0


@contextmanager
def undeferred() -> Iterator[None]:
    """Holds inside the block hold nothing: SIGINT/SIGTERM reach their handlers at once (a
    throwaway run, whose report and log nobody reads, stops inside a long compile)."""
    _UNDEFERRED.append(True)
    try:
        yield
    finally:
        _UNDEFERRED.pop()


@contextmanager
def deferred_signals() -> Iterator[Held]:
    """Hold SIGINT/SIGTERM for the block (main thread only; elsewhere Python delivers no signal
    handlers' exceptions anyway), then deliver them in order to the handlers in force before;
    the block gets the list of the signals held so far."""
    # a handler installed from outside Python (getsignal: None) could not be restored: no hold
    if _UNDEFERRED or threading.current_thread() is not threading.main_thread() or \
            any(signal.getsignal(sig) is None for sig in SIGNALS):
        yield Held()
        return
    held = Held(inherited=any(len(hold) for hold in _OPEN))
    previous = {sig: signal.signal(sig, lambda s, f: held.append((s, f))) for sig in SIGNALS}
    _OPEN.append(held)
    try:
        yield held
    finally:
        _OPEN.pop()  # holds nest: the innermost ends first
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for number, frame in held:
            before = previous[signal.Signals(number)]
            if callable(before):
                before(number, frame)
            elif before == signal.SIG_DFL:
                signal.raise_signal(number)
