"""The simulated CAN wire: arbitration, exact frame timing, error frames, bus-off recovery.

    free_at --SOF-- arbitration field --...-- CRC | del ACK del | EOF(7) | IFS(3) -- free_at
                                                                ^ end of frame: delivery time

When the bus becomes free, every online controller with a ready frame takes part; the lowest
arbitration key wins and the others wait for the next free instant.  A frame lasts its exact bit
count (real stuff bits) at the bit rate.  A corrupted frame is detected by the receivers after the
ACK delimiter (CRC error), a frame nobody acknowledges by the transmitter in the ACK delimiter;
either way an error frame (6-bit flag + 8-bit delimiter) and the interframe space follow, the
counters move, and the frame stays queued for automatic retransmission.

A bus with a data bit rate is a CAN FD bus (``bit_timing``): it carries FD frames too, their
data phase at the data rate when BRS is set; from the CRC delimiter's end on, every frame's
bits are nominal, so the ACK, error flags and recovery are timed alike for both.  An
error-passive transmitter sends ESI recessive (ISO 11898-1:2015), whatever the message asked.
"""

from collections.abc import Callable
from typing import NamedTuple

import can

from servobus.bus import frame_bits as fb
from servobus.bus.bit_timing import BitTiming
from servobus.bus.controller import Controller, ErrorState, Pending, check_frame
from servobus.bus.faults import CORRUPT, NO_ACK, FaultPlan
from servobus.bus.frame_fast import stuffed_length_cached
from servobus.bus.scheduler import ARBITRATION, BUS, NS_PER_S, Environment, Handle, earliest

RECOVERY_SEQUENCES = 128
RECOVERY_RUN_BITS = 11


class FrameRecord(NamedTuple):
    """One transmission attempt as the bus saw it (what load meters and loggers tap)."""

    msg: can.Message
    sender: str
    start_ns: int
    end_ns: int  # end of frame (delivery), or end of the error frame
    busy_until_ns: int  # next SOF possible: end + interframe space
    ok: bool
    queued_ns: int = 0  # when the frame was handed to the controller
    fault: str = ""  # a failed attempt: CORRUPT (CRC error) or NO_ACK
    bits: int = 0  # the attempt's bits on the wire, interframe space included


class Medium:
    """A CAN bus segment shared by controllers, driven by an Environment."""

    def __init__(self, env: Environment, bitrate: int = 1_000_000, name: str = "servobus0",
                 faults: FaultPlan | None = None, data_bitrate: int | None = None) -> None:
        self.timing = BitTiming(bitrate, data_bitrate)
        self.env = env
        self.name = name
        self.bitrate = bitrate
        self.bit_ns = self.timing.bit_ns
        self.faults = faults or FaultPlan()
        self.controllers: list[Controller] = []
        self.taps: list[Callable[[FrameRecord], None]] = []
        self.free_at = 0
        self.recessive_from = 0
        self.frames = 0
        self.error_frames = 0
        self._arbitration: Handle | None = None
        self._recoveries: dict[str, Handle] = {}
        self._by_id: dict[int, list[Controller]] = {}  # who accepts an ID (cache)
        self._rec_pending = False  # some controller has REC > 0

    def attach(self, name: str, deliver: Callable[[can.Message], None] | None,
               tx_queue_size: int = 64) -> Controller:
        """A new controller on this bus; `deliver` gets every frame it receives."""
        if any(c.name == name for c in self.controllers):
            raise ValueError(f"a node named {name!r} is already on {self.name}")
        ctrl = Controller(name, deliver, tx_queue_size)
        self.controllers.append(ctrl)
        self.filters_changed()
        return ctrl

    def detach(self, ctrl: Controller) -> None:
        """Remove a controller (its queued frames are discarded)."""
        self.controllers.remove(ctrl)
        self.filters_changed()

    def filters_changed(self) -> None:
        """Forget which controllers accept which IDs (attach, detach, new acceptance filter)."""
        self._by_id.clear()

    def _listeners(self, can_id: int) -> list[Controller]:
        """Controllers whose acceptance filter admits `can_id` (cached per ID)."""
        found = self._by_id.get(can_id)
        if found is None:
            found = [c for c in self.controllers if c.deliver is not None
                     and (c.accept is None or can_id in c.accept)]
            self._by_id[can_id] = found
        return found

    def controller(self, name: str) -> Controller:
        """The controller attached under `name`."""
        for ctrl in self.controllers:
            if ctrl.name == name:
                return ctrl
        raise KeyError(f"no node named {name!r} on {self.name}")

    def submit(self, ctrl: Controller, msg: can.Message) -> None:
        """Queue a frame for transmission by `ctrl` (InvalidFrame for what a CAN controller
        refuses, CanOperationError when its queue is full)."""
        check_frame(msg, self.timing.fd)
        self.wake(ctrl.queue(msg, self.env.now))

    def wake(self, at: int) -> None:
        """Make sure an arbitration happens at the first free instant at or after `at`."""
        self._arbitration = earliest(self.env, self._arbitration,
                                     max(at, self.free_at, self.env.now), self._arbitrate,
                                     ARBITRATION)

    def _arbitrate(self) -> None:
        self._arbitration = None
        now = self.env.now
        best: tuple[Controller, Pending] | None = None
        for ctrl in self.controllers:
            if not (ctrl.ready_frames or ctrl.waiting_frames):
                continue
            pending = ctrl.head(now)
            if pending is not None and (best is None or pending.key < best[1].key):
                best = (ctrl, pending)
        if best is None:
            later = [t for t in (c.next_ready() for c in self.controllers) if t is not None]
            if later:
                self.wake(min(later))
            return
        self._transmit(*best, now)

    def _transmit(self, ctrl: Controller, pending: Pending, start: int) -> None:
        self._end_recessive_run(start)
        msg = pending.msg
        bit = self.bit_ns
        esi = msg.error_state_indicator
        if msg.is_fd:
            esi = esi or ctrl.state is ErrorState.PASSIVE
            head_ns, bits = self.timing.to_crc_delimiter(msg, esi)
        else:  # the hot path: compiled, remembered
            stuffed = stuffed_length_cached(msg.arbitration_id, bytes(msg.data),
                                            msg.is_extended_id)
            head_ns, bits = (stuffed + 1) * bit, stuffed + fb.TRAILER_BITS + fb.IFS_BITS
        crc_delimiter = start + head_ns
        receivers = [c for c in self.controllers if c is not ctrl and c.online]
        fault = self.faults.take(msg, ctrl.name, start)
        if not receivers:
            fault = NO_ACK
        if fault is None:
            end = crc_delimiter + (fb.TRAILER_BITS - 1) * bit
            self.free_at = end + fb.IFS_BITS * bit
            self.recessive_from = crc_delimiter + bit
            self.env.schedule(end, lambda: self._deliver(ctrl, pending, receivers, start, bits,
                                                         esi), BUS)
        else:
            # CRC error flagged after the ACK delimiter; a missing ACK in the ACK delimiter
            after = 2 if fault == CORRUPT else 1
            flag = crc_delimiter + after * bit
            end = flag + fb.ERROR_FRAME_BITS * bit
            self.free_at = end + fb.IFS_BITS * bit
            self.recessive_from = flag + 6 * bit
            bits += after - (fb.TRAILER_BITS - 1) + fb.ERROR_FRAME_BITS  # SOF..flag, error frame
            self.env.schedule(flag, lambda: self._error(ctrl, pending, receivers, start, flag,
                                                        fault, bits), BUS)
        self.wake(self.free_at)

    def _deliver(self, ctrl: Controller, pending: Pending, receivers: list[Controller],
                 start: int, bits: int, esi: bool) -> None:
        now = self.env.now
        ctrl.sent(pending)
        self._suspend_if_passive(ctrl)
        tx = pending.msg
        rx = can.Message(timestamp=now / NS_PER_S, arbitration_id=tx.arbitration_id,
                         is_extended_id=tx.is_extended_id, is_remote_frame=tx.is_remote_frame,
                         dlc=tx.dlc, data=tx.data, channel=self.name, is_rx=True,
                         is_fd=tx.is_fd, bitrate_switch=tx.bitrate_switch,
                         error_state_indicator=esi, check=False)
        self.frames += 1
        if self._rec_pending:
            for r in receivers:
                if r.rec:
                    r.received_after_error()
            self._rec_pending = any(r.rec for r in self.controllers)
        for r in self._listeners(rx.arbitration_id):
            if r is not ctrl and r.online:
                r.counters.rx_frames += 1
                r.deliver(rx)  # type: ignore[misc]
        if self.taps:
            record = FrameRecord(rx, ctrl.name, start, now, self.free_at, True, pending.queued,
                                 bits=bits)
            for tap in self.taps:
                tap(record)

    def _error(self, ctrl: Controller, pending: Pending, receivers: list[Controller],
               start: int, flag: int, fault: str, bits: int) -> None:
        ctrl.transmit_error(flag, ack_error=fault == NO_ACK)
        if fault == CORRUPT:
            for r in receivers:
                r.receive_error()
            self._rec_pending = bool(receivers)
        self._suspend_if_passive(ctrl)
        self.error_frames += 1
        if ctrl.state is ErrorState.BUS_OFF:
            self._schedule_recovery(ctrl)
        end = flag + fb.ERROR_FRAME_BITS * self.bit_ns
        record = FrameRecord(pending.msg, ctrl.name, start, end, self.free_at, False,
                             pending.queued, fault, bits)
        for tap in self.taps:
            tap(record)

    def _suspend_if_passive(self, ctrl: Controller) -> None:
        if ctrl.state is ErrorState.PASSIVE:
            ctrl.suspend_until = self.free_at + fb.SUSPEND_BITS * self.bit_ns

    def _end_recessive_run(self, sof: int) -> None:
        """A start of frame ends the recessive run: bus-off controllers count its sequences."""
        if not self._recoveries:
            return
        run_bits = RECOVERY_RUN_BITS * self.bit_ns
        for ctrl in self.controllers:
            if ctrl.bus_off_since is not None:
                self._recoveries.pop(ctrl.name).cancel()
                begin = max(self.recessive_from, ctrl.bus_off_since)
                ctrl.recessive_seen += max(sof - begin, 0) // run_bits
                self._schedule_recovery(ctrl)

    def _schedule_recovery(self, ctrl: Controller) -> None:
        assert ctrl.bus_off_since is not None
        begin = max(self.recessive_from, ctrl.bus_off_since)
        missing = RECOVERY_SEQUENCES - ctrl.recessive_seen
        due = begin + missing * RECOVERY_RUN_BITS * self.bit_ns
        old = self._recoveries.get(ctrl.name)
        if old is not None:
            old.cancel()
        self._recoveries[ctrl.name] = self.env.schedule(
            max(due, self.env.now), lambda: self._recover(ctrl), BUS)

    def _recover(self, ctrl: Controller) -> None:
        del self._recoveries[ctrl.name]
        ctrl.recover()
        ready = ctrl.next_ready()
        if ready is not None:
            self.wake(ready)
