"""What every node (board, time trigger, host) is to the world: a can.Bus and a clock.

A node reacts to frames (``on_message``) and to its own timers (``clock.call_at``) and sends
through the plain python-can bus it was started with.  The lockstep simulator and the real-time
runner (``bus.realtime``) provide the clock and deliver frames, so the same node code runs on the
simulated bus and on any real python-can bus.
"""

from collections.abc import Callable
from typing import Any, Protocol

import can

from servobus.bus.medium import Medium
from servobus.bus.schema import Decoded, Schema, SchemaError
from servobus.bus.sim_interface import SimBus


class Clock(Protocol):
    """Time source of a node: integer nanoseconds and one-shot timers."""

    def now_ns(self) -> int:
        """Current time in ns."""
        ...

    def call_at(self, at: int, action: Callable[[], None]) -> Any:
        """Run `action` at time `at` (ns)."""
        ...


class Node(Protocol):
    """A bus participant."""

    name: str

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Begin: keep the bus and clock, arm the first timers."""
        ...

    def on_message(self, msg: can.Message) -> None:
        """A frame arrived."""
        ...


def attach_sim(node: Node, medium: Medium, **bus_kwargs: Any) -> SimBus:
    """Put a node on a simulated medium: its own SimBus, frames delivered as events."""
    bus = SimBus(channel=node.name, medium=medium, **bus_kwargs)
    bus.listener = node.on_message
    node.start(bus, medium.env)
    return bus


def send_or_count(bus: can.BusABC, msg: can.Message, owner: Any) -> None:
    """Send; a refused frame (full queue, bus-off driver error) is counted in owner.tx_faults."""
    try:
        bus.send(msg)
    except can.CanError:
        owner.tx_faults += 1


def send_bytes_or_count(bus: can.BusABC, send_data: Callable[[int, bytes], None] | None,
                        schema: Schema, can_id: int, data: bytes, owner: Any) -> None:
    """Send a standard frame's payload: through `send_data` where the bus takes bytes (the
    period engine's ``send_data``), else as the schema's can.Message (classic or FD); a refused
    frame is counted in owner.tx_faults."""
    if send_data is None:
        send_or_count(bus, schema.frame(can_id, data), owner)
        return
    try:
        send_data(can_id, data)
    except can.CanError:
        owner.tx_faults += 1


def decode_or_count(schema: Schema, msg: can.Message, owner: Any) -> Decoded | None:
    """A received frame decoded; one that does not decode (unknown ID, wrong DLC) is counted in
    owner.rx_faults and gives None."""
    try:
        return schema.decode(msg)
    except SchemaError:
        owner.rx_faults += 1
        return None
