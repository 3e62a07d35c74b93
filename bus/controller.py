"""One node's CAN controller on the simulated medium: transmit queue and fault confinement.

Fault confinement (ISO 11898-1): a transmit error adds 8 to TEC, a receive error adds 1 to REC;
a good transmission subtracts 1 from TEC, a good reception 1 from REC (from above 127 it drops
to 119).  TEC or REC above 127: error-passive; TEC above 255: bus-off, until the node has seen
128 occurrences of 11 consecutive recessive bits, then both counters restart at 0.  An
error-passive transmitter that gets no ACK keeps its TEC (the exception that keeps a lone node
from going bus-off).  Both counters are 8-bit registers, as in a real controller (SJA1000,
the LPC2119's CAN block): REC saturates at 255 (receive errors never take a node off the bus),
TEC reads 255 while bus-off.

``check_frame`` refuses what a CAN controller (or SocketCAN's raw socket) refuses: identifiers
outside 11 / 29 bits, more than 8 data bytes in a classic frame, a DLC not matching the data,
requests to send an error frame; and on a classic bus any FD frame; an FD frame whose length is
no FD length (0..8, 12, 16, 20, 24, 32, 48, 64), an FD remote frame, BRS or ESI on a classic
frame.

Arbitration (``arbitration_key``) compares the arbitration field's bits as sent: base ID, then
RTR (classic) / RRS (FD, always dominant) or SRR (extended, recessive), IDE, the ID extension,
then RTR / RRS of an extended frame; a data frame beats a remote frame of its ID.  Two frames
equal that far (one ID sent by two nodes, which CAN forbids) are ordered by r0 / r1 (classic,
dominant) against FDF (recessive), the classic frame first: a modelling choice, where a real
FD transmitter would see a bit error at FDF.
"""

import heapq
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

import can

from servobus.bus.frame_bits_fd import FD_LENGTHS

ERROR_PASSIVE_LIMIT = 127
BUS_OFF_LIMIT = 255
REC_AFTER_PASSIVE = 119
COUNTER_MAX = 255  # 8-bit error counter registers
DEFAULT_TX_QUEUE = 64
MAX_STANDARD_ID = 0x7FF
MAX_EXTENDED_ID = 0x1FFFFFFF
MAX_CLASSIC_DLC = 8


class InvalidFrame(can.CanOperationError, ValueError):
    """A frame no CAN controller would transmit (bad identifier, length or type)."""


def id_fits(can_id: int, extended: bool) -> bool:
    """Whether `can_id` is a valid standard (11-bit) or extended (29-bit) identifier."""
    return 0 <= can_id <= (MAX_EXTENDED_ID if extended else MAX_STANDARD_ID)


def check_frame(msg: can.Message, fd: bool = False) -> None:
    """Raise InvalidFrame unless a controller can transmit `msg` (classic CAN 2.0, or CAN FD
    with `fd`)."""
    can_id, dlc, size = msg.arbitration_id, msg.dlc, len(msg.data or b"")
    limit = MAX_EXTENDED_ID if msg.is_extended_id else MAX_STANDARD_ID
    kind = "an extended (29-bit)" if msg.is_extended_id else "a standard (11-bit)"
    if msg.is_error_frame:
        raise InvalidFrame("a CAN controller cannot be asked to send an error frame")
    if msg.is_fd and not fd:
        raise InvalidFrame(f"CAN FD frame 0x{can_id:X} refused: this bus is classic CAN (open "
                           "it with fd=True, or give the bus a data bit rate)")
    if (msg.bitrate_switch or msg.error_state_indicator) and not msg.is_fd:
        raise InvalidFrame(f"frame 0x{can_id:X}: BRS and ESI exist only in CAN FD frames")
    if not id_fits(can_id, msg.is_extended_id):
        raise InvalidFrame(f"CAN ID 0x{can_id:X} does not fit {kind} identifier "
                           f"(0x0..0x{limit:X})")
    if msg.is_fd:
        _check_fd(msg, can_id, size)
        return
    if size > MAX_CLASSIC_DLC:
        raise InvalidFrame(f"frame 0x{can_id:X} has {size} data bytes: classic CAN carries "
                           f"at most {MAX_CLASSIC_DLC}")
    if not 0 <= dlc <= MAX_CLASSIC_DLC:
        raise InvalidFrame(f"frame 0x{can_id:X}: DLC {dlc} is not 0..{MAX_CLASSIC_DLC}")
    if not msg.is_remote_frame and dlc != size:
        raise InvalidFrame(f"frame 0x{can_id:X}: DLC {dlc} but {size} data bytes")


def _check_fd(msg: can.Message, can_id: int, size: int) -> None:
    """An FD frame: a data frame of an FD length whose DLC (python-can: its length) matches."""
    if msg.is_remote_frame:
        raise InvalidFrame(f"frame 0x{can_id:X}: CAN FD has no remote frames")
    if size not in FD_LENGTHS:
        raise InvalidFrame(f"CAN FD frame 0x{can_id:X} has {size} data bytes: an FD frame "
                           f"carries {', '.join(map(str, FD_LENGTHS))} bytes")
    if msg.dlc != size:
        raise InvalidFrame(f"CAN FD frame 0x{can_id:X}: DLC {msg.dlc} but {size} data bytes")


class ErrorState(Enum):
    """Fault-confinement state of a controller."""

    ACTIVE = "error_active"
    PASSIVE = "error_passive"
    BUS_OFF = "bus_off"


@dataclass(order=True)
class Pending:
    """A frame waiting in a transmit queue, ordered by arbitration priority then submission."""

    key: tuple[int, ...]  # arbitration_key, then the submission number
    ready: int = field(compare=False)  # ns: when it may first compete (a late node's delay)
    msg: can.Message = field(compare=False)
    queued: int = field(compare=False, default=0)  # ns: when it was handed to the controller


def arbitration_key(msg: can.Message) -> tuple[int, int, int, int, int, int]:
    """Lower wins (dominant 0): base ID, RTR / SRR, IDE, ID extension, RTR of an extended
    frame, FDF (the module docstring)."""
    rtr, fdf = int(msg.is_remote_frame), int(msg.is_fd)
    if msg.is_extended_id:
        return (msg.arbitration_id >> 18, 1, 1, msg.arbitration_id & 0x3FFFF, rtr, fdf)
    return (msg.arbitration_id, rtr, 0, 0, 0, fdf)


@dataclass
class Counters:
    """What a controller has done, for reports and tests."""

    tx_frames: int = 0
    rx_frames: int = 0  # frames admitted by the acceptance filter
    tx_errors: int = 0
    rx_errors: int = 0
    bus_off_events: int = 0
    tx_queue_overflows: int = 0
    rx_overruns: int = 0


class Controller:
    """The CAN controller of one node (or of a fault-injected babbler)."""

    def __init__(self, name: str, deliver: Callable[[can.Message], None] | None,
                 tx_queue_size: int = DEFAULT_TX_QUEUE) -> None:
        self.name = name
        self.deliver = deliver  # None: the node never receives (a babbler)
        self.tx_queue_size = tx_queue_size
        self.tec = 0
        self.rec = 0
        self.bus_off_since: int | None = None
        self.recessive_seen = 0  # 11-bit recessive sequences counted while bus-off
        self.silenced = False
        self.tx_delay_ns = 0
        self.suspend_until = 0
        self.counters = Counters()
        self.on_sent: Callable[[can.Message], None] | None = None
        self.accept: set[int] | None = None  # acceptance filter: standard IDs (None: all)
        self.waiting_frames: deque[Pending] = deque()  # submitted, not yet ready (late node)
        self.ready_frames: list[Pending] = []  # ready frames, a heap in arbitration order
        self._seq = 0

    @property
    def state(self) -> ErrorState:
        """Error-active, error-passive or bus-off."""
        if self.bus_off_since is not None:
            return ErrorState.BUS_OFF
        if self.tec > ERROR_PASSIVE_LIMIT or self.rec > ERROR_PASSIVE_LIMIT:
            return ErrorState.PASSIVE
        return ErrorState.ACTIVE

    @property
    def online(self) -> bool:
        """Takes part in bus traffic (acknowledges, receives, transmits)."""
        return not self.silenced and self.bus_off_since is None

    def full(self) -> bool:
        """Whether the transmit queue holds as many frames as it can."""
        return len(self.ready_frames) + len(self.waiting_frames) >= self.tx_queue_size

    def queue(self, msg: can.Message, now: int) -> int:
        """Put a frame in the priority-ordered transmit queue; return when it may compete."""
        if self.full():
            self.counters.tx_queue_overflows += 1
            raise can.CanOperationError(
                f"{self.name}: transmit queue full ({self.tx_queue_size} frames); "
                f"frame 0x{msg.arbitration_id:X} not sent")
        self._seq += 1
        pending = Pending((*arbitration_key(msg), self._seq), now + self.tx_delay_ns, msg, now)
        if self.tx_delay_ns or self.waiting_frames:
            self.waiting_frames.append(pending)
        else:
            heapq.heappush(self.ready_frames, pending)
        return pending.ready

    def head(self, now: int) -> Pending | None:
        """The frame this controller would put into arbitration at `now`, if any."""
        while self.waiting_frames and self.waiting_frames[0].ready <= now:
            heapq.heappush(self.ready_frames, self.waiting_frames.popleft())
        if not self.online or now < self.suspend_until or not self.ready_frames:
            return None
        return self.ready_frames[0]

    def next_ready(self) -> int | None:
        """Earliest time a queued frame becomes eligible (ignoring bus state)."""
        if not self.online:
            return None
        if self.ready_frames:
            return self.suspend_until
        if self.waiting_frames:
            return max(self.waiting_frames[0].ready, self.suspend_until)
        return None

    def sent(self, pending: Pending) -> None:
        """A transmission succeeded: dequeue, TEC - 1."""
        if self.ready_frames[0] is pending:
            heapq.heappop(self.ready_frames)
        else:
            self.ready_frames.remove(pending)
            heapq.heapify(self.ready_frames)
        self.tec = max(self.tec - 1, 0)
        self.counters.tx_frames += 1
        if self.on_sent is not None:
            self.on_sent(pending.msg)

    def received_after_error(self) -> None:
        """A reception succeeded while REC > 0: REC - 1 (or back to 119 from error-passive).
        The medium counts the frame itself (the hot path)."""
        if self.rec > ERROR_PASSIVE_LIMIT:
            self.rec = REC_AFTER_PASSIVE
        elif self.rec > 0:
            self.rec -= 1

    def transmit_error(self, now: int, ack_error: bool) -> None:
        """This controller's frame failed: TEC + 8 (not for an ACK error when error-passive)."""
        self.counters.tx_errors += 1
        if ack_error and self.state is ErrorState.PASSIVE:
            return
        if self.tec + 8 > BUS_OFF_LIMIT:
            self.tec = COUNTER_MAX
            self.bus_off_since = now
            self.recessive_seen = 0
            self.counters.bus_off_events += 1
        else:
            self.tec += 8

    def receive_error(self) -> None:
        """A frame this controller was receiving failed: REC + 1 (saturating at 255)."""
        self.counters.rx_errors += 1
        self.rec = min(self.rec + 1, COUNTER_MAX)

    def recover(self) -> None:
        """Back from bus-off: counters reset, error-active."""
        self.bus_off_since = None
        self.tec = 0
        self.rec = 0
