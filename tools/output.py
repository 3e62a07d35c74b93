"""Printing results: JSON for scripts, an aligned key/value table for people."""

import json
import sys
from pathlib import Path
from typing import Any

from servobus.tools.errors import ServobusError


def emit(result: dict[str, Any], as_json: bool, title: str = "") -> None:
    """Print a result dict as JSON or as an indented table (nested dicts become sections)."""
    if as_json:
        print(json.dumps(result, indent=2))
        return
    if title:
        print(title)
    _table(result, indent=0)


def _fmt(value: Any) -> str:
    """Numbers to 6 significant digits at any depth of a list (no full-precision reprs)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, complex):
        return f"{value:.6g}".strip("()")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return str(value)


def _table(result: dict[str, Any], indent: int) -> None:
    width = max((len(k) for k in result), default=0)
    for key, value in result.items():
        if isinstance(value, dict) and value:
            print(" " * indent + f"{key}:")
            _table(value, indent + 2)
        elif isinstance(value, dict):
            print(" " * indent + f"{key:<{width}}  none")
        else:
            print(" " * indent + f"{key:<{width}}  {_fmt(value)}")


def emit_rows(title: str, rows: list[dict[str, Any]]) -> None:
    """Rows (dicts, the union of their keys as columns) as an aligned text table, cells as
    `emit` writes values."""
    if not rows:
        return
    columns = list(dict.fromkeys(k for r in rows for k in r))
    cells = [[_fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[k]) for row in cells)) for k, c in enumerate(columns)]
    print(f"{title}:")
    for line in ([*columns], *cells):
        print("  " + "  ".join(v.rjust(w) for v, w in zip(line, widths, strict=True)))


def warn(text: str) -> None:
    """A `warning: ...` line on stderr (the result is still printed)."""
    print(f"warning: {text}", file=sys.stderr)


def refuse_overwrite(path: str | Path, force: bool) -> None:
    """An existing output file is written over only with --force (`error:` otherwise)."""
    if not force and Path(path).exists():
        raise ServobusError(f"{path} exists: give --force to overwrite it")
