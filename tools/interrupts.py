"""SIGTERM handled like Ctrl-C: the long-running commands finish their log, print the report so
far and exit 130 after SIGINT, 143 after SIGTERM (128 + the signal number, as shells do).

The handlers remember the signal, so the exit status is right even where a library loop (a bus
capture) ends quietly on KeyboardInterrupt instead of passing it on.
"""

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from servobus.bus.deferred_signals import deferred_signals

_received: list[int] = []
_holding: list[list] = []  # the signals `held_until_reported` blocks hold


def interrupted() -> bool:
    """Whether SIGINT or SIGTERM arrived while the command ran (or is held to be acted on)."""
    return bool(_received) or any(_holding)


def exit_status() -> int:
    """0, or 128 + the first signal received: 130 after Ctrl-C, 143 after SIGTERM."""
    return 128 + _received[0] if _received else 0


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if len(_received) > 1:  # a later signal while the report is written must not cut it
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


@contextmanager
def held_until_reported() -> Iterator[None]:
    """SIGINT and SIGTERM held while the block runs a simulation and prints its report (the
    simulated runs stop between two events when one comes): the report is printed whole, and
    the signal is then remembered for the exit status (130 / 143), not raised further."""
    try:
        with deferred_signals() as held:
            _holding.append(held)
            try:
                yield
            finally:
                _holding.pop()  # one hold at a time, nested in no other of these
    except KeyboardInterrupt:
        pass
