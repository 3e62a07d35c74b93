"""GuRoo's joint trajectories (SPEC 5): chained moves of the central computer's velocity profile.

A move of theta in T has the velocity omega(t) = (theta / T) (1 - cos(2 pi t / T)), 0 <= t <= T:
zero velocity and acceleration at both ends, so moves chain without jumps; its position is the
closed-form integral (theta / T) (t - T / (2 pi) sin(2 pi t / T)), theta at t = T.  A joint plays
its ``start`` moves once, then repeats its ``cycle`` moves forever.  A gait gives all 23 joints;
every joint's cycle lasts as long as every other's (the joints stay in phase) and returns its
joint to where it began (sum of thetas 0: no drift).  A joint's cycle begins when its own start
ends, so starts of different lengths set the phase between two joints' cycles: a joint whose
moves are offset from the others' (the walk's sway against its steps) begins its cycle at a
rest instant of its own, since a move cannot be cut at the cycle's seam.

File format (TOML, degrees and seconds): ``[joint.<n>]`` tables, n = 1..23, each with ``start``
and ``cycle``, lists of ``[theta_deg, T_s]`` pairs; a joint not listed holds still.  Other top
level tables (``[pattern]``: the walking pattern's parameters) are documentation, not read here.
"""

import itertools
import math
import tomllib
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from servobus.bus.untrusted import shown
from servobus.presets import guroo as pre

JOINTS = pre.JOINTS  # 23
DC_JOINTS = pre.DC_JOINTS  # joints 1..15: high-power boards 1..5, three each; 16..23: servos
# what VEL_SP and SERVO_SP can carry (dbc/guroo.dbc): a gait beyond them would be clipped
VEL_SP_MAX_RAD_S = 32767 * 16 / (pre.COUNTS_PER_REV * pre.GEAR_RATIO / (2 * math.pi))
SERVO_SP_MAX_RAD = 32.767
JOINT_NAMES = (
    "l_hip_yaw", "l_hip_roll", "l_hip_pitch",  # HP_1 motors 1..3
    "l_knee_pitch", "l_ankle_pitch", "l_ankle_roll",  # HP_2
    "r_hip_yaw", "r_hip_roll", "r_hip_pitch",  # HP_3
    "r_knee_pitch", "r_ankle_pitch", "r_ankle_roll",  # HP_4
    "waist_yaw", "waist_roll", "waist_pitch",  # HP_5: the abdomen
    "l_shoulder_pitch", "l_shoulder_roll", "l_elbow_pitch",  # SERVO_BOARD servos 1..3
    "r_shoulder_pitch", "r_shoulder_roll", "r_elbow_pitch",  # servos 4..6
    "neck_yaw", "neck_pitch")  # servos 7..8: the head
TOLERANCE = 1e-9


class GaitError(ValueError):
    """A malformed gait file, naming the file and the joint."""


def board_of(joint: int) -> tuple[str, int]:
    """The node driving joint 1..23 and its motor (1..3) or servo (1..8) number."""
    if joint <= DC_JOINTS:
        return f"HP_{(joint - 1) // 3 + 1}", (joint - 1) % 3 + 1
    return "SERVO_BOARD", joint - DC_JOINTS


def move_velocity(theta: float, duration: float, t: float) -> float:
    """omega(t) of a move of theta in `duration` (0 outside the move)."""
    if not 0.0 <= t <= duration:
        return 0.0
    return theta / duration * (1.0 - math.cos(2.0 * math.pi * t / duration))


def move_position(theta: float, duration: float, t: float) -> float:
    """The integral of omega from 0 to t (0 before the move, theta after)."""
    t = min(max(t, 0.0), duration)
    return theta / duration * (t - duration / (2.0 * math.pi) *
                               math.sin(2.0 * math.pi * t / duration))


@dataclass(frozen=True)
class Moves:
    """A chain of moves: thetas (rad) and durations (s)."""

    thetas: tuple[float, ...] = ()
    durations: tuple[float, ...] = ()

    @property
    def total_s(self) -> float:
        """The chain's duration."""
        return float(sum(self.durations))

    def _at(self, t: float) -> tuple[int, float, float]:
        """Index of the move at t, time into it, and the position at its start."""
        start, before = 0.0, 0.0
        for k, duration in enumerate(self.durations):
            if t < start + duration or k == len(self.durations) - 1:
                return k, t - start, before
            start += duration
            before += self.thetas[k]
        return -1, 0.0, before

    def velocity(self, t: float) -> float:
        """omega at t into the chain (0 once it is over)."""
        k, into, _ = self._at(t)
        return 0.0 if k < 0 else move_velocity(self.thetas[k], self.durations[k], into)

    def position(self, t: float) -> float:
        """The integral of omega from the start of the chain to t."""
        k, into, before = self._at(t)
        return before if k < 0 else before + move_position(self.thetas[k], self.durations[k],
                                                           into)


@dataclass(frozen=True)
class Gait:
    """Every joint's start and cycle moves (index 0 = joint 1)."""

    start: tuple[Moves, ...]
    cycle: tuple[Moves, ...]
    source: str = "<memory>"

    @cached_property
    def start_s(self) -> float:
        """Duration of the longest start (played once): from then on every joint cycles."""
        return max(m.total_s for m in self.start)

    @cached_property
    def cycle_s(self) -> float:
        """Duration of one cycle (0: the gait ends after its start)."""
        return max(m.total_s for m in self.cycle)

    @cached_property
    def _tables(self) -> tuple["_Table", "_Table", np.ndarray, np.ndarray]:
        """The start and cycle chains as arrays, each joint's start duration, and where the
        start leaves each joint."""
        return (_Table(self.start), _Table(self.cycle),
                np.array([c.total_s for c in self.start]),
                np.array([sum(c.thetas) for c in self.start]))

    def state(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Joint velocities (rad/s) and positions (rad from the zero pose, the integral of the
        velocities) at time t (s) from the start of the gait."""
        velocity, position = self.states([t])
        return velocity[0], position[0]

    def states(self, ts: list[float]) -> tuple[np.ndarray, np.ndarray]:
        """``state`` at every time of `ts` (one row each): each joint at its own time into its
        start or its cycle, one evaluation per table (a broadcast looks ahead: the gait is open
        loop)."""
        start, cycle, lengths, offset = self._tables
        t = np.array(ts, dtype=float)[:, None]
        cycling = (t >= lengths[None, :]) & (self.cycle_s > 0.0)
        velocity, position = np.zeros(cycling.shape), np.zeros(cycling.shape)
        if not cycling.all():
            velocity, position = start.evaluate_many(np.broadcast_to(t, cycling.shape))
        if cycling.any():
            into = np.where(cycling, t - lengths[None, :], 0.0) % self.cycle_s
            v, x = cycle.evaluate_many(into)
            velocity = np.where(cycling, v, velocity)
            position = np.where(cycling, offset + x, position)
        return velocity, position

    def velocity(self, t: float) -> np.ndarray:
        """Joint velocities (rad/s) at time t (s) from the start of the gait."""
        return self.state(t)[0]

    def position(self, t: float) -> np.ndarray:
        """Joint positions (rad from the zero pose): the integral of the velocities to t."""
        return self.state(t)[1]

    def to_toml(self, header: str = "") -> str:
        """The file form of this gait (degrees, seconds)."""
        lines = [header] if header else []
        for j in range(JOINTS):
            node, motor = board_of(j + 1)
            unit = "motor" if j < DC_JOINTS else "servo"
            lines.append(f"\n[joint.{j + 1}]  # {JOINT_NAMES[j]}: {node} {unit} {motor}")
            for key, chain in (("start", self.start[j]), ("cycle", self.cycle[j])):
                pairs = ", ".join(f"[{math.degrees(th) + 0.0:.12g}, {d:.12g}]"
                                  for th, d in zip(chain.thetas, chain.durations, strict=True))
                lines.append(f"{key} = [{pairs}]")
        return "\n".join(lines) + "\n"


class _Table:
    """Chains of moves as padded arrays (joint x move), evaluated for all joints at once with
    the formulas of move_velocity and move_position."""

    def __init__(self, chains: tuple[Moves, ...]) -> None:
        width = max(1, *(len(c.durations) for c in chains))
        self.starts = np.full((len(chains), width), np.inf)
        self.thetas = np.zeros((len(chains), width))
        self.durations = np.ones((len(chains), width))
        self.before = np.zeros((len(chains), width))
        self.starts[:, 0] = 0.0
        for j, c in enumerate(chains):
            n = len(c.durations)
            if n:
                self.starts[j, :n] = np.concatenate(([0.0], np.cumsum(c.durations)[:-1]))
                self.thetas[j, :n], self.durations[j, :n] = c.thetas, c.durations
                self.before[j, :n] = np.concatenate(([0.0], np.cumsum(c.thetas)[:-1]))
        self._rows = np.arange(len(chains))

    def evaluate_many(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Velocities and positions of every chain at its own time into it (`t`: a row per
        instant, a column per chain)."""
        k = np.maximum((self.starts[None, :, :] <= t[:, :, None]).sum(axis=2) - 1, 0)
        rows = self._rows[None, :]
        into = t - self.starts[rows, k]
        theta, duration = self.thetas[rows, k], self.durations[rows, k]
        x = np.clip(into, 0.0, duration)
        phase = 2.0 * np.pi * x / duration
        inside = (into >= 0.0) & (into <= duration)
        velocity = np.where(inside, theta / duration * (1.0 - np.cos(phase)), 0.0)
        position = self.before[rows, k] + theta / duration * (
            x - duration / (2.0 * np.pi) * np.sin(phase))
        return velocity, position


def _chain(value: Any, where: str) -> Moves:
    """A list of [theta_deg, T_s] pairs (GaitError naming `where` if it is not one)."""
    if not isinstance(value, list):
        raise GaitError(f"{where}: a list of [theta_deg, T_s] pairs, got {shown(repr(value), 40)}")
    thetas, durations = [], []
    for k, pair in enumerate(value, start=1):
        if not (isinstance(pair, list) and len(pair) == 2 and all(
                isinstance(x, int | float) and not isinstance(x, bool) for x in pair)):
            raise GaitError(f"{where} move {k}: a pair [theta_deg, T_s] of numbers, got "
                            f"{shown(repr(pair), 40)}")
        theta, duration = float(pair[0]), float(pair[1])
        if not math.isfinite(theta) or not (math.isfinite(duration) and duration > 0):
            raise GaitError(f"{where} move {k}: theta must be finite and T positive seconds, "
                            f"got {shown(repr(pair), 40)}")
        thetas.append(math.radians(theta))
        durations.append(duration)
    return Moves(tuple(thetas), tuple(durations))


def parse(text: str, source: str = "<text>") -> Gait:
    """A gait from TOML text; GaitError naming source and joint for anything malformed."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise GaitError(f"{source}: not TOML: {shown(str(err), 80)}") from err
    table = doc.get("joint")
    if not isinstance(table, dict) or not table:
        raise GaitError(f"{source}: no [joint.<n>] tables (n = 1..{JOINTS})")
    start, cycle = [Moves()] * JOINTS, [Moves()] * JOINTS
    for key, entry in table.items():
        if not (key.isdigit() and str(int(key)) == key and 1 <= int(key) <= JOINTS):
            raise GaitError(f"{source}: joint {shown(key, 20)} is not a joint number 1..{JOINTS}")
        where = f"{source}: joint {key}"
        if not isinstance(entry, dict) or set(entry) - {"start", "cycle"}:
            raise GaitError(f"{where}: a table of 'start' and 'cycle' only")
        start[int(key) - 1] = _chain(entry.get("start", []), f"{where} start")
        cycle[int(key) - 1] = _chain(entry.get("cycle", []), f"{where} cycle")
    _check(start, cycle, source)
    return Gait(tuple(start), tuple(cycle), source)


def _check(start: list[Moves], cycle: list[Moves], source: str) -> None:
    """Cycles equally long (the joints in phase) and closed, set-points within what the DBC
    carries (GaitError otherwise)."""
    totals = {j + 1: c.total_s for j, c in enumerate(cycle) if c.durations}
    if totals and max(totals.values()) - min(totals.values()) > TOLERANCE:
        longest = max(totals, key=totals.__getitem__)
        shortest = min(totals, key=totals.__getitem__)
        raise GaitError(f"{source}: every joint's cycle must last as long: joint {longest} "
                        f"{totals[longest]:g} s, joint {shortest} {totals[shortest]:g} s")
    for j, c in enumerate(cycle):
        if abs(sum(c.thetas)) > TOLERANCE:
            raise GaitError(f"{source}: joint {j + 1} cycle moves by "
                            f"{math.degrees(sum(c.thetas)):.6g} deg: a cycle must return to "
                            "where it began")
    for j in range(JOINTS):
        moves = list(zip(start[j].thetas + cycle[j].thetas,
                         start[j].durations + cycle[j].durations, strict=True))
        if j < DC_JOINTS:  # the peak velocity of a move is 2 theta / T
            fast = [(t, d) for t, d in moves if 2 * abs(t) / d > VEL_SP_MAX_RAD_S]
            if fast:
                theta, duration = fast[0]
                raise GaitError(f"{source}: joint {j + 1} moves {math.degrees(theta):g} deg in "
                                f"{duration:g} s: a peak of {2 * abs(theta) / duration:.4g} "
                                f"rad/s, VEL_SP carries {VEL_SP_MAX_RAD_S:.4g} rad/s at most")
        else:  # positions at the move boundaries (each move is monotonic)
            reach = max((abs(p) for p in itertools.accumulate(t for t, _ in moves)), default=0.0)
            if reach > SERVO_SP_MAX_RAD:
                raise GaitError(f"{source}: joint {j + 1} reaches {math.degrees(reach):g} deg: "
                                f"SERVO_SP carries +-{SERVO_SP_MAX_RAD} rad")


def load(path: str | Path) -> Gait:
    """Read a gait file (a user's own, in the shipped format)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise GaitError(f"{path}: cannot read: {shown(str(err), 80)}") from err
    return parse(text, str(path))


def walk_file() -> Path:
    """The shipped walking pattern (host/data/guroo_walk.toml)."""
    return Path(str(resources.files("servobus.host.data").joinpath("guroo_walk.toml")))


def default_walk() -> Gait:
    """The thesis' walking pattern (SPEC 5), shipped with the package."""
    return load(walk_file())
