"""A node's side of the period engine's bus (``bus.period_engine.LeanBus``): what it sends
through (``NodeBus``: frames as bytes), the handler that hands it a rare frame as a
can.Message, and the tap that writes every delivered frame to a log as the reference recorder
does.  Hot frames reach a node through its own ``byte_handlers`` (a board's TICK, ACTUATION and
POSREF, the host's MEAS, the GuRoo nodes' set-points and feedback); the wiring is
``RobotRun._wire``, the same for every robot.
"""

from collections.abc import Callable
from typing import Any

import can

from servobus.bus.controller import InvalidFrame, check_frame
from servobus.bus.period_engine import Handler, LeanBus, rx_message


class NodeBus:
    """What a Python node sends through on the engine: its frames go to the LeanBus as bytes."""

    state = can.BusState.ACTIVE

    def __init__(self, lean: LeanBus, sender: int) -> None:
        self.lean, self.sender = lean, sender

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        """Queue the frame (CanOperationError when the node's queue is full; InvalidFrame for
        what a controller refuses, or a frame whose format is not its ID's on this bus: the
        bus carries each ID in the DBC's format)."""
        fd_ids = self.lean.fd_ids
        fd = msg.arbitration_id in fd_ids
        if msg.is_extended_id or msg.is_remote_frame or msg.error_state_indicator or \
                (msg.is_fd, msg.bitrate_switch) != (fd, fd and fd_ids[msg.arbitration_id]):
            raise InvalidFrame(f"frame 0x{msg.arbitration_id:X}: the period engine's bus "
                               "carries standard data frames in their DBC's format only")
        if fd:  # an FD length (a classic frame's the schema's codec fixes)
            check_frame(msg, True)
        self.lean.send(self.sender, msg.arbitration_id, bytes(msg.data))

    def send_data(self, can_id: int, data: bytes) -> None:
        """Queue a frame given as bytes (no can.Message on the hot path)."""
        self.lean.send(self.sender, can_id, data)

    def set_filters(self, filters: Any = None) -> None:
        """The engine's handler tables are the acceptance filters."""


def python_handler(node: Any, fd_ids: dict[int, bool]) -> Handler:
    """A handler that hands a node the can.Message (rare frames; `fd_ids`: the bus's FD IDs
    and their BRS)."""
    return lambda can_id, data, now: node.on_message(rx_message(can_id, data, now, fd_ids))


def log_tap(writer: can.Listener, fd_ids: dict[int, bool]) -> Callable[[int, int, int, int,
                                                                         bytes, int], None]:
    """A tap writing every delivered frame as the reference recorder does."""

    def tap(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        writer.on_message_received(rx_message(can_id, data, end, fd_ids))
    return tap
