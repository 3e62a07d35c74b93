"""Sweep files (TOML): the base run, the axes, the metrics; their points and per-point seeds.

A sweep file holds ``name``, ``seed``, ``[base]`` (any `servobus run` option, long name with
``-`` or ``_``), ``[axes]`` (each a list, a ``{grid = [lo, hi], num = N, scale = "lin"|"log"}``,
a ``{random = [lo, hi], count = N, scale = …}`` or a ``{count = N}`` replicate axis), ``metrics``
(report keys, ``max:``/``sum:``/``mean:`` reductions of a report list or dict, or the derived
measures of ``sweep.measures``), optional ``[measure]`` settings and ``[plot] kind``.  The points
are the Cartesian product of the axes in file order.  A point's run seed is a hash of the sweep
seed and the point's canonical form (docs/decisions.md, "Sweeps"), so it does not depend on the
point's index, the worker or the order; an axis called ``seed`` sets the run seed itself.
"""

import hashlib
import itertools
import json
import tomllib
import zlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from servobus.bus.faults import FaultScriptError, parse_duration
from servobus.bus.scheduler import NS_PER_S
from servobus.sweep.measures import MEASURE_DEFAULTS

RUN_OPTIONS = ("duration", "trajectory", "mode", "sensing", "plant", "alpha", "tuning",
               "anti_windup", "meas_bytes", "seed", "fault", "do", "engine")
TUNING_AXES = ("omega_d", "omega_i", "k_kp")  # override the base tuning's fields
FAULT_AXES = ("corrupt_rate", "silence_ms")  # become fault lines (see task.fault_lines)
LABEL_AXES = ("replicate",)  # only changes the point, hence its seed
REDUCTIONS = ("max", "sum", "mean")
RUN_REPORT_EXCLUDED = ("wall_time_s", "rtf")  # wall-clock figures: not reproducible
PLOTS = ("alpha-scan", "heatmap", "fault-campaign", "none")
SEED_MAX = 2**32 - 1


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
        return hashlib.sha256(canonical(body).encode()).hexdigest()[:16]


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


def load(name_or_path: str) -> SweepSpec:
    """Read and check a sweep file (SweepError naming the file and the problem)."""
    path = find(name_or_path)
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise SweepError(f"{path}: {err}") from err
    return parse(raw, path)


def parse(raw: dict[str, Any], path: Path) -> SweepSpec:
    """A SweepSpec from a parsed TOML document; relative trajectory paths from `path`."""
    unknown = set(raw) - {"name", "seed", "description", "base", "axes", "metrics", "measure",
                          "plot"}
    if unknown:
        raise SweepError(f"{path}: unknown keys {sorted(unknown)}")
    seed = raw.get("seed", 0)
    if not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise SweepError(f"{path}: seed must be an integer 0..{SEED_MAX}, got {seed!r}")
    base = {k.replace("-", "_"): v for k, v in raw.get("base", {}).items()}
    for key in base:
        if key not in RUN_OPTIONS:
            raise SweepError(f"{path}: base option {key!r}: use {', '.join(RUN_OPTIONS)}")
    if "duration" in base:
        _duration(path, base["duration"])
    text = None
    if "trajectory" in base:
        traj = Path(base["trajectory"])
        traj = traj if traj.is_absolute() else path.parent / traj
        try:
            text = traj.read_text()
        except OSError as err:
            raise SweepError(f"{path}: trajectory {traj}: {err}") from err
        base["trajectory"] = traj.name
    axes = {name.replace("-", "_"): _axis(path, name.replace("-", "_"), value, seed)
            for name, value in raw.get("axes", {}).items()}
    if not axes:
        raise SweepError(f"{path}: [axes] is empty: a sweep needs at least one axis")
    _check_choices(path, base, axes)
    metrics = raw.get("metrics", [])
    if not isinstance(metrics, list) or not metrics:
        raise SweepError(f"{path}: metrics must be a non-empty list of names")
    for metric in metrics:
        _check_metric(path, metric)
    plot = raw.get("plot", {}).get("kind", "none")
    if plot not in PLOTS:
        raise SweepError(f"{path}: plot kind {plot!r}: use {', '.join(PLOTS)}")
    measure = raw.get("measure", {})
    unknown = set(measure) - set(MEASURE_DEFAULTS)
    if unknown:
        raise SweepError(f"{path}: [measure] keys {sorted(unknown)}: use "
                         f"{', '.join(MEASURE_DEFAULTS)}")
    return SweepSpec(str(raw.get("name", path.stem)), seed, base, axes, list(metrics),
                     {**MEASURE_DEFAULTS, **measure}, plot, text)


def seconds(value: Any) -> float:
    """A duration: a number of seconds, or a time with its unit ('500ms', '2s', '300us')."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return parse_duration(str(value)) / NS_PER_S


def _duration(path: Path, value: Any) -> None:
    """Refuse a duration that is not a positive time."""
    try:
        ok = seconds(value) > 0
    except FaultScriptError as err:
        raise SweepError(f"{path}: duration {value!r}: {err}") from err
    if not ok:
        raise SweepError(f"{path}: duration {value!r} must be positive")


def _check_choices(path: Path, base: dict[str, Any], axes: dict[str, list[Any]]) -> None:
    """Refuse a mode, sensing, plant, engine, anti-windup or tuning the robot does not know
    (base or axis values), so a bad name fails once here, not on every point."""
    from servobus.host.pid import ANTI_WINDUP
    from servobus.host.tunings import TUNINGS
    from servobus.presets.board import SENSING_CHOICES
    from servobus.robot.advance import ENGINES
    from servobus.robot.assembly import BOARD_MODES

    choices: dict[str, tuple[str, ...]] = {
        "mode": tuple(BOARD_MODES), "sensing": SENSING_CHOICES,
        "plant": ("switching", "averaged"), "engine": ENGINES, "anti_windup": ANTI_WINDUP,
        "tuning": tuple(TUNINGS)}
    for name, allowed in choices.items():
        for value in ([base[name]] if name in base else []) + axes.get(name, []):
            if value not in allowed:
                raise SweepError(f"{path}: {name} {value!r}: use {', '.join(allowed)}")
    for value in axes.get("duration", []):
        _duration(path, value)


def _axis(path: Path, name: str, value: Any, seed: int) -> list[Any]:
    """The values of one axis."""
    known = (*RUN_OPTIONS, *TUNING_AXES, *FAULT_AXES, *LABEL_AXES)
    if name not in known or name in ("fault", "do", "trajectory"):
        raise SweepError(f"{path}: axis {name!r}: use a run option or one of "
                         f"{', '.join((*TUNING_AXES, *FAULT_AXES, *LABEL_AXES))}")
    if isinstance(value, list):
        values = value
    elif isinstance(value, dict) and "grid" in value:
        lo, hi = _bounds(path, name, value["grid"])
        num = _count(path, name, value.get("num"))
        space = np.geomspace if value.get("scale", "lin") == "log" else np.linspace
        values = [_round(v) for v in space(lo, hi, num)]
    elif isinstance(value, dict) and "random" in value:
        lo, hi = _bounds(path, name, value["random"])
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(
            name.encode()),)))
        draws = rng.uniform(0.0, 1.0, _count(path, name, value.get("count")))
        if value.get("scale", "lin") == "log":
            values = [_round(lo * (hi / lo) ** u) for u in draws]
        else:
            values = [_round(lo + (hi - lo) * u) for u in draws]
    elif isinstance(value, dict) and "count" in value:
        values = list(range(_count(path, name, value["count"])))
    else:
        raise SweepError(f"{path}: axis {name!r}: give a list, {{grid = [lo, hi], num = N}}, "
                         f"{{random = [lo, hi], count = N}} or {{count = N}}")
    if not values:
        raise SweepError(f"{path}: axis {name!r} has no values")
    seen: set[str] = set()
    for v in values:
        if canonical(v) in seen:
            raise SweepError(f"{path}: axis {name!r} repeats the value {v!r}: two identical "
                             f"points would share one key, seed and result")
        seen.add(canonical(v))
    return values


def _bounds(path: Path, name: str, pair: Any) -> tuple[float, float]:
    if (not isinstance(pair, list) or len(pair) != 2
            or not all(isinstance(v, int | float) for v in pair) or not pair[0] < pair[1]):
        raise SweepError(f"{path}: axis {name!r}: bounds must be [lo, hi] with lo < hi")
    return float(pair[0]), float(pair[1])


def _count(path: Path, name: str, num: Any) -> int:
    if not isinstance(num, int) or not 1 <= num <= 100_000:
        raise SweepError(f"{path}: axis {name!r}: the count must be an integer 1..100000")
    return num


def _round(value: float) -> float:
    """6 significant digits: readable columns and keys that do not depend on float noise."""
    return float(f"{value:.6g}")


def _check_metric(path: Path, metric: Any) -> None:
    if not isinstance(metric, str) or not metric:
        raise SweepError(f"{path}: metric {metric!r} is not a name")
    how, sep, key = metric.partition(":")
    if sep and how not in REDUCTIONS:
        raise SweepError(f"{path}: metric {metric!r}: reductions are {', '.join(REDUCTIONS)}")
    if (key if sep else how) in RUN_REPORT_EXCLUDED:
        raise SweepError(f"{path}: metric {metric!r} is wall-clock: a sweep keeps reproducible "
                         f"figures")
