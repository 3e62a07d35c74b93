"""SIGTERM handled like Ctrl-C: the long-running commands finish their log, print the report so
far and exit 130 after SIGINT, 143 after SIGTERM (128 + the signal number, as shells do).

The handlers remember the signal, so the exit status is right even where a library loop (a bus
capture) ends quietly on KeyboardInterrupt instead of passing it on.
"""

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_received: list[int] = []


def interrupted() -> bool:
    """Whether SIGINT or SIGTERM arrived while the command ran."""
    return bool(_received)


def exit_status() -> int:
    """0, or 128 + the first signal received: 130 after Ctrl-C, 143 after SIGTERM."""
    return 128 + _received[0] if _received else 0


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if len(_received) == 2:  # a second signal while the report is written must not cut it
        return
    raise KeyboardInterrupt  # for SIGTERM too: the same clean stop; exit_status tells them apart


@contextmanager
def handle_interrupts() -> Iterator[None]:
    """Within the block SIGINT and SIGTERM raise KeyboardInterrupt and are remembered; the
    previous handlers are restored after (outside the main thread, where Python cannot install
    handlers, Ctrl-C keeps Python's own behaviour)."""
    _received.clear()
    try:
        previous = {sig: signal.signal(sig, _on_signal) for sig in (signal.SIGINT,
                                                                   signal.SIGTERM)}
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
