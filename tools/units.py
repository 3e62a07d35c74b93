"""Command-line value types: every numeric option is checked here, at the boundary.

Each factory returns an argparse ``type=`` callable that raises ``argparse.ArgumentTypeError``
(printed as ``servobus CMD: error: argument --x: …``, exit status 2) for NaN, infinities, values
out of the option's range and malformed lists, so no command ever sees them.
"""

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from servobus.bus.faults import FaultScriptError, parse_duration
from servobus.bus.frame_bits_fd import DATA_BIT_NS_MIN
from servobus.bus.log_reader import SUFFIXES
from servobus.bus.schema import BITRATE_MAX, BITRATE_MIN, whole_ns_bit_time

# classic CAN: ISO 11898 runs from 10 kbit/s to 1 Mbit/s
# the shortest period / window of the analyses (about one CAN frame at 1 Mbit/s)
PERIOD_MIN_NS = 100_000
SEED_MAX = 2**32 - 1
DATA_BITRATE_MAX = 1_000_000_000 // DATA_BIT_NS_MIN  # CAN FD's data phase: 8 Mbit/s

Bad = argparse.ArgumentTypeError


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise Bad(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise Bad(f"{text!r} is not a finite number")
    return value


def _ranged(convert: Callable[[str], float], lo: float, hi: float, span: str,
            name: str) -> Callable[[str], Any]:
    """An argparse type: `convert(text)`, refused outside [lo, hi] (`span` names the range)."""

    def parse(text: str) -> Any:
        value = convert(text)
        if not lo <= value <= hi:
            raise Bad(f"{text} is outside {span}")
        return value

    parse.__name__ = name
    return parse


def real(lo: float, hi: float, *, lo_open: bool = False,
         hi_open: bool = False) -> Callable[[str], float]:
    """A finite float in [lo, hi] (an open end if `lo_open` / `hi_open`)."""
    span = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    return _ranged(_number, math.nextafter(lo, math.inf) if lo_open else lo,
                   math.nextafter(hi, -math.inf) if hi_open else hi, span, "number")


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise Bad(f"{text!r} is not a whole number") from None


def integer(lo: int, hi: int) -> Callable[[str], int]:
    """An int in [lo, hi]."""
    return _ranged(_whole, lo, hi, f"{lo}..{hi}", "whole number")


def seconds(lo: float, hi: float) -> Callable[[str], float]:
    """A duration in seconds within [lo, hi]: a plain number, or '4ms', '1.5s', '300us'."""
    return _ranged(lambda text: duration_ns(text) / 1e9, lo, hi, f"{lo:g} s .. {hi:g} s",
                   "duration")


def period_ns(lo_ns: int = PERIOD_MIN_NS, hi_ns: int = 10_000_000_000) -> Callable[[str], int]:
    """A period or window in integer ns within [lo_ns, hi_ns] ('4ms', or plain seconds)."""
    return _ranged(duration_ns, lo_ns, hi_ns, f"{lo_ns / 1e6:g} ms .. {hi_ns / 1e9:g} s",
                   "period")


def duration_ns(text: str) -> int:
    """'4ms' -> 4000000 (ns); a plain number is seconds; NaN and infinities are refused."""
    try:
        value = float(text)
    except ValueError:
        try:
            return parse_duration(text)
        except FaultScriptError as err:
            raise Bad(str(err)) from None
    if not math.isfinite(value) or abs(value) > 1e9:
        raise Bad(f"{text!r} is not a finite duration")
    return round(value * 1e9)


def _rate(text: str) -> float:
    """'1M', '500k', '125000' -> bits per second."""
    scale = {"k": 1_000, "K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    number = text[:-1] if scale != 1 else text
    try:
        return _number(number) * scale
    except Bad:
        raise Bad(f"bad bit rate {text!r}: use e.g. 1M, 500k or 125000") from None


def _whole_ns_rate(text: str, what: str, top: int, span: str, examples: str) -> int:
    """A bit rate of 10 kbit/s .. `top` with a bit time of whole nanoseconds (the simulated bus
    counts ns)."""
    value = _rate(text)
    if not BITRATE_MIN <= value <= top:
        raise Bad(f"{what} {text} is outside {span}")
    if not whole_ns_bit_time(value):
        raise Bad(f"{what} {text}: the bit time must be whole nanoseconds (e.g. {examples})")
    return round(value)


def bitrate(text: str) -> int:
    """'1M', '500k', '125000' -> bits per second, classic CAN's 10 kbit/s .. 1 Mbit/s."""
    return _whole_ns_rate(text, "bit rate", BITRATE_MAX, "classic CAN's 10k .. 1M", "125k, 500k")


def data_bitrate(text: str) -> int:
    """'5M', '2M' -> a CAN FD data phase's bits per second, 10 kbit/s .. 8 Mbit/s (that it is
    not below the nominal rate is the bus's check)."""
    return _whole_ns_rate(text, "data bit rate", DATA_BITRATE_MAX, "CAN FD's 10k .. 8M",
                          "2M, 5M")


def joints(text: str, top: int) -> list[int]:
    """'1,3,4', '1-12' or '1,3,5-7' -> sorted joint numbers 1..top, each once."""
    values: list[int] = []
    for part in text.split(","):
        if not part.strip():
            raise Bad(f"{text!r}: an empty joint number: give joints 1..{top} as numbers and "
                      "ranges, e.g. 1-12 or 1,3,5-7")
        lo, _, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi if hi else lo)
        except ValueError:
            raise Bad(f"{text!r}: give joints 1..{top} as numbers and ranges of whole "
                      "numbers, e.g. 1-12 or 1,3,5-7") from None
        if not 1 <= first <= last <= top:
            raise Bad(f"{text!r}: {part.strip()!r} is not a range within 1..{top}")
        values += range(first, last + 1)
    if len(set(values)) != len(values):
        raise Bad(f"{text!r}: a joint is named twice")
    return sorted(values)


def output_file(suffixes: tuple[str, ...]) -> Callable[[str], str]:
    """A file to write: a known suffix (any if none given), in an existing writable directory
    (checked before the command runs, so no result is lost to a bad path at the end)."""

    def parse(text: str) -> str:
        path = Path(text)
        if suffixes and path.suffix.lower() not in suffixes:
            raise Bad(f"{text}: the file name must end in {' or '.join(suffixes)}")
        folder = path.parent
        if not folder.is_dir():
            raise Bad(f"{text}: directory {folder} does not exist")
        if path.is_dir():
            raise Bad(f"{text} is a directory")
        if not _writable(folder) or (path.exists() and not _writable(path)):
            raise Bad(f"{text}: not writable")
        return text

    parse.__name__ = "file"
    return parse


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


SEED = integer(0, SEED_MAX)
PORT = integer(0, 65535)  # a TCP port, or 0 for any free one
ALPHA = real(0.01, 100.0)  # load inertia factor: 1/100 .. 100 times the nominal load
REALTIME_FACTOR = real(0.01, 100.0)
FRAMES = integer(1, 10**12)  # a frame count that ends a capture
RUN_SECONDS = seconds(0.001, 86_400.0)  # a run, simulated or on a live bus: 1 ms .. one day
EXPERIMENT_SECONDS = seconds(0.001, 3600.0)  # a benchmark or an identification: up to an hour
PNG = output_file((".png",))
LOG = output_file(SUFFIXES)
ANY_FILE = output_file(())
