"""Read a recorded .log, .asc or .blf completely, or fail with an error naming file and place.

python-can's readers parse; this module makes their failures (BLFParseError, struct.error,
zlib.error, unpacking errors, undecodable text) one `LogReadError` naming the file and the line
(text logs) or the frame (BLF), checks every frame is a frame a CAN controller could have
received, and reports what the file itself says is missing: a truncated BLF (fewer bytes or
objects than its header says), a BLF whose writer never closed it (header counts 0 objects), a
text log whose last line is cut.  Those are warnings (the frames read are still usable).
Timestamps are the recorder's clock: one that reads later than the year 9999 (LATEST_S,
~2.5e11 s) is an error; frames out of time order (timestamps going back) are put in time
order, with a warning naming the first line where time goes back.  CAN FD frames keep their
BRS and ESI flags; an FD length outside ``frame_bits_fd.FD_LENGTHS``, an FD remote frame or BRS
or ESI on a classic frame is an error.  python-can's ASCReader takes every CANFD line for an FD
frame and a 0-byte one for a remote frame; the line's own flags (EDL, remote) decide here.
"""

import math
import re
import struct
import warnings
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import can
from can.io.asc import ASC_MESSAGE_REGEX
from can.io.blf import BLFParseError

from servobus.bus.controller import id_fits
from servobus.bus.frame_bits_fd import FD_LENGTHS
from servobus.bus.untrusted import shown

SUFFIXES = (".log", ".asc", ".blf")
LATEST_S = 253_402_300_800.0  # 10000-01-01 as a Unix time: no recorder's clock reads later
# zlib inflates at most ~1032:1 and a BLF CAN object is 48 bytes: a bound on honest frame counts
_MAX_FRAMES_PER_BYTE = 22
_CANDUMP = re.compile(r"\(\S+\)\s+\S+\s+([0-9A-Fa-f]{3}|[0-9A-Fa-f]{8})#"
                      r"(R\d*|#[0-9A-Fa-f]([0-9A-Fa-f]{2})*|([0-9A-Fa-f]{2})*)(\s+[RTrt])?")
# an .asc line that names a channel and a direction is a frame line; python-can skips the ones
# its pattern does not match (a timestamp "nan", "1e308", "-1.0") without a word
_ASC_FRAME_LIKE = re.compile(r"\S+\s+(\d+\s+\w+\s+(Tx|Rx)|CANFD\s)", re.IGNORECASE)
ASC_EDL = 0x1000  # the CANFD line's flags (Vector's CAN FD message flags, as in BLF)
ASC_REMOTE = 0x0010
_PARSE_ERRORS = (ValueError, IndexError, KeyError, TypeError, OverflowError, struct.error,
                 zlib.error, BLFParseError, EOFError)

Warn = Callable[[str], None]


class LogReadError(ValueError):
    """A log file that is not a readable log, with file and line or frame."""


class LogWarning(UserWarning):
    """A log that was read but is incomplete (truncated, or its writer never closed it)."""


class Log(list[can.Message]):
    """A log's frames in time order, with its file and where each frame was read (`places`:
    file:line of a text log, file: frame n of a BLF) for errors about a frame found later."""

    def __init__(self, path: Path, messages: list[can.Message], places: list[str]) -> None:
        super().__init__(messages)
        self.path, self.places = path, places


def read_log(path: str | Path, warn: Warn | None = None) -> Log:
    """All frames of a recorded log in time order (file order where times are equal);
    LogReadError if it is not one, `warn` (default: a LogWarning) for a log that is readable
    but incomplete or out of time order."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"log file {path} does not exist")
    if path.is_dir():
        raise LogReadError(f"{path}: is a directory, not a log file")
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise LogReadError(f"{path}: unknown log format: use one of {', '.join(SUFFIXES)}")
    notes: list[str] = []
    places: list[str] = []
    messages = _read_blf(path, notes, places) if suffix == ".blf" else \
        _read_text(path, suffix, notes, places)
    if not messages:
        notes.append(f"{path}: no frames")
    log = _in_time_order(path, messages, places, notes)
    for note in notes:
        if warn is None:
            warnings.warn(note, LogWarning, stacklevel=2)
        else:
            warn(note)
    return log


def _in_time_order(path: Path, messages: list[can.Message], places: list[str],
                   notes: list[str]) -> Log:
    """The frames sorted by timestamp (stable), with a note when the file's were not."""
    back, latest, first, most = 0, -math.inf, "", 0.0
    for msg, where in zip(messages, places, strict=True):
        if msg.timestamp < latest:
            back += 1
            first = first or where
            most = max(most, latest - msg.timestamp)
        latest = max(latest, msg.timestamp)
    if not back:
        return Log(path, messages, places)
    notes.append(f"{first}: time goes back: {back} frames are earlier than a frame before "
                 f"them (up to {most:g} s); they are taken in time order")
    order = sorted(range(len(messages)), key=lambda i: messages[i].timestamp)
    return Log(path, [messages[i] for i in order], [places[i] for i in order])


def _check_frame(msg: can.Message, where: str) -> None:
    """A frame a CAN controller could have received (else a corrupt file)."""
    if not math.isfinite(msg.timestamp) or msg.timestamp < 0:
        raise LogReadError(f"{where}: bad timestamp {msg.timestamp}")
    if msg.timestamp >= LATEST_S:
        raise LogReadError(f"{where}: timestamp {msg.timestamp:g} s is after the year 9999")
    if msg.is_error_frame:
        return
    if not id_fits(msg.arbitration_id, msg.is_extended_id):
        raise LogReadError(f"{where}: CAN ID 0x{msg.arbitration_id:X} does not fit "
                           f"{'29' if msg.is_extended_id else '11'} bits")
    frame = f"ID 0x{msg.arbitration_id:X}"
    if not msg.is_fd:
        if msg.dlc > 8 or len(msg.data) > 8:
            raise LogReadError(f"{where}: {max(msg.dlc, len(msg.data))} data bytes in a classic "
                               f"CAN frame ({frame}; at most 8)")
        if msg.bitrate_switch or msg.error_state_indicator:
            flag = "BRS" if msg.bitrate_switch else "ESI"
            raise LogReadError(f"{where}: {flag} set on a classic CAN frame ({frame}): only a "
                               "CAN FD frame has it")
        return
    if msg.is_remote_frame:
        raise LogReadError(f"{where}: a CAN FD remote frame ({frame}): CAN FD has none")
    if len(msg.data) not in FD_LENGTHS:
        raise LogReadError(f"{where}: a CAN FD frame of {len(msg.data)} data bytes ({frame}): "
                           f"an FD frame holds {', '.join(map(str, FD_LENGTHS[:9]))}, "
                           f"{', '.join(map(str, FD_LENGTHS[9:]))} bytes")


class _Lines:
    """A text file handed to a python-can reader line by line, counting lines for errors."""

    def __init__(self, file: IO[str], candump: bool) -> None:
        self.file, self.candump, self.number, self.line = file, candump, 0, ""
        self.asc = not candump
        self.cut = ""

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        self.line = next(self.file)
        self.number += 1
        if not self.line.endswith("\n"):  # writers end every line: the file was cut here
            self.cut = self.line
            raise StopIteration
        text = self.line.strip()
        if self.candump and text and not _CANDUMP.fullmatch(text):
            raise LogReadError(f"not a candump frame: {shown(text)}")
        if self.asc and _ASC_FRAME_LIKE.match(text) and not ASC_MESSAGE_REGEX.match(text):
            raise LogReadError(f"not a .asc frame line (its time is not seconds such as "
                               f"1.000000): {shown(text)}")
        if self.asc and (canfd := _canfd_columns(text.split())):
            _check_canfd_length(canfd[0], canfd[2], canfd[3])
        return self.line

    def close(self) -> None:
        """python-can closes its file when done."""
        self.file.close()


def _read_text(path: Path, suffix: str, notes: list[str],
               places: list[str]) -> list[can.Message]:
    reader_type = can.CanutilsLogReader if suffix == ".log" else can.ASCReader
    messages: list[can.Message] = []
    with path.open(encoding="utf-8", newline="") as file:
        lines = _Lines(file, suffix == ".log")
        try:
            for read in reader_type(lines):  # type: ignore[arg-type]
                msg = read if lines.candump else _asc_flags(read, lines.line)
                places.append(f"{path}:{lines.number}")
                _check_frame(msg, places[-1])
                messages.append(msg)
        except UnicodeDecodeError as err:
            raise LogReadError(f"{path}:{lines.number + 1}: not a text log (byte "
                               f"0x{err.object[err.start]:02X} is not UTF-8)") from err
        except LogReadError as err:
            if str(err).startswith(str(path)):
                raise
            raise LogReadError(f"{path}:{lines.number}: {err}") from err
        except _PARSE_ERRORS as err:
            raise LogReadError(f"{path}:{lines.number}: not a {suffix} frame line "
                               f"{shown(lines.line.strip())}: {err}") from err
    last = lines.line
    if lines.cut:
        notes.append(f"{path}:{lines.number}: the last line is cut (file truncated?), "
                     f"dropped: {shown(lines.cut.strip())}")
    elif suffix == ".asc" and messages and last.strip().lower() != "end triggerblock":
        notes.append(f"{path}: no 'End TriggerBlock' (file truncated or never closed)")
    return messages


def _canfd_columns(words: list[str]) -> tuple[str, int, int, int] | None:
    """A Vector CANFD frame line's ID, BRS column index, DLC and data length (None: another
    line).  The line: time CANFD channel dir ID [name] BRS ESI DLC length data... duration
    bit-count flags ..."""
    if len(words) < 10 or words[1].upper() != "CANFD" or \
            words[4].lower().startswith("errorframe"):
        return None
    brs = 5 if words[5].isdigit() else 6  # a symbolic name may stand before BRS
    return words[4], brs, int(words[brs + 2], 16), int(words[brs + 3])


def _check_canfd_length(can_id: str, dlc: int, length: int) -> None:
    """A CANFD line's data length is an FD length and its DLC's (0 also for a remote frame),
    checked before python-can, which logs a mismatch and reads on."""
    if length not in FD_LENGTHS:
        raise LogReadError(f"a CAN FD frame of {length} data bytes (ID 0x{can_id.upper()}): "
                           f"an FD frame holds {', '.join(map(str, FD_LENGTHS[:9]))}, "
                           f"{', '.join(map(str, FD_LENGTHS[9:]))} bytes")
    if length and (dlc > 15 or FD_LENGTHS[dlc] != length):
        raise LogReadError(f"a CANFD line of ID 0x{can_id.upper()} with DLC {dlc:X} and "
                           f"{length} data bytes (DLC {FD_LENGTHS.index(length):X} holds "
                           f"{length})")


def _asc_flags(msg: can.Message, line: str) -> can.Message:
    """The frame of a CANFD line as its flags say (EDL: CAN FD, else a classic frame on an FD
    channel; remote), which python-can's reader leaves unread; other lines as read."""
    words = line.split()
    canfd = _canfd_columns(words)
    if canfd is None or msg.is_error_frame:
        return msg
    _, brs, _, length = canfd
    flags_at = brs + 4 + length + 2
    if len(words) <= flags_at:  # no flags written: as python-can read it
        return msg
    flags = int(words[flags_at], 16)
    msg.is_fd = bool(flags & ASC_EDL)
    if msg.is_remote_frame and not flags & ASC_REMOTE:
        msg.is_remote_frame, msg.dlc = False, len(msg.data)
    return msg


def _read_blf(path: Path, notes: list[str], places: list[str]) -> list[can.Message]:
    size = path.stat().st_size
    messages: list[can.Message] = []
    with path.open("rb") as file:
        try:
            reader = can.BLFReader(file)
        except _PARSE_ERRORS as err:
            raise LogReadError(f"{path}: not a BLF file ({size} bytes, no valid "
                               f"header: {_why(err)})") from err
        truncated = size < reader.file_size
        limit = _MAX_FRAMES_PER_BYTE * size + 1
        try:
            for msg in reader:
                places.append(f"{path}: frame {len(messages) + 1}")
                _check_frame(msg, places[-1])
                messages.append(msg)
                if len(messages) > limit:
                    raise LogReadError(f"{path}: corrupt BLF: more frames than "
                                       f"{size} bytes can hold")
        except LogReadError:
            raise
        except _PARSE_ERRORS as err:
            if not truncated:
                raise _corrupt(path, len(messages), err) from err
    count = reader.object_count
    if truncated:
        notes.append(f"{path}: truncated BLF: {size} of the header's {reader.file_size} "
                     f"bytes; read {len(messages)} frames of the header's {count} objects")
    elif count == 0 and messages:
        notes.append(f"{path}: the BLF header counts 0 objects (its writer never closed it); "
                     f"read {len(messages)} frames")
    elif len(messages) > count:
        notes.append(f"{path}: read {len(messages)} frames but the BLF header counts {count}")
    return messages


def _why(err: BaseException) -> str:
    """python-can's failure in words (struct.error and zlib.error are both called `error`)."""
    if isinstance(err, struct.error):
        return "the data ends inside a record"
    if isinstance(err, zlib.error):
        return f"damaged compressed data: {err}"
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def _corrupt(path: Path, frames: int, err: BaseException) -> LogReadError:
    """The error for BLF data python-can could not parse after `frames` frames."""
    return LogReadError(f"{path}: corrupt BLF data after {frames} frames ({_why(err)})")
