"""Poses files: a Cartesian trajectory, the feet's poses over time (read by ``host.cartesian``).

One pose line per sample: for each leg of the robot (in the description's `legs` order) the
foot's x y z in mm and roll pitch yaw in degrees, in that leg's leg frame (``host.leg_frame``:
origin at the hip, x forward, y left, z up, orientation relative to the standing foot), then the
seconds from this line to the next (as in a .traj file, SPEC 4.3), separated by any white space.
'#' starts a comment to the end of the line; blank lines are skipped.  Every other line is a
pose line: a field that is not a number, a wrong field count or a time <= 0 is an error naming
the file, the line and the field.
"""

import math
import re
from dataclasses import dataclass
from pathlib import Path

from servobus.bus.untrusted import shown

FIELDS = ("x", "y", "z", "roll", "pitch", "yaw")  # per leg: mm, mm, mm, deg, deg, deg
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


class PosesError(ValueError):
    """A malformed poses file, or a pose the legs cannot take: `FILE:LINE: what`."""


@dataclass(frozen=True)
class FootPose:
    """One foot's pose in its leg frame: position in mm, roll pitch yaw in degrees."""

    position_mm: tuple[float, float, float]
    rpy_deg: tuple[float, float, float]


@dataclass(frozen=True)
class PoseLine:
    """One pose line: each leg's foot, the seconds to the next line, where it was read."""

    feet: tuple[FootPose, ...]
    seconds: float
    line: int


def parse(text: str, source: str, legs: tuple[str, ...]) -> list[PoseLine]:
    """The pose lines of `text`, six numbers for each of `legs` (their names, for errors) and
    the seconds; PosesError naming source:line for a bad one, or for a file of none."""
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split("#", 1)[0].split()
        if fields:
            out.append(_line(fields, f"{source}:{number}", legs, number))
    if not out:
        raise PosesError(f"{source}: no pose lines")
    return out


def _field_name(k: int, legs: tuple[str, ...]) -> str:
    """Field k (from 0) as errors name it: 'left z', 'seconds'."""
    if k < 6 * len(legs):
        return f"{legs[k // 6]} {FIELDS[k % 6]}"
    return "seconds" if k == 6 * len(legs) else "extra"


def _line(fields: list[str], where: str, legs: tuple[str, ...], number: int) -> PoseLine:
    """One pose line's feet and seconds (PosesError naming the field)."""
    for k, field in enumerate(fields):
        if not _NUMBER.fullmatch(field) or not math.isfinite(float(field)):
            raise PosesError(f"{where}: field {k + 1} ({_field_name(k, legs)}) "
                             f"{shown(field, 20)} is not a finite number")
    want = 6 * len(legs) + 1
    if len(fields) != want:
        raise PosesError(f"{where}: a pose line is x y z roll pitch yaw for each leg "
                         f"({', '.join(legs)}) and the seconds: {want} fields, got {len(fields)}")
    values = [float(f) for f in fields]
    feet = tuple(FootPose((values[k], values[k + 1], values[k + 2]),
                          (values[k + 3], values[k + 4], values[k + 5]))
                 for k in range(0, 6 * len(legs), 6))
    if values[-1] <= 0:
        raise PosesError(f"{where}: seconds {fields[-1]} must be positive")
    return PoseLine(feet, values[-1], number)


def load(path: str | Path, legs: tuple[str, ...]) -> list[PoseLine]:
    """Read and parse a poses file for the legs named `legs`."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise PosesError(f"{path}: cannot read: {err}") from err
    return parse(text, str(path), legs)
