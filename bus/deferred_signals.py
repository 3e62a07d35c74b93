"""SIGINT and SIGTERM held back while a compiled batch and its bookkeeping run: the numba call
changes the nodes' arrays in place and Python then writes the rest back (counters, frames to the
meter and the log, the clock); an interrupt between the two would leave a report and a log that
disagree.  A signal received inside is handed to the handler in force once the block ends.  The
simulated buses' run loops stop between two events when one is held (``held`` is true), so that a
report counts exactly the frames its log holds."""

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def deferred_signals() -> Iterator[list[tuple[int, FrameType | None]]]:
    """Hold SIGINT/SIGTERM for the block (main thread only; elsewhere Python delivers no signal
    handlers' exceptions anyway), then deliver them in order to the handlers in force before;
    the block gets the list of the signals held so far."""
    # a handler installed from outside Python (getsignal: None) could not be restored: no hold
    if threading.current_thread() is not threading.main_thread() or \
            any(signal.getsignal(sig) is None for sig in SIGNALS):
        yield []
        return
    held: list[tuple[int, FrameType | None]] = []
    previous = {sig: signal.signal(sig, lambda s, f: held.append((s, f))) for sig in SIGNALS}
    try:
        yield held
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for number, frame in held:
            before = previous[signal.Signals(number)]
            if callable(before):
                before(number, frame)
            elif before == signal.SIG_DFL:
                signal.raise_signal(number)
