"""Wall-clock time for a standalone simulated bus: the simulation follows real time.

A standalone ``servobus`` channel (no simulation of ours driving it) behaves like python-can's
``virtual``: frames are stamped in epoch seconds and time passes while the program sleeps.  The
simulated clock starts at 0 when the channel is made; before every send and receive it is moved
to the wall-clock instant (``time.monotonic_ns`` since then), running the frames that ended by
then, so a frame still takes its exact wire time.  Stamps are ``epoch + simulated seconds``
(``epoch``: ``time.time()`` when the channel was made).  The lock makes the channel usable from
several threads (python-can's ``send_periodic`` sends from its own thread).
"""

import threading
import time

from servobus.bus.scheduler import NS_PER_S, Environment


class WallClock:
    """Keeps one Environment at the wall-clock time and lets receivers wait for frames."""

    def __init__(self) -> None:
        self.epoch = time.time()
        self._t0 = time.monotonic_ns()
        self.lock = threading.Condition()  # held around every simulation step; notified on send

    def now_ns(self) -> int:
        """Nanoseconds of wall-clock time since the channel was made."""
        return time.monotonic_ns() - self._t0

    def catch_up(self, env: Environment) -> None:
        """Run what is due by the wall-clock instant and move the simulated clock there (never
        back: a frame already scheduled keeps its time); inside an event the simulation is
        already there."""
        if not env.running:
            env.run(until=max(env.now, self.now_ns()))

    def wait(self, env: Environment, deadline: int | None) -> None:
        """Sleep until the next pending event, `deadline` (ns, None: none) or a send from
        another thread, whichever comes first (call with the lock held)."""
        due = [t for t in (env.peek(), deadline) if t is not None]
        self.lock.wait(max(min(due) - self.now_ns(), 0) / NS_PER_S if due else None)
