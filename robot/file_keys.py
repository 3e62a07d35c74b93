"""Reading a description file's values: each checked for its type and range, each failure a
RobotFileError `FILE: key path: what is wrong`."""

import difflib
import math
from pathlib import Path
from typing import Any

from servobus.bus.faults import FaultScriptError, parse_duration


class RobotFileError(ValueError):
    """A description file that cannot describe a robot: `FILE: key path: what is wrong`."""


class FileKeys:
    """The values of one file, read key by key; builds its errors."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, key: str, what: str) -> RobotFileError:
        """The error at `key` of this file."""
        return RobotFileError(f"{self.path}: {key}: {what}")

    def keys(self, key: str, table: Any, allowed: tuple[str, ...] | list[str]) -> dict[str, Any]:
        """`table` as a dict whose keys are all in `allowed` (the closest one suggested)."""
        if not isinstance(table, dict):
            raise self.error(key, f"must be a table, got {shown(table)}")
        for name in table:
            if name not in allowed:
                close = difflib.get_close_matches(name, allowed, n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise self.error(f"{key}.{name}" if key else name,
                                 f"unknown key{hint}; use {', '.join(allowed)}")
        return table

    def string(self, key: str, value: Any) -> str:
        """A non-empty string."""
        if not isinstance(value, str) or not value:
            raise self.error(key, f"must be a non-empty string, got {shown(value)}")
        return value

    def integer(self, key: str, value: Any, lo: int, hi: int) -> int:
        """A whole number in lo..hi (not a bool)."""
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, f"must be a whole number, got {shown(value)}")
        if not lo <= value <= hi:
            raise self.error(key, f"{value} is outside {lo}..{hi}")
        return value

    def number(self, key: str, value: Any, lo: float, hi: float) -> float:
        """A finite number in lo..hi."""
        if not isinstance(value, int | float) or isinstance(value, bool) or \
                not math.isfinite(value):
            raise self.error(key, f"must be a finite number, got {shown(value)}")
        if not lo <= value <= hi:
            raise self.error(key, f"{value:g} is outside {lo:g}..{hi:g}")
        return float(value)

    def choice(self, key: str, value: Any, choices: tuple[str, ...]) -> str:
        """One of `choices`."""
        if value not in choices:
            raise self.error(key, f"{shown(value)}: use one of {', '.join(choices)}")
        return str(value)

    def duration_ns(self, key: str, value: Any) -> int:
        """A duration written with its unit ('4ms', '200us') in ns."""
        try:
            return parse_duration(self.string(key, value))
        except FaultScriptError as err:
            raise self.error(key, str(err)) from None


def shown(value: Any) -> str:
    """A TOML value in an error, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
