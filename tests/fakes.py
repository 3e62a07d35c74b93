"""Test doubles shared by the node tests: a hand-driven clock whose timers fire late, and a bus
that keeps what is sent."""

from collections.abc import Callable

import can


class LateClock:
    """now_ns and call_at on a hand-driven time line; every timer fires `late` ns after due
    (a preempted process), in the order armed."""

    def __init__(self, late: int) -> None:
        self.now, self.late = 0, late
        self.timers: list[tuple[int, Callable[[], None]]] = []

    def now_ns(self) -> int:
        return self.now

    def call_at(self, at: int, action: Callable[[], None]) -> None:
        self.timers.append((at, action))

    def fire_next(self) -> int:
        """Fire the oldest timer late; returns the instant it was due."""
        at, action = self.timers.pop(0)
        self.now = at + self.late
        action()
        return at


class ListBus(can.BusABC):
    """Keeps what is sent; receives nothing."""

    def __init__(self) -> None:
        super().__init__(channel="list")
        self.sent: list[can.Message] = []

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        self.sent.append(msg)

    def _recv_internal(self, timeout: float | None):
        return None, False
