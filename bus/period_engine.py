"""The period engine's bus: the reference medium's exact arbitration and bit times, frames as data.

A robot is described to the engine as nodes on one Environment (the reference path's event
loop, kept for the nodes' own timers):

* a node is a name plus, per CAN ID it accepts, a handler ``handler(can_id, data, now)``;
  it sends with ``send(sender, can_id, data)`` (standard IDs) from its timers or handlers;
* a periodic trigger, boards that answer it, a host that answers after all answers plus its
  compute time, periodic status frames: all are timers and handlers of that form (SPEJBL in
  ``robot.engine_run``; GuRoo, a host broadcasting set-points every 2 ms to 6 boards, is a
  host timer sending 6 frames and boards whose handler writes RAM).

How a stretch of traffic is computed: when the wire is free and frames wait, an arbitration runs
at ``max(free_at, now)`` after every event of that instant (the reference's ARBITRATION
priority); then, without going back to the event heap, frame after frame: the lowest key (base
ID, then queueing order) wins, lasts its exact time on the wire (its stuffed length plus
trailer, ``frame_fast``; an FD frame's nominal and data bits, ``bus.bit_timing``; cached), is
delivered at its end of frame and the wire is free again after the interframe space.
A delivery runs its handlers inline, with the clock moved to the end of frame, as long as no
timer is due before it (a delivery precedes timers of its own instant, as the reference's BUS
priority does) and it is within the run's limit (``env.until``); otherwise it becomes an event
at its end of frame and the stretch stops. Frames a handler queues join the next arbitration.
Hence the order of frames, every timestamp in ns, and every node action equal the reference's
(``tests/robot/test_engine_equality.py``). No error frames: a fault script runs on the reference
path. A delivered frame is a tuple for ``taps`` (the load meter, a log writer), never a
``can.Message`` unless a tap builds one."""

import heapq
from collections import deque
from collections.abc import Callable
from functools import cache, partial
from types import CellType, CodeType, FunctionType
from typing import Any

import can

from servobus.bus import frame_bits as fb
from servobus.bus.bit_timing import BitTiming, fd_length
from servobus.bus.controller import DEFAULT_TX_QUEUE as TX_QUEUE
from servobus.bus.frame_bits import LENGTH_CACHE
from servobus.bus.frame_fast import stuffed_length
from servobus.bus.scheduler import ARBITRATION, BUS, NS_PER_S, Environment, Handle, earliest

Handler = Callable[[int, bytes, int], None]
Tap = Callable[[int, int, int, int, bytes, int], None]  # start, end, busy_until, id, data, sender
Charge = Callable[[int, int, int, bool], None]  # start, busy_until, bits, ok (a load meter)
Length = tuple[int, int]  # a frame's bits on the wire (interframe space included), its ns
# from SOF to its end of frame
Queued = tuple[int, bytes, int, int]  # sender, data, bits, ns to end of frame (an ID's FIFO)
NEVER = 1 << 62  # no timer due, no run limit (ns; later than any simulated instant)
FrameFormat = tuple[int, int, int, bool, bool]  # ID, bit ns, data bit ns, FD, BRS


# per ID and bit timing, a frame's length by payload, shared by all buses
_lengths: dict[FrameFormat, dict[bytes, Length]] = {}
_remembered = [0]  # how many: all are forgotten past LENGTH_CACHE (bounded memory)


def length_of(form: FrameFormat, data: bytes, lengths: dict[bytes, Length]) -> Length:
    """A payload's bits and ns to its end of frame, remembered in `lengths` (its format's in
    ``_lengths``)."""
    if _remembered[0] >= LENGTH_CACHE:
        for known in _lengths.values():
            known.clear()
        _remembered[0] = 0
    _remembered[0] += 1
    can_id, bit_ns, data_bit_ns, fd, brs = form
    if fd:
        fd_bits = fd_length(can_id, data, False, brs, False)
        bits = fd_bits.nominal_bits + fd_bits.data_bits
        span = (fd_bits.nominal_bits - fb.IFS_BITS) * bit_ns + fd_bits.data_bits * data_bit_ns
    else:
        stuffed = stuffed_length(can_id, data, False)
        bits = stuffed + fb.TRAILER_BITS + fb.IFS_BITS
        span = (stuffed + fb.TRAILER_BITS) * bit_ns
    length = lengths[data] = (bits, span)
    return length


def _ignore(can_id: int, data: bytes, now: int) -> None:
    """A frame no other node accepts."""


@cache
def _fan_out_code(size: int) -> CodeType:
    """The code of a fan-out to `size` handlers: straight-line calls of its free variables
    (compiled once per size from our own source, nothing of the caller's in it)."""
    names = ", ".join(f"h{k}" for k in range(size))
    calls = "".join(f"        h{k}(can_id, data, now)\n" for k in range(size))
    source = f"def bind({names}):\n    def fan_out(can_id, data, now):\n{calls}" \
        "    return fan_out\n"
    scope: dict[str, Any] = {}
    exec(compile(source, "<LeanBus fan-out>", "exec"), scope)
    return scope["bind"](*[None] * size).__code__


def fan_out(handlers: list[Handler]) -> Handler:
    """One function that calls `handlers` in order with a frame's arguments, ~20 % less per
    delivery than a loop for 13 handlers: a loop's one call site calling 13 different handlers
    stays generic, while here each handler has its own call site, which CPython 3.11
    specialises (each fan-out a copy of the code, so its sites see only its handlers; a copy
    costs ~0.4 us, a compile ~150 us).  A handler that raises stops the rest, as in a loop."""
    if not handlers:
        return _ignore
    if len(handlers) == 1:
        return handlers[0]
    code = _fan_out_code(len(handlers)).replace()  # a new code object: its own inline caches
    cells = {f"h{k}": CellType(handler) for k, handler in enumerate(handlers)}
    return FunctionType(code, {}, "fan_out", None, tuple(cells[v] for v in code.co_freevars))


class Fifo(deque[Queued]):
    """One ID's queued frames in queueing order, that ID's remembered lengths (a dict by
    payload, shared by all buses of its bit timing and frame format: cheaper per frame than a
    cache keyed by ID and payload) and,
    per sender, the ``fan_out`` of the handlers its frames go to (None until first needed: a
    list index per frame, cheaper than a dict keyed by ID and sender)."""

    __slots__ = ("form", "heard", "lengths")

    def __init__(self, form: FrameFormat, nodes: int) -> None:
        super().__init__()
        self.form = form
        self.lengths = _lengths.setdefault(form, {})
        self.heard: list[Handler | None] = [None] * nodes


class LeanBus:
    """One CAN segment whose frames are (id, data) pairs and whose handlers are functions.

    The arbitration order, lowest ID then queueing order, is kept as one FIFO per ID (frames of
    one ID leave in the order they were queued, whoever sent them) and a heap of the IDs whose
    FIFO holds a frame (``_pool``, truthy while any frame waits): the winner is the smallest ID
    in it, an int comparison of at most as many IDs as wait, not of every queued frame.

    On a CAN FD bus (`timing` with a data bit rate) the IDs of `fd_ids` are FD frames, with BRS
    where it maps them to True (the DBC's frame formats)."""

    def __init__(self, env: Environment, timing: BitTiming | None = None,
                 fd_ids: dict[int, bool] | None = None) -> None:
        self.timing = timing = timing or BitTiming()
        if fd_ids and not timing.fd:
            raise ValueError(f"CAN FD frames on a classic bus ({timing.describe()})")
        self.env = env
        self.bit_ns = timing.bit_ns
        self.fd_ids = fd_ids or {}
        self.names: list[str] = []
        self.handlers: list[dict[int, Handler]] = []
        self.taps: list[Tap] = []
        self.charges: list[Charge] = []
        self.free_at = 0
        self.frames = 0
        self._pool: list[int] = []  # a heap of the IDs whose FIFO is not empty
        self._fifo: dict[int, Fifo] = {}  # per ID, its frames in queueing order
        self._queued: list[int] = []  # per node, its frames queued and not yet delivered
        self._arbitration: Handle | None = None
        self._busy = False  # inside a stretch: its own loop picks up frames queued meanwhile

    def attach(self, name: str, handlers: dict[int, Handler]) -> int:
        """A node with its handlers per accepted CAN ID; returns its sender index."""
        if name in self.names:
            raise ValueError(f"a node named {name!r} is already on the bus")
        self.names.append(name)
        self.handlers.append(handlers)
        self._queued.append(0)  # the counts of frames already queued stay
        for fifo in self._fifo.values():  # who hears whom has changed
            fifo.heard = [None] * len(self.names)
        return len(self.names) - 1

    def send(self, sender: int, can_id: int, data: bytes) -> None:
        """Queue a frame now (CanOperationError when the sender's queue is full)."""
        queued = self._queued
        count = queued[sender]
        if count >= TX_QUEUE:
            raise can.CanOperationError(f"{self.names[sender]}: transmit queue full")
        queued[sender] = count + 1
        try:
            fifo = self._fifo[can_id]
        except KeyError:  # the ID's first frame on this bus
            fifo = self._fifo[can_id] = Fifo(self._format(can_id), len(self.names))
        bits, span = fifo.lengths.get(data) or length_of(fifo.form, data, fifo.lengths)
        if not fifo:
            heapq.heappush(self._pool, can_id)
        fifo.append((sender, data, bits, span))
        if not self._busy:
            self.wake(self.env.now)

    def _format(self, can_id: int) -> FrameFormat:
        """The ID's frame format on this bus (its lengths' key)."""
        fd = can_id in self.fd_ids
        return (can_id, self.bit_ns, self.timing.data_bit_ns, fd, fd and self.fd_ids[can_id])

    def idle(self, now: int) -> bool:
        """Nothing queued, no arbitration pending, no stretch running and the wire free by `now`
        (a frame whose delivery is still pending keeps the wire busy until after it)."""
        return not self._pool and self._arbitration is None and not self._busy and \
            self.free_at <= now

    def wake(self, at: int) -> None:
        """An arbitration at the first free instant at or after `at` (as Medium.wake)."""
        if self._busy:
            return
        self._arbitration = earliest(self.env, self._arbitration,
                                     max(at, self.free_at, self.env.now), self._stretch,
                                     ARBITRATION)

    def receivers(self, can_id: int, sender: int) -> Handler:
        """The ``fan_out`` of every other node's handler for `can_id`, in attach order (cached
        in the ID's FIFO, which a frame of that ID has created, until a node attaches)."""
        heard = self._fifo[can_id].heard
        found = heard[sender]
        if found is None:
            found = heard[sender] = fan_out([h[can_id] for k, h in enumerate(self.handlers)
                                             if k != sender and can_id in h])
        return found

    def _stretch(self) -> None:
        """Transmit frame after frame until a timer, the run's limit or an idle wire intervenes.

        The free instant and the frame count live in locals while the loop runs (nothing reads
        them inside a stretch: ``wake`` and ``idle`` see ``_busy``) and are written back on the
        way out, also when a handler raised."""
        self._arbitration = None
        self._busy = True
        env, pool, fifos = self.env, self._pool, self._fifo
        events = env.heap  # read in place: the next timer is its head unless cancelled
        ifs = fb.IFS_BITS * self.bit_ns
        queued, charges, taps = self._queued, self.charges, self.taps
        paced = env.realtime_factor is not None
        until = NEVER if env.until is None else env.until
        free, frames = self.free_at, self.frames  # only this loop moves them while it runs
        start = free if free > env.now else env.now  # then each frame's start is the last's free
        try:
            while pool:
                if events:  # a timer due before the end of frame stops the stretch
                    head = events[0]
                    if head[3] is None:  # a cancelled head: peek drops it
                        nxt = env.peek()
                        due = NEVER if nxt is None else nxt
                    else:
                        due = head[0]
                    if due <= start and start > env.now:  # a frame not starting at once
                        return
                    cut = due if due < until else until
                else:
                    cut = until
                can_id = pool[0]  # lowest ID, then (its FIFO) queueing order
                fifo = fifos[can_id]
                sender, data, bits, span = fifo[0]  # left in its FIFO until delivered (below)
                end = start + span
                busy = end + ifs
                if end > cut:
                    free = busy
                    fifo.popleft()
                    if not fifo:
                        heapq.heappop(pool)
                    env.schedule(end, partial(self._deliver, can_id, sender, data, bits, start),
                                 BUS)
                    return
                if paced:  # an interrupted pacing sleep (Ctrl-C) leaves the frame queued, wire free
                    env.advance(end)
                else:
                    env.now = end
                free = busy
                try:  # the delivery, as _deliver (inline: the bus's hottest loop)
                    queued[sender] = queued[sender] - 1
                    frames += 1
                    if charges:
                        for charge in charges:
                            charge(start, busy, bits, True)
                    if taps:
                        for tap in taps:
                            tap(start, end, busy, can_id, data, sender)
                    receivers = fifo.heard[sender]
                    if receivers is None:
                        receivers = self.receivers(can_id, sender)
                    receivers(can_id, data, end)
                finally:  # a frame of the same ID queued meanwhile went behind it: no heap change
                    fifo.popleft()
                    if not fifo:
                        if pool[0] == can_id:
                            heapq.heappop(pool)
                        else:  # a lower ID queued meanwhile
                            pool.remove(can_id)
                            heapq.heapify(pool)
                start = busy  # the next frame's, back to back
        finally:  # also when a handler raised: the frames still queued go out on the next run
            self.free_at, self.frames = free, frames
            self._busy = False
            if pool and self._arbitration is None:
                self.wake(free)

    def _deliver(self, can_id: int, sender: int, data: bytes, bits: int, start: int) -> None:
        """A frame's end of frame as an event of its own (a timer or the run's limit came first)."""
        now = self.env.now
        self._queued[sender] -= 1
        self.frames += 1
        busy = self.free_at
        for charge in self.charges:  # meter and log first: a run interrupted in a handler
            charge(start, busy, bits, True)  # has logged
        for tap in self.taps:  # every frame a node may have acted on
            tap(start, now, busy, can_id, data, sender)
        self.receivers(can_id, sender)(can_id, data, now)


CHANNEL = "servobus0"  # the channel the period engine's frames carry, as the reference medium's


def rx_message(can_id: int, data: bytes, now: int, fd_ids: dict[int, bool]) -> can.Message:
    """The received frame as the reference medium hands it out (for logs and Python nodes; an
    FD frame when its ID is in `fd_ids`, with BRS where that maps it to True)."""
    fd = can_id in fd_ids
    return can.Message(timestamp=now / NS_PER_S, arbitration_id=can_id, is_extended_id=False,
                       is_remote_frame=False, dlc=len(data), data=data, channel=CHANNEL,
                       is_rx=True, is_fd=fd, bitrate_switch=fd and fd_ids[can_id], check=False)
