"""Trajectory files and playback (SPEC 4.3).

A sample line holds one integer per joint (positions x_w in pot LSB, 0 <= x_w < 1024: 12 on
SPEJBL) and one real (seconds to interpolate from this line to the next), separated by any white
space.  A line is a sample if it does not start with '#' and its first field, or at least half
of its fields, are numbers; any other line is a comment (SPEC 4.3).  A sample that is not valid
(a field that is not a number, wrong field count, out-of-range or non-integer position, time
<= 0) is an error naming file, line and field: a typo (`O600 ...`) must not silently drop a pose.

Playback interpolates linearly in joint coordinates and wraps from the last line to the first;
it can be paused and scrubbed within the current interval.
"""

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from servobus.bus.untrusted import shown

JOINTS = 12  # SPEJBL's, the shipped gait's columns
POT_CODES = 1024
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class TrajectoryError(ValueError):
    """A malformed trajectory file, with file and line."""


@dataclass(frozen=True)
class Trajectory:
    """Poses (n x joints, LSB) and the time from each pose to the next (n, s)."""

    poses: np.ndarray
    durations: np.ndarray
    source: str = "<memory>"

    @property
    def period_s(self) -> float:
        """Time of one pass through all lines (back to the first)."""
        return float(self.durations.sum())

    def to_text(self) -> str:
        """The file form of this trajectory."""
        lines = [f"# servobus trajectory: {self.poses.shape[1]} joint positions (LSB), seconds "
                 "to next line"]
        for pose, dt in zip(self.poses, self.durations, strict=True):
            lines.append(" ".join(f"{int(x):4d}" for x in pose) + f"  {dt:.6g}")
        return "\n".join(lines) + "\n"


def parse(text: str, source: str = "<text>", joints: int = JOINTS) -> Trajectory:
    """Parse trajectory text of `joints` positions a line; TrajectoryError names source:line for
    every bad sample line."""
    poses, durations = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split()
        if not _is_sample(fields):
            continue
        pose, dt = _sample(fields, f"{source}:{number}", joints)
        poses.append(pose)
        durations.append(dt)
    if not poses:
        raise TrajectoryError(f"{source}: no sample lines")
    return Trajectory(np.array(poses, dtype=float), np.array(durations), source)


def _is_sample(fields: list[str]) -> bool:
    """A line meant as a sample: not a '#' comment, and a number first or mostly numbers."""
    if not fields or fields[0].startswith("#"):
        return False
    numbers = sum(1 for f in fields if _NUMBER.match(f))
    return bool(_NUMBER.match(fields[0])) or 2 * numbers >= len(fields)


def _field_name(k: int, joints: int) -> str:
    return f"joint {k} position" if k <= joints else "time" if k == joints + 1 else "extra"


def _sample(fields: list[str], where: str, joints: int) -> tuple[list[int], float]:
    """The positions and the time of one sample line (TrajectoryError naming the field)."""
    for k, field in enumerate(fields, start=1):
        if not _NUMBER.match(field):
            raise TrajectoryError(f"{where}: field {k} ({_field_name(k, joints)}) "
                                  f"{shown(field, 20)} is not a number (a sample is {joints} "
                                  "positions and 1 time)")
    if len(fields) != joints + 1:
        raise TrajectoryError(f"{where}: a sample needs {joints} positions and 1 time, "
                              f"got {len(fields)} fields")
    pose = []
    for k, field in enumerate(fields[:joints], start=1):
        value = float(field)
        if not value.is_integer() or not 0 <= value < POT_CODES:
            raise TrajectoryError(f"{where}: joint {k} position {field} is not an integer "
                                  f"in 0..{POT_CODES - 1}")
        pose.append(int(value))
    dt = float(fields[joints])
    if not math.isfinite(dt) or dt <= 0:
        raise TrajectoryError(f"{where}: time {fields[joints]} must be positive seconds")
    return pose, dt


def load(path: str | Path, joints: int = JOINTS) -> Trajectory:
    """Read and parse a trajectory file of `joints` positions a line."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise TrajectoryError(f"{path}: cannot read: {err}") from err
    return parse(text, str(path), joints)


def default_gait(joints: int = JOINTS) -> Trajectory:
    """The gait-like trajectory shipped with the package (SPEJBL's 12 joints); for another
    joint count, joint j follows the gait's joint (j - 1) mod 12 + 1 (a 6-joint leg: joints
    1..6)."""
    gait = load(Path(__file__).parent / "data" / "gait.traj")
    if joints == JOINTS:
        return gait
    columns = [j % JOINTS for j in range(joints)]
    return Trajectory(np.ascontiguousarray(gait.poses[:, columns]), gait.durations, gait.source)


class PlayerNumpy:
    """Playback clock over a trajectory: position at time t, pause, scrub (numpy: the reference
    that the compiled ``Player`` equals bit for bit)."""

    def __init__(self, trajectory: Trajectory) -> None:
        self.trajectory = trajectory
        self._starts = np.concatenate(([0.0], np.cumsum(trajectory.durations)))
        self._t = 0.0
        self._last_wall: float | None = None
        self.paused = False

    def advance_to(self, wall_s: float) -> None:
        """Move the playback clock with wall (or simulated) time, unless paused."""
        if self._last_wall is not None and not self.paused:
            self._t += wall_s - self._last_wall
        self._last_wall = wall_s

    def scrub(self, fraction: float) -> None:
        """Jump within the current interval (0 = its first line, 1 = the next line)."""
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"scrub takes a fraction 0..1 of the current interval, got {fraction}")
        start, dt = self._interval()
        self._t += (start + fraction * dt) - self._t % self.trajectory.period_s

    def _interval(self) -> tuple[float, float]:
        k = self.index()
        return float(self._starts[k]), float(self.trajectory.durations[k])

    def index(self) -> int:
        """The line the playback is interpolating from."""
        t = self._t % self.trajectory.period_s
        return int(np.searchsorted(self._starts, t, side="right") - 1)

    def position(self) -> np.ndarray:
        """Interpolated pose (a float per joint, LSB) at the playback time; wraps to the first
        line."""
        k = self.index()
        start, dt = self._interval()
        frac = (self._t % self.trajectory.period_s - start) / dt
        poses = self.trajectory.poses
        return poses[k] + frac * (poses[(k + 1) % len(poses)] - poses[k])


class Player(PlayerNumpy):
    """The same playback; the pose is one compiled call (``host_step.trajectory_position``)."""

    def __init__(self, trajectory: Trajectory) -> None:
        super().__init__(trajectory)
        from servobus.host import host_step  # numba: loaded by the first player, not on import

        self._interpolate = host_step.trajectory_position_c
        self._poses = np.ascontiguousarray(trajectory.poses, dtype=float)
        self._durations = np.ascontiguousarray(trajectory.durations, dtype=float)
        self._starts = np.ascontiguousarray(self._starts, dtype=float)
        self._period_s = trajectory.period_s
        self.position()  # load the machine code now, not in a real-time first period

    @property
    def clock(self) -> tuple[float, float | None]:
        """(playback time, the wall or simulated time it was last moved at), in s."""
        return self._t, self._last_wall

    @clock.setter
    def clock(self, value: tuple[float, float | None]) -> None:
        self._t, self._last_wall = value

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """(poses, line start times, durations, period) as the compiled interpolation reads
        them."""
        return self._poses, self._starts, self._durations, self._period_s

    def position(self) -> np.ndarray:
        """Interpolated pose (a float per joint, LSB) at the playback time; wraps to the first
        line."""
        out = np.empty(self._poses.shape[1])
        self._interpolate(self._poses, self._starts, self._durations, self._period_s,
                          float(self._t), out)
        return out
