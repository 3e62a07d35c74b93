"""Sweep files (TOML): the base run, the axes, the metrics; their points and per-point seeds.

A sweep file holds ``name``, ``seed``, ``[base]`` (any `servobus run` option, long name with
``-`` or ``_``; ``robot``, a shipped name or a description file relative to the sweep file; a
description key by its key path, ``"joint.3.alpha"``), ``[axes]`` (each over one of those: a
list, a ``{grid = [lo, hi], num = N, scale = "lin"|"log"}``, a ``{random = [lo, hi], count = N,
scale = …}`` or a ``{count = N}`` replicate axis), ``metrics``
(report keys, ``max:``/``sum:``/``mean:`` reductions of a report list or dict, or the derived
measures of ``sweep.measures``), optional ``[measure]`` settings and ``[plot] kind``.  The points
are the Cartesian product of the axes in file order.  A point's run seed is a hash of the sweep
seed and the point's canonical form (docs/decisions.md, "Sweeps"), so it does not depend on the
point's index, the worker or the order; an axis called ``seed`` sets the run seed itself.
"""

import hashlib
import itertools
import json
import math
import tomllib
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from servobus.bus.faults import parse_duration
from servobus.bus.scheduler import NS_PER_S
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile, load_with
from servobus.robot.robot_file import shipped as shipped_robots
from servobus.sweep.measures import DERIVED, MEASURE_DEFAULTS

RUN_OPTIONS = ("duration", "trajectory", "mode", "sensing", "plant", "alpha", "tuning",
               "anti_windup", "meas_bytes", "seed", "fault", "do", "engine")
TUNING_AXES = ("omega_d", "omega_i", "k_kp")  # override the base tuning's fields
FAULT_AXES = ("corrupt_rate", "silence_ms")  # become fault lines (see task.fault_lines)
LABEL_AXES = ("replicate",)  # only changes the point, hence its seed
ROBOT = "robot"  # the robot a point runs: a shipped name or a description file
DEFAULT_ROBOT = "spejbl"
REDUCTIONS = ("max", "sum", "mean")
RUN_REPORT_EXCLUDED = ("wall_time_s", "rtf", "compile_s")  # wall-clock figures: not reproducible
PLOTS = ("alpha-scan", "heatmap", "fault-campaign", "none")
# the axes and metrics each plot kind's summary and plot read (sweep/summary.py, plots.py)
PLOT_NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "alpha-scan": (("tuning", "alpha"), ("oscillation",)),
    "heatmap": (("omega_d", "omega_i"), ()), "fault-campaign": ((), ("fault_detection",))}
LIST_OPTIONS = ("alpha",)  # a list is one value per joint (task.build)
MAX_POINTS = 100_000  # points of one sweep (and values of one axis): counted before any is made
DEFAULT_DURATION_S = 1.0  # a sweep point's run when the file gives no duration (docs/sweeps.md)
# option (or axis, or `measure.KEY`) -> its check of a file value: the value as the option
# means it, or ValueError saying what is wrong (the command line's types: tools/cmd_sweep.py)
OptionTypes = Mapping[str, Callable[[Any], Any]]


class SweepError(ValueError):
    """A sweep file that cannot be understood."""


@dataclass(frozen=True)
class SweepSpec:
    """One sweep: base run options, ordered axes, metrics, measure settings, plot kind."""

    name: str
    seed: int
    base: dict[str, Any]
    axes: dict[str, list[Any]]
    metrics: list[str]
    measure: dict[str, Any] = field(default_factory=dict)
    plot: str = "none"
    trajectory_text: str | None = None  # the base trajectory file's text (sent to workers)
    robots: dict[str, str] = field(default_factory=dict)  # robot as written -> as found
    robot_texts: dict[str, str] = field(default_factory=dict)  # a description file's text

    def points(self) -> list[dict[str, Any]]:
        """Every point (axis name -> value), Cartesian product in file order."""
        names = list(self.axes)
        return [dict(zip(names, combo, strict=True))
                for combo in itertools.product(*(self.axes[n] for n in names))]

    def run_seed(self, point: dict[str, Any]) -> int:
        """The run seed of a point: its `seed` axis, else a hash of sweep seed and point."""
        if "seed" in point:
            return int(point["seed"])
        digest = hashlib.sha256(f"{self.seed}|{point_key(point)}".encode()).digest()
        return int.from_bytes(digest[:4], "little")

    def fingerprint(self) -> str:
        """Hash of everything but the axes: parts of a changed sweep are not reused."""
        body = {"seed": self.seed, "base": self.base, "metrics": self.metrics,
                "measure": self.measure, "trajectory": self.trajectory_text}
        if self.robots:  # a sweep of the default robot keeps its fingerprint
            body |= {"robots": self.robots, "robot_texts": self.robot_texts}
        return hashlib.sha256(canonical(body).encode()).hexdigest()[:16]


def is_key_path(name: str) -> bool:
    """Does a [base] or [axes] name set a description key (`joint.3.alpha`, `nodes[2].compute`)
    rather than a run option?"""
    return "." in name or "[" in name


def canonical(value: Any) -> str:
    """Sorted-key compact JSON: one text per value, whatever the dict order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def point_key(point: dict[str, Any]) -> str:
    """Short stable name of a point (its part file's name)."""
    return hashlib.sha256(canonical(point).encode()).hexdigest()[:16]


def shipped() -> list[str]:
    """Names of the sweeps shipped in servobus.sweeps."""
    folder = resources.files("servobus.sweeps")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def find(name_or_path: str) -> Path:
    """A sweep file by path, or a shipped sweep by name ('alpha-scan')."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    candidate = Path(str(resources.files("servobus.sweeps").joinpath(f"{name_or_path}.toml")))
    if candidate.is_file():
        return candidate
    raise SweepError(f"sweep {name_or_path!r}: no such file and no shipped sweep of that name "
                     f"(shipped: {', '.join(shipped())})")


def load(name_or_path: str, types: OptionTypes) -> SweepSpec:
    """Read and check a sweep file whole (SweepError naming the file, the key and the value);
    `types` checks each option's values as the `run` option it sets does."""
    path = find(name_or_path)
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise SweepError(f"{path}: {err}") from err
    return parse(raw, path, types)


def parse(raw: dict[str, Any], path: Path, types: OptionTypes) -> SweepSpec:
    """A SweepSpec from a parsed TOML document, every value checked before any point runs;
    relative trajectory paths from `path`."""
    unknown = set(raw) - {"name", "seed", "description", "base", "axes", "metrics", "measure",
                          "plot"}
    if unknown:
        raise SweepError(f"{path}: unknown keys {sorted(unknown)}")
    seed = raw.get("seed", 0)
    _value(path, "seed", seed, types["seed"])
    name = raw.get("name", path.stem)
    if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
        raise SweepError(f"{path}: name: {name!r}: give a plain name (the table's default file "
                         f"is NAME.parquet)")
    base = _options(path, "base", raw)
    robots: dict[str, str] = {}
    for key, value in base.items():
        if key == ROBOT:
            robots[value] = _robot(path, "base.robot", value)
            continue
        if is_key_path(key):
            continue  # checked on the robot below
        if key not in RUN_OPTIONS:
            raise SweepError(f"{path}: base option {key!r}: use {', '.join(RUN_OPTIONS)}")
        if key == "seed":
            raise SweepError(f"{path}: base.seed: {value!r}: each point's run seed is a hash of "
                             f"the sweep's seed (the top-level `seed`) and the point, or a "
                             f"`seed` axis: give one of those")
        if key in ("fault", "do"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise SweepError(f"{path}: base.{key}: {value!r}: give a list of lines")
        elif key != "trajectory":
            _value(path, f"base.{key}", value, types[key])
    text = None
    if "trajectory" in base:
        text = _trajectory(path, base)
    axes = {axis: _axis(path, axis, value, seed, types)
            for axis, value in _options(path, "axes", raw).items()}
    if not axes:
        raise SweepError(f"{path}: [axes] is empty: a sweep needs at least one axis")
    for value in axes.get(ROBOT, []):
        robots[value] = _robot(path, "axes.robot", value)
    count = math.prod(len(values) for values in axes.values())
    if count > MAX_POINTS:
        raise SweepError(f"{path}: [axes]: {' x '.join(str(len(v)) for v in axes.values())} = "
                         f"{count} points: a sweep holds at most {MAX_POINTS}")
    metrics = raw.get("metrics", [])
    if not isinstance(metrics, list) or not metrics:
        raise SweepError(f"{path}: metrics must be a non-empty list of names")
    for metric in metrics:
        _check_metric(path, metric)
    taken = {"point", "seed", "status", *axes}
    for column in columns(metrics):
        if column in taken:
            raise SweepError(f"{path}: metrics: {column!r}: a second column of that name (an "
                             f"axis, a metric given twice, or point/seed/status)")
        taken.add(column)
    plot = _table(path, "plot", raw).get("kind", "none")
    if plot not in PLOTS:
        raise SweepError(f"{path}: plot kind {plot!r}: use {', '.join(PLOTS)}")
    measure = _measure(path, _table(path, "measure", raw), types)
    needs_axes, needs_metrics = PLOT_NEEDS.get(plot, ((), ()))
    missing = [f"axis {n}" for n in needs_axes if n not in axes] + [
        f"metric {n}" for n in needs_metrics if n not in metrics]
    if missing:
        raise SweepError(f"{path}: plot.kind: {plot!r}: its summary needs {', '.join(missing)}")
    # a description file's text: the parts of a sweep over an edited one are not reused
    texts = {found: Path(found).read_text() for found in robots.values()
             if Path(found).is_absolute()}
    spec = SweepSpec(name, seed, base, axes, list(metrics),
                     measure, plot, text, robots, texts)
    period_ns = _check_descriptions(path, spec)
    _check_lengths(path, spec, period_ns / NS_PER_S)
    if plot == "heatmap" and spec.measure["value"] not in columns(spec.metrics):
        raise SweepError(f"{path}: measure.value: {spec.measure['value']!r}: the heat map's "
                         f"column must be one of the metrics' columns: "
                         f"{', '.join(columns(spec.metrics))}")
    from servobus.sweep.task import check_runs  # task builds robots from a spec: imports this

    check_runs(spec, path)
    return spec


def _table(path: Path, key: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The [key] table of the file (empty if absent)."""
    table = raw.get(key, {})
    if not isinstance(table, dict):
        raise SweepError(f"{path}: {key}: {table!r}: give a table [{key}]")
    return table


def _options(path: Path, key: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The [key] table with option names as the run command's (`anti-windup` is
    `anti_windup`); one option under both spellings is an error."""
    options: dict[str, Any] = {}
    for name, value in _table(path, key, raw).items():
        option = name.replace("-", "_")
        if option in options:
            raise SweepError(f"{path}: {key}.{name}: {value!r}: {option} is given twice")
        options[option] = value
    return options


def _robot(path: Path, key: str, value: Any) -> str:
    """A robot value: a description file relative to the sweep file (its full path), else a
    shipped robot's name."""
    if not isinstance(value, str) or not value:
        raise SweepError(f"{path}: {key}: {value!r}: give a shipped robot's name or a "
                         "description file")
    beside = path.parent / value  # an absolute path stays itself
    if beside.is_file():
        return str(beside.resolve())
    if value in shipped_robots():
        return value
    raise SweepError(f"{path}: {key}: {value!r}: no such file beside the sweep file and no "
                     f"shipped robot of that name (shipped: {', '.join(shipped_robots())})")


def described(robots: dict[str, str], robot: str, keys: dict[str, Any]) -> RobotFile:
    """The checked description a point runs: `robot` (as written in the sweep file; `robots`
    maps it to the file found) with the description keys `keys` set."""
    return checked(load_with(robots.get(robot, robot), keys))


def _check_descriptions(path: Path, spec: SweepSpec) -> int:
    """Every robot of the sweep, with [base]'s description keys, then each value of each
    description-key axis, loads and checks against its DBC (errors name the axis); the longest
    period of the robots (ns)."""
    keys = {k: v for k, v in spec.base.items() if is_key_path(k)}
    longest = 0
    for robot in spec.axes.get(ROBOT, [spec.base.get(ROBOT, DEFAULT_ROBOT)]):
        try:
            longest = max(longest, described(spec.robots, robot, keys).period_ns)
        except ValueError as err:
            raise SweepError(f"{path}: robot {robot!r} with [base]: {err}") from None
        for name, values in spec.axes.items():
            for value in values if is_key_path(name) else ():
                try:
                    described(spec.robots, robot, {**keys, name: value})
                except ValueError as err:
                    raise SweepError(f"{path}: axes.{name}: {value!r} (robot {robot!r}): "
                                     f"{err}") from None
    return longest


def _value(path: Path, key: str, value: Any, check: Callable[[Any], Any]) -> Any:
    """`check(value)` (the option's type and range), its error naming file, key and value;
    a list only where it means one value per joint (`alpha`)."""
    if isinstance(value, list) and key.rpartition(".")[2] not in LIST_OPTIONS:
        raise SweepError(f"{path}: {key}: {value!r}: give one value, not a list")
    try:
        return check(value)
    except ValueError as err:
        raise SweepError(f"{path}: {key}: {value!r}: {err}") from None


def _trajectory(path: Path, base: dict[str, Any]) -> str:
    """The base trajectory's text, parsed once here (a bad file would fail every point)."""
    from servobus.host.trajectory import parse as parse_trajectory

    if not isinstance(base["trajectory"], str):
        raise SweepError(f"{path}: base.trajectory: {base['trajectory']!r}: give a file name")
    traj = Path(base["trajectory"])
    traj = traj if traj.is_absolute() else path.parent / traj
    try:
        text = traj.read_text()
        parse_trajectory(text, str(traj))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise SweepError(f"{path}: base.trajectory: {base['trajectory']!r}: {err}") from err
    base["trajectory"] = traj.name
    return text


def _measure(path: Path, measure: dict[str, Any], types: OptionTypes) -> dict[str, Any]:
    """The [measure] settings over their defaults, each checked by its type."""
    unknown = set(measure) - set(MEASURE_DEFAULTS)
    if unknown:
        raise SweepError(f"{path}: [measure] keys {sorted(unknown)}: use "
                         f"{', '.join(MEASURE_DEFAULTS)}")
    for key, value in measure.items():
        _value(path, f"measure.{key}", value, types[f"measure.{key}"])
    return {**MEASURE_DEFAULTS, **measure}


def _check_lengths(path: Path, spec: SweepSpec, tick_s: float) -> None:
    """Refuse runs too short for the metrics asked: oscillation compares two windows before
    the run's last tick (`tick_s`: the robots' longest period); a silence (fault axis) must end
    inside the run."""
    durations = spec.axes.get("duration", [spec.base.get("duration", DEFAULT_DURATION_S)])
    shortest = min(durations, key=seconds)
    run_s = seconds(shortest)
    window = float(spec.measure["window_s"])
    if "oscillation" in spec.metrics and run_s < 2 * window + tick_s:
        raise SweepError(f"{path}: duration: {shortest!r}: oscillation needs a run of at least "
                         f"two measure.window_s ({window:g} s) and one {tick_s * 1e3:g} ms period"
                         f": {2 * window + tick_s:g} s")
    silences = [float(v) for v in spec.axes.get("silence_ms", [])]
    if silences and float(spec.measure["at_s"]) + max(silences) / 1000.0 >= run_s:
        raise SweepError(f"{path}: measure.at_s: {spec.measure['at_s']!r}: a silence of "
                         f"{max(silences):g} ms from there does not end inside a run of "
                         f"{shortest!r}")


def seconds(value: Any) -> float:
    """A duration: a number of seconds (also as text, as `run --duration` takes it), or a time
    with its unit ('500ms', '2s', '300us')."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return parse_duration(str(value)) / NS_PER_S


def _axis(path: Path, name: str, value: Any, seed: int, types: OptionTypes) -> list[Any]:
    """The values of one axis, each checked as the option it sets; no two alike."""
    known = (*RUN_OPTIONS, *TUNING_AXES, *FAULT_AXES, *LABEL_AXES, ROBOT)
    free = name == ROBOT or is_key_path(name)  # values checked on the robot (parse)
    if not free and (name not in known or name in ("fault", "do", "trajectory")):
        raise SweepError(f"{path}: axis {name!r}: use a run option, robot, a description key "
                         f"path (joint.3.alpha) or one of "
                         f"{', '.join((*TUNING_AXES, *FAULT_AXES, *LABEL_AXES))}")
    key = f"axes.{name}"
    if isinstance(value, list):
        values = value
    elif isinstance(value, dict) and ("grid" in value or "random" in value):
        values = _drawn(path, key, value, seed)
    elif isinstance(value, dict) and set(value) == {"count"}:
        values = list(range(_count(path, key, value["count"])))
    else:
        raise SweepError(f"{path}: {key}: {value!r}: give a list, {{grid = [lo, hi], num = N, "
                         f"scale = \"lin\"|\"log\"}}, {{random = [lo, hi], count = N, scale = …}} "
                         f"or {{count = N}}")
    if not values:
        raise SweepError(f"{path}: axis {name!r} has no values")
    seen: dict[str, Any] = {}
    for v in values:
        checked = canonical(v if free else _value(path, key, v, types[name]))
        if checked in seen:
            raise SweepError(f"{path}: {key}: {v!r}: repeats the value {seen[checked]!r}: two "
                             f"identical points would share one key, seed and result")
        seen[checked] = v
    return values


def _drawn(path: Path, key: str, value: dict[str, Any], seed: int) -> list[float]:
    """A grid's or a seeded random axis' values."""
    kind, size = ("grid", "num") if "grid" in value else ("random", "count")
    extra = set(value) - {kind, size, "scale"}
    if extra:
        raise SweepError(f"{path}: {key}: {value!r}: unknown keys {sorted(extra)}: use "
                         f"{kind}, {size}, scale")
    scale = value.get("scale", "lin")
    if scale not in ("lin", "log"):
        raise SweepError(f"{path}: {key}.scale: {scale!r}: use lin or log")
    lo, hi = _bounds(path, f"{key}.{kind}", value[kind])
    if scale == "log" and lo <= 0:
        raise SweepError(f"{path}: {key}.{kind}: {value[kind]!r}: a log scale needs lo > 0")
    num = _count(path, f"{key}.{size}", value.get(size))
    if kind == "grid":
        space = np.geomspace if scale == "log" else np.linspace
        return [_round(v) for v in space(lo, hi, num)]
    name = key.partition(".")[2]
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(
        name.encode()),)))
    draws = rng.uniform(0.0, 1.0, num)
    if scale == "log":
        return [_round(lo * (hi / lo) ** u) for u in draws]
    return [_round(lo + (hi - lo) * u) for u in draws]


def _bounds(path: Path, key: str, pair: Any) -> tuple[float, float]:
    if (not isinstance(pair, list) or len(pair) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool)
                       and math.isfinite(v) for v in pair) or not pair[0] < pair[1]):
        raise SweepError(f"{path}: {key}: {pair!r}: bounds must be [lo, hi], finite numbers "
                         f"with lo < hi")
    return float(pair[0]), float(pair[1])


def _count(path: Path, key: str, num: Any) -> int:
    if not isinstance(num, int) or isinstance(num, bool) or not 1 <= num <= MAX_POINTS:
        raise SweepError(f"{path}: {key}: {num!r}: the count must be an integer "
                         f"1..{MAX_POINTS}")
    return num


def _round(value: float) -> float:
    """6 significant digits: readable columns and keys that do not depend on float noise."""
    return float(f"{value:.6g}")


def columns(metrics: list[str]) -> list[str]:
    """The table columns the metrics give."""
    return [c for m in metrics for c in DERIVED.get(m, (m.replace(":", "_"),))]


def _check_metric(path: Path, metric: Any) -> None:
    if not isinstance(metric, str) or not metric:
        raise SweepError(f"{path}: metric {metric!r} is not a name")
    how, sep, key = metric.partition(":")
    if sep and how not in REDUCTIONS:
        raise SweepError(f"{path}: metric {metric!r}: reductions are {', '.join(REDUCTIONS)}")
    if (key if sep else how) in RUN_REPORT_EXCLUDED:
        raise SweepError(f"{path}: metric {metric!r} is wall-clock: a sweep keeps reproducible "
                         f"figures")
