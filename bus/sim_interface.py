"""The simulated bus as a python-can interface (entry point ``can.interface``: ``servobus``).

    medium = Medium(Environment())
    bus = can.Bus(interface="servobus", channel="JOINT_1", medium=medium)

The channel names the node.  ``send`` queues into the node's controller (priority order) and
returns; frames arrive with the simulated time of their end of frame as timestamp.  Receive
filters act as the controller's acceptance filter; a ``listener`` (set by ``attach_sim``) gets
accepted frames at their end of frame instead of the receive queue.  ``recv``
with a timeout runs the simulation forward (at most `timeout` simulated seconds) when called
from outside the simulation; inside a simulation callback it never blocks.  Received messages are
shared by all receivers (no copies): treat them as read-only.
"""

from collections import deque
from collections.abc import Callable
from typing import Any

import can

from servobus.bus.controller import ErrorState
from servobus.bus.medium import Medium
from servobus.bus.scheduler import NS_PER_S

DEFAULT_RX_QUEUE = 1024


class SimBus(can.BusABC):
    """One node's view of a simulated Medium."""

    def __init__(self, channel: Any = None, medium: Medium | None = None,
                 receive_own_messages: bool = False, rx_queue_size: int = DEFAULT_RX_QUEUE,
                 tx_queue_size: int = 64, **kwargs: Any) -> None:
        if medium is None:
            raise can.CanInterfaceNotImplementedError(
                "the servobus interface needs medium=<bus.medium.Medium>: it is a simulated bus "
                "inside this process")
        self.medium = medium
        self.channel_info = f"servobus simulated bus {medium.name}, node {channel}"
        self._rx: deque[can.Message] = deque()
        self._rx_size = rx_queue_size
        self.listener: Callable[[can.Message], None] | None = None
        self.controller = medium.attach(str(channel), self._deliver, tx_queue_size)
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
        super().shutdown()
