"""Parsing of human-friendly command-line quantities: '4ms', '1M', '500k'."""

from servobus.bus.faults import FaultScriptError, parse_duration


def duration_ns(text: str) -> int:
    """'4ms' -> 4000000 (ns); a plain number is seconds."""
    try:
        return round(float(text) * 1e9)
    except ValueError:
        pass
    try:
        return parse_duration(text)
    except FaultScriptError as err:
        raise ValueError(str(err)) from err


def bitrate(text: str) -> int:
    """'1M', '500k', '125000' -> bits per second."""
    scale = {"k": 1_000, "K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    number = text[:-1] if scale != 1 else text
    try:
        value = round(float(number) * scale)
    except ValueError as err:
        raise ValueError(f"bad bit rate {text!r}: use e.g. 1M, 500k or 125000") from err
    if value <= 0:
        raise ValueError(f"bit rate must be positive, got {text!r}")
    return value
