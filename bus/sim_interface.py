"""The simulated bus as a python-can interface (entry point ``can.interface``: ``servobus``).

Standalone, like python-can's ``virtual``: the channel names a simulated bus shared by every
``servobus`` bus object of this process opened on that channel (made on first use, dropped when
the last one shuts down); the node name is generated (``<channel>#<n>``) unless ``node=`` gives it:

    a = can.Bus(interface="servobus", channel="x")
    b = can.Bus(interface="servobus", channel="x", node="B")
    a.send(msg); b.recv(timeout=0.01)   # waits up to 10 ms for the frame's wire time

Which clock a channel keeps is chosen by the bus that makes it (``clock=``, later buses may
only repeat it): ``"wall"`` (the default) follows real time and stamps epoch seconds, as
``virtual`` does (``bus.wall_clock``), and ``recv`` waits in real time; ``"simulated"`` keeps
simulated time from 0 (``robot.emulated`` makes its channel so), and ``recv`` with a timeout
runs the simulation forward (at most `timeout` simulated seconds) when called from outside the
simulation; inside a simulation callback it never blocks.

On a medium you build yourself (a robot, a fault run) the channel names the node and time is
that simulation's:

    medium = Medium(Environment())
    bus = can.Bus(interface="servobus", channel="JOINT_1", medium=medium)

``send`` queues into the node's controller (priority order) and returns; frames arrive with the
time of their end of frame as timestamp.  Receive filters act as the controller's acceptance
filter; a ``listener`` (set by ``attach_sim``) gets accepted frames at their end of frame
instead of the receive queue, one message per frame shared by the listeners (read-only).
A channel is classic CAN unless the bus that makes it says ``fd=True`` (its data phase at the
nominal rate) or gives ``data_bitrate=`` (bit/s): then it carries CAN FD frames, those with BRS
at the data rate (``bus.bit_timing``).  A bus opened there without either is a classic node: it
neither sends nor receives FD frames, as a classic SocketCAN socket. ``recv(0)`` does not advance
simulated time: a frame takes its wire time to arrive. Every ``recv`` returns a message of its own
(data copied per receiver), as python-can buses do. ``send`` refuses what a CAN controller refuses
(``controller.InvalidFrame``, a ``can.CanOperationError``). One thread per simulated-time
simulation; a wall-clock channel takes several.
"""

import itertools
from collections import deque
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, Literal, NamedTuple

import can

from servobus.bus.controller import ErrorState, InvalidFrame
from servobus.bus.medium import Medium
from servobus.bus.scheduler import NS_PER_S, Environment
from servobus.bus.wall_clock import WallClock

DEFAULT_RX_QUEUE = 1024
Clock = Literal["wall", "simulated"]
WALL: Clock = "wall"  # a standalone channel's default clock: real time, epoch-second stamps
SIMULATED: Clock = "simulated"  # simulated time from 0, run forward by recv


class _Channel(NamedTuple):
    """A standalone channel: its bus and, on wall-clock time, the clock that paces it."""

    medium: Medium
    wall: WallClock | None  # None: simulated time


_SHARED: dict[str, _Channel] = {}  # standalone channels: name -> the in-process simulated bus
_NODE_NUMBERS = itertools.count(1)


def _shared_channel(channel: str, bitrate: int | None, clock: Clock | None,
                    data_bitrate: int | None = None, fd: bool = False) -> _Channel:
    """The standalone channel `channel` (made on first use with `clock`, default WALL; a CAN FD
    bus when `fd` or a `data_bitrate` is given, the data phase at the nominal rate unless
    given).  An existing channel must be CAN FD for `fd`, and run at `data_bitrate` if given."""
    if clock not in (None, WALL, SIMULATED):
        raise can.CanInitializationError(
            f"servobus clock must be {WALL!r} or {SIMULATED!r}, not {clock!r}")
    shared = _SHARED.get(channel)
    if shared is None:
        nominal = bitrate or 1_000_000
        try:
            medium = Medium(Environment(), nominal, name=channel,
                            data_bitrate=data_bitrate or (nominal if fd else None))
        except ValueError as err:
            raise can.CanInitializationError(f"servobus channel {channel!r}: {err}") from None
        shared = _SHARED[channel] = _Channel(medium, None if clock == SIMULATED else WallClock())
    elif bitrate is not None and bitrate != shared.medium.bitrate:
        raise can.CanInitializationError(
            f"servobus channel {channel!r} already runs at {shared.medium.bitrate} bit/s, "
            f"not {bitrate}")
    elif (fd or data_bitrate is not None) and not shared.medium.timing.fd:
        raise can.CanInitializationError(
            f"servobus channel {channel!r} is a classic CAN channel "
            f"({shared.medium.timing.describe()}): fd=True needs a CAN FD one")
    elif data_bitrate is not None and data_bitrate != shared.medium.timing.data_bitrate:
        raise can.CanInitializationError(
            f"servobus channel {channel!r} already runs at {shared.medium.timing.describe()}, "
            f"not a data bit rate of {data_bitrate} bit/s")
    elif clock is not None and (clock == WALL) != (shared.wall is not None):
        raise can.CanInitializationError(
            f"servobus channel {channel!r} already keeps "
            f"{WALL if shared.wall else SIMULATED} time, not {clock}")
    return shared


def shared_medium(channel: str, bitrate: int | None = None, clock: Clock | None = None,
                  data_bitrate: int | None = None) -> Medium:
    """The simulated bus named `channel` in this process (made on first use, keeping `clock`
    time: WALL by default, or SIMULATED; CAN FD with `data_bitrate`)."""
    return _shared_channel(channel, bitrate, clock, data_bitrate, data_bitrate is not None).medium


class SimBus(can.BusABC):
    """One node's view of a simulated Medium: an FD controller when the bus is opened with
    ``fd=True`` or a ``data_bitrate`` (standalone) or on a CAN FD medium (``medium=``), else a
    classic one, which neither sends nor receives FD frames (as a classic SocketCAN socket)."""

    def __init__(self, channel: Any = None, medium: Medium | None = None,
                 receive_own_messages: bool = False, rx_queue_size: int = DEFAULT_RX_QUEUE,
                 tx_queue_size: int = 64, node: str | None = None, bitrate: int | None = None,
                 clock: Clock | None = None, fd: bool = False, data_bitrate: int | None = None,
                 **kwargs: Any) -> None:
        self._shared = medium is None
        self._wall: WallClock | None = None
        if medium is None:
            if channel is None or str(channel) == "":
                raise can.CanInitializationError(
                    "the servobus interface needs a channel name (a simulated bus shared in "
                    "this process) or medium=<bus.medium.Medium>")
            fd = fd or data_bitrate is not None
            medium, self._wall = _shared_channel(str(channel), bitrate, clock, data_bitrate,
                                                 fd)
            name = node or f"{channel}#{next(_NODE_NUMBERS)}"
        else:
            name = node or str(channel)
            fd = medium.timing.fd
        self.medium = medium
        self._fd = fd
        self._epoch = self._wall.epoch if self._wall else 0.0  # added to simulated seconds
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
        self._can_protocol = can.CanProtocol.CAN_FD if fd else can.CanProtocol.CAN_20

    def _deliver(self, msg: can.Message) -> None:
        """Filters the controller's acceptance set could not take, then the listener or the
        queue; a classic bus takes no FD frame."""
        if msg.is_fd and not self._fd:
            return
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

    def _own(self, msg: can.Message) -> can.Message:
        """A received frame as a message of the caller's own (python-can gives every receiver
        its own instance; the queue holds the frame shared with the other nodes), stamped in
        this channel's time."""
        return can.Message(
            timestamp=msg.timestamp + self._epoch, arbitration_id=msg.arbitration_id,
            is_extended_id=msg.is_extended_id, is_remote_frame=msg.is_remote_frame,
            is_error_frame=msg.is_error_frame, channel=msg.channel, dlc=msg.dlc,
            data=bytearray(msg.data), is_fd=msg.is_fd, is_rx=msg.is_rx,
            bitrate_switch=msg.bitrate_switch, error_state_indicator=msg.error_state_indicator,
            check=False)

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
                           is_remote_frame=msg.is_remote_frame, dlc=msg.dlc, data=msg.data,
                           channel=self.medium.name, is_rx=False, is_fd=msg.is_fd,
                           bitrate_switch=msg.bitrate_switch,
                           error_state_indicator=msg.error_state_indicator, check=False)
        self._deliver(echo)

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        """Queue the frame for arbitration.  In simulated time a full queue refuses it
        (CanOperationError); on a wall-clock channel it is queued at the current wall-clock
        instant, waiting while the queue is full for at most `timeout` seconds (None: as long
        as it takes, as python-can's buses block), then refused."""
        if msg.is_fd and not self._fd:
            raise InvalidFrame(f"CAN FD frame 0x{msg.arbitration_id:X} refused: this bus was "
                               "opened classic CAN (open it with fd=True)")
        wall = self._wall
        if wall is None:
            self.medium.submit(self.controller, msg)
            return
        env = self.medium.env
        with wall.lock:
            deadline = None if timeout is None else wall.now_ns() + round(timeout * NS_PER_S)
            wall.catch_up(env)
            while self.controller.full() and not env.running and (
                    deadline is None or env.now < deadline) and self.controller.online:
                wall.wait(env, deadline)
                wall.catch_up(env)
            self.medium.submit(self.controller, msg)
            wall.lock.notify_all()

    def recv(self, timeout: float | None = None) -> can.Message | None:
        """Next received frame, waiting at most `timeout` seconds of this channel's time
        (python-can's own recv would retry for `timeout` wall seconds, racing simulated time
        far ahead)."""
        return self._recv_internal(timeout)[0]

    def _recv_internal(self, timeout: float | None) -> tuple[can.Message | None, bool]:
        if self._wall is not None:
            return self._recv_wall(self._wall, timeout), False
        if not self._rx and timeout != 0 and not self.medium.env.running:
            env = self.medium.env
            until = None if timeout is None else env.now + round(timeout * NS_PER_S)
            env.run(until=until, stop=lambda: bool(self._rx))
        if self._rx:
            return self._own(self._rx.popleft()), False
        return None, False

    def _recv_wall(self, wall: WallClock, timeout: float | None) -> can.Message | None:
        """Run the simulation at the wall clock's pace until a frame arrives or `timeout` wall
        seconds pass (None: no limit)."""
        env = self.medium.env
        with wall.lock:
            deadline = None if timeout is None else wall.now_ns() + round(timeout * NS_PER_S)
            while True:
                wall.catch_up(env)
                if self._rx:
                    return self._own(self._rx.popleft())
                if env.running or (deadline is not None and env.now >= deadline):
                    return None  # inside a simulation callback it never blocks
                wall.wait(env, deadline)

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
        """Stop this bus's periodic sends, then leave the medium."""
        super().shutdown()
        with self._wall.lock if self._wall else nullcontext():
            if self.controller in self.medium.controllers:
                self.medium.detach(self.controller)
            shared = _SHARED.get(self.medium.name)
            if self._shared and not self.medium.controllers and shared is not None \
                    and shared.medium is self.medium:
                del _SHARED[self.medium.name]
