"""The simulated bus as a python-can interface (entry point ``can.interface``: ``servobus``).

Standalone, like python-can's ``virtual``: the channel names a simulated bus shared by every
``servobus`` bus object of this process opened on that channel (made on first use, dropped when
the last one shuts down); the node name is generated (``<channel>#<n>``) unless ``node=`` gives it:

    a = can.Bus(interface="servobus", channel="x")
    b = can.Bus(interface="servobus", channel="x", node="B")
    a.send(msg); b.recv(timeout=0.01)   # runs the shared simulation up to 10 ms forward

On a medium you build yourself (a robot, a fault run) the channel names the node:

    medium = Medium(Environment())
    bus = can.Bus(interface="servobus", channel="JOINT_1", medium=medium)
  ``send`` queues into the node's controller (priority order) and
returns; frames arrive with the simulated time of their end of frame as timestamp.  Receive
filters act as the controller's acceptance filter; a ``listener`` (set by ``attach_sim``) gets
accepted frames at their end of frame instead of the receive queue.  ``recv``
with a timeout runs the simulation forward (at most `timeout` simulated seconds) when called
from outside the simulation; inside a simulation callback it never blocks.  ``recv(0)`` does not
advance time: a frame takes its wire time to arrive.  ``send`` refuses what a CAN controller
refuses (``controller.InvalidFrame``, a ``can.CanOperationError``).  Received messages are
shared by all receivers (no copies): treat them as read-only.  One thread per simulation.
"""

import itertools
from collections import deque
from collections.abc import Callable
from typing import Any

import can

from servobus.bus.controller import ErrorState
from servobus.bus.medium import Medium
from servobus.bus.scheduler import NS_PER_S, Environment

DEFAULT_RX_QUEUE = 1024
_SHARED: dict[str, Medium] = {}  # standalone channels: name -> the in-process simulated bus
_NODE_NUMBERS = itertools.count(1)


def shared_medium(channel: str, bitrate: int | None = None) -> Medium:
    """The simulated bus named `channel` in this process (made on first use)."""
    medium = _SHARED.get(channel)
    if medium is None:
        medium = _SHARED[channel] = Medium(Environment(), bitrate or 1_000_000, name=channel)
    elif bitrate is not None and bitrate != medium.bitrate:
        raise can.CanInitializationError(
            f"servobus channel {channel!r} already runs at {medium.bitrate} bit/s, "
            f"not {bitrate}")
    return medium


class SimBus(can.BusABC):
    """One node's view of a simulated Medium."""

    def __init__(self, channel: Any = None, medium: Medium | None = None,
                 receive_own_messages: bool = False, rx_queue_size: int = DEFAULT_RX_QUEUE,
                 tx_queue_size: int = 64, node: str | None = None, bitrate: int | None = None,
                 **kwargs: Any) -> None:
        self._shared = medium is None
        if medium is None:
            if channel is None or str(channel) == "":
                raise can.CanInitializationError(
                    "the servobus interface needs a channel name (a simulated bus shared in "
                    "this process) or medium=<bus.medium.Medium>")
            medium = shared_medium(str(channel), bitrate)
            name = node or f"{channel}#{next(_NODE_NUMBERS)}"
        else:
            name = node or str(channel)
        self.medium = medium
        self.channel_info = f"servobus simulated bus {medium.name}, node {name}"
        self._rx: deque[can.Message] = deque()
        self._rx_size = rx_queue_size
        self.listener: Callable[[can.Message], None] | None = None
        try:
            self.controller = medium.attach(name, self._deliver, tx_queue_size)
        except ValueError as err:
            raise can.CanInitializationError(str(err)) from err
        if receive_own_messages:
            self.controller.on_sent = self._echo
        super().__init__(channel=channel, **kwargs)

    def _deliver(self, msg: can.Message) -> None:
        """Filters the controller's acceptance set could not take, then the listener or the
        queue."""
        if self.controller.accept is None and self._filters is not None \
                and not self._matches_filters(msg):
            return
        if self.listener is not None:
            self.listener(msg)
            return
        if len(self._rx) >= self._rx_size:
            self._rx.popleft()
            self.controller.counters.rx_overruns += 1
        self._rx.append(msg)

    def _apply_filters(self, filters: can.typechecking.CanFilters | None) -> None:
        """Exact standard-ID filters go into the controller's acceptance filter (a set lookup
        before delivery); other filters are applied per frame."""
        exact = filters is not None and all(
            f.get("can_mask") == 0x7FF and f.get("extended") is False for f in filters)
        self.controller.accept = {f["can_id"] for f in filters} if exact and filters else None
        self.medium.filters_changed()

    def _echo(self, msg: can.Message) -> None:
        echo = can.Message(timestamp=self.medium.env.now / NS_PER_S,
                           arbitration_id=msg.arbitration_id, is_extended_id=msg.is_extended_id,
                           dlc=msg.dlc, data=msg.data, channel=self.medium.name, is_rx=False,
                           check=False)
        self._deliver(echo)

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        """Queue the frame for arbitration (CanOperationError when the queue is full)."""
        self.medium.submit(self.controller, msg)

    def recv(self, timeout: float | None = None) -> can.Message | None:
        """Next received frame, waiting at most `timeout` simulated seconds (python-can's own
        recv would retry for `timeout` wall seconds, racing simulated time far ahead)."""
        return self._recv_internal(timeout)[0]

    def _recv_internal(self, timeout: float | None) -> tuple[can.Message | None, bool]:
        if not self._rx and timeout != 0 and not self.medium.env.running:
            env = self.medium.env
            until = None if timeout is None else env.now + round(timeout * NS_PER_S)
            env.run(until=until, stop=lambda: bool(self._rx))
        if self._rx:
            return self._rx.popleft(), False
        return None, False

    @property
    def state(self) -> can.BusState:
        """python-can's view of the controller state."""
        return {ErrorState.ACTIVE: can.BusState.ACTIVE, ErrorState.PASSIVE: can.BusState.PASSIVE,
                ErrorState.BUS_OFF: can.BusState.ERROR}[self.controller.state]

    @state.setter
    def state(self, new_state: can.BusState) -> None:
        raise can.CanOperationError("the simulated controller's state follows its error "
                                    "counters; it cannot be set")

    def __del__(self) -> None:
        """A simulated bus holds no OS resource: dropping it unclosed needs no warning."""

    def shutdown(self) -> None:
        """Leave the medium."""
        if self.controller in self.medium.controllers:
            self.medium.detach(self.controller)
        if self._shared and not self.medium.controllers \
                and _SHARED.get(self.medium.name) is self.medium:
            del _SHARED[self.medium.name]
        super().shutdown()
