"""Record a bus to candump .log, .asc or .blf with python-can's writers, and replay a log.

Logs are read by `bus.log_reader.read_log`.  A CAN FD frame keeps its FDF, BRS and ESI flags in
every format: candump ``ID##<flags><data>``, a Vector ``CANFD`` line (BRS and ESI columns, EDL
in its flags), a BLF ``CAN_FD_MESSAGE`` object.

On the simulated bus the recorder taps the medium, so every delivered frame is written once with
its end-of-frame time, and every failed attempt as a python-can error frame
(``is_error_frame``) at the time its error flag began; on a real bus it is an ordinary
python-can Listener.  An error frame's 8 data bytes follow SocketCAN's error-frame layout:
byte 3 the protocol error location (0x08 CRC sequence: receivers saw a CRC error; 0x19 ACK slot:
nobody acknowledged), byte 6 the transmitter's TEC after the error; its arbitration ID (kept by
.blf, not by candump .log, which writes SocketCAN's bus-error ID) is the failed frame's.
"""

import contextlib
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import can

from servobus.bus import frame_bits as fb
from servobus.bus.faults import NO_ACK
from servobus.bus.log_reader import SUFFIXES
from servobus.bus.medium import FrameRecord, Medium
from servobus.bus.scheduler import NS_PER_S

LOC_CRC_SEQUENCE = 0x08  # SocketCAN CAN_ERR_PROT_LOC_CRC_SEQ
LOC_ACK_SLOT = 0x19  # SocketCAN CAN_ERR_PROT_LOC_ACK
REPLAY_IDLE_S = 60.0  # a replay waits at most this long between two frames (python-can's skip)


class LogWriteError(OSError):
    """A log file that could not be written (a full disk, a quota): names the file; the frames
    before the failure are in it as far as the disk took them."""


class LogWriter(can.Listener):
    """python-can's writer for the file's suffix (candump .log, Vector .asc, binary .blf), its
    OSErrors raised as LogWriteError naming the file; after the first one it writes nothing
    more and `stop` only releases the file (a flush would fail again)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.failed = False
        self._writer = self._guarded(can.Logger, self.path)

    def _guarded(self, call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except OSError as err:
            self.failed = True
            raise LogWriteError(err.errno, f"log {self.path}: could not write "
                                f"({err.strerror or err})") from err

    def on_message_received(self, msg: can.Message) -> None:
        """Write one frame (nothing once a write failed)."""
        if not self.failed:
            self._guarded(self._writer.on_message_received, msg)

    def stop(self) -> None:
        """Flush and close the file; after a failure, close it without raising again."""
        if not self.failed:
            self._guarded(self._writer.stop)
            return
        with contextlib.suppress(OSError):  # the failure is reported; what the disk took stays
            self._writer.stop()


def open_writer(path: str | Path) -> LogWriter:
    """The log writer for the file's suffix (candump .log, Vector .asc, binary .blf)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"log file {path}: use one of {', '.join(SUFFIXES)}")
    return LogWriter(path)


def error_frame(record: FrameRecord, medium: Medium) -> can.Message:
    """The python-can error frame of a failed transmission attempt, at its error flag."""
    data = bytearray(8)
    data[3] = LOC_ACK_SLOT if record.fault == NO_ACK else LOC_CRC_SEQUENCE
    data[6] = next((c.tec for c in medium.controllers if c.name == record.sender), 0)
    failed = record.msg
    flag_ns = record.end_ns - fb.ERROR_FRAME_BITS * medium.bit_ns  # the error frame's start
    return can.Message(timestamp=flag_ns / NS_PER_S, is_error_frame=True,
                       arbitration_id=failed.arbitration_id, is_extended_id=failed.is_extended_id,
                       data=bytes(data), channel=medium.name, is_rx=True, check=False)


class MediumRecorder:
    """Writes every delivered frame and every error frame of a simulated medium to a log."""

    def __init__(self, medium: Medium, path: str | Path) -> None:
        self.writer = open_writer(path)
        self.medium = medium
        self.frames = 0
        self.error_frames = 0
        medium.taps.append(self._tap)

    def _tap(self, record: FrameRecord) -> None:
        if record.ok:
            self.writer.on_message_received(record.msg)
            self.frames += 1
        else:
            self.writer.on_message_received(error_frame(record, self.medium))
            self.error_frames += 1

    def close(self) -> None:
        """Flush and close the file (a readable log also after Ctrl-C)."""
        self.writer.stop()


def capture(bus: can.BusABC, duration_s: float | None,
            sinks: list[Callable[[can.Message], None]], frames: int | None = None) -> int:
    """Read a live bus for `duration_s` (None: until Ctrl-C) or until `frames` frames came
    (None: no count), handing every frame to the sinks; return how many came.  Ctrl-C ends the
    capture cleanly."""
    end = None if duration_s is None else time.monotonic() + duration_s
    seen = 0
    try:
        while (end is None or time.monotonic() < end) and (frames is None or seen < frames):
            left = 0.1 if end is None else min(0.1, max(end - time.monotonic(), 0.0))
            msg = bus.recv(timeout=left)
            if msg is not None:
                seen += 1
                for sink in sinks:
                    sink(msg)
    except KeyboardInterrupt:
        pass
    return seen


def replay_sim(medium: Medium, messages: list[can.Message], name: str = "REPLAY") -> None:
    """Queue recorded frames on a simulated bus at their recorded times (relative to the first)."""
    if not messages:
        return
    ctrl = medium.attach(name, deliver=None, tx_queue_size=max(64, len(messages)))
    t0 = messages[0].timestamp
    for msg in messages:
        at = medium.env.now + round((msg.timestamp - t0) * NS_PER_S)
        medium.env.schedule(at, partial(medium.submit, ctrl, msg))


def long_gaps(messages: list[can.Message]) -> list[int]:
    """The frames (indices) a replay sends sooner than recorded: more than REPLAY_IDLE_S after
    the frame before."""
    return [i for i in range(1, len(messages))
            if messages[i].timestamp - messages[i - 1].timestamp > REPLAY_IDLE_S]


def replay_realtime(bus: can.BusABC, messages: list[can.Message]) -> int:
    """Send recorded frames (in time order) to a real bus with their original spacing, idle
    time longer than REPLAY_IDLE_S cut to it; return the count."""
    sent = 0
    for msg in can.MessageSync(messages, timestamps=True, skip=REPLAY_IDLE_S):
        bus.send(msg)
        sent += 1
    return sent
