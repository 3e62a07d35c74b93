"""One sweep point as one task: a `servobus run` of the point's robot (its description with the
point's description keys set) from the base options and the point's values, reduced to the
sweep's metrics.  Runs on a Dask worker (anything it needs travels in `Task`; a description
file and its DBC are read where the worker runs)."""

import itertools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from servobus.sweep import measures
from servobus.sweep.spec import (
    DEFAULT_DURATION_S,
    DEFAULT_ROBOT,
    FAULT_AXES,
    LABEL_AXES,
    ROBOT,
    TUNING_AXES,
    SweepError,
    SweepSpec,
    described,
    is_key_path,
    seconds,
)

if TYPE_CHECKING:
    from servobus.host.tunings import Tuning


PASSED = ("mode", "sensing", "plant", "anti_windup", "engine")  # to RobotConfig as they are
MAX_BUILDS = 16  # robots check_runs builds for the axes' combinations (else one axis at a time)


@dataclass(frozen=True)
class Task:
    """Everything a worker needs for one point (picklable; the only file paths are the
    description files the sweep names)."""

    index: int
    point: dict[str, Any]
    seed: int
    base: dict[str, Any]
    metrics: list[str]
    measure: dict[str, Any]
    trajectory_text: str | None
    robots: dict[str, str] = field(default_factory=dict)  # robot as written -> as found

    def row_head(self) -> dict[str, Any]:
        """The first columns of this point's row: index, axis values, run seed."""
        return {"point": self.index, **self.point, "seed": self.seed}


def tasks(spec: SweepSpec) -> list[Task]:
    """The sweep's points as tasks, in point order."""
    return [Task(k, p, spec.run_seed(p), spec.base, spec.metrics, spec.measure,
                 spec.trajectory_text, spec.robots) for k, p in enumerate(spec.points())]


def options(task: Task) -> dict[str, Any]:
    """Base options with the point's run options on top; fault axes become fault lines."""
    opts = {**task.base, **{k: v for k, v in task.point.items()
                            if k not in (*FAULT_AXES, *LABEL_AXES)}}
    opts["seed"] = task.seed
    faults = list(opts.get("fault", []))
    rate = float(task.point.get("corrupt_rate", 0.0))
    if rate > 0:
        faults.append(f"random-corrupt {rate:g}")
    silence = float(task.point.get("silence_ms", 0.0))
    if silence > 0:
        m = {**measures.MEASURE_DEFAULTS, **task.measure}
        joint, at = m["joint"], m["at_s"]
        faults.append(f"node {joint} silent at {at}s for {silence:g}ms")
    opts["fault"] = faults
    return opts


def point_tuning(opts: dict[str, Any]) -> "str | Tuning | None":
    """The run's tuning for every joint: the given tuning's name, or (omega_d / omega_i / k_kp
    axes) that tuning (default R2) with those fields replaced; None: each joint's own, from the
    description."""
    from servobus.host import tunings

    fields: dict[str, Any] = {k: float(opts[k]) for k in TUNING_AXES if k in opts}
    if "tuning" not in opts and not fields:
        return None
    name = str(opts.get("tuning", tunings.DEFAULT_TUNING))
    if not fields:
        return name
    t = replace(tunings.tuning(name), **fields)
    return replace(t, name=f"{name}[wd={t.omega_d:g},wi={t.omega_i:g},k={t.k_kp:g}]")


def build(task: Task) -> tuple[Any, float]:
    """The Robot of a task and its duration (s)."""
    from servobus.host.trajectory import parse
    from servobus.robot.assembly import Robot, RobotConfig

    opts = options(task)
    given: dict[str, Any] = {k: opts[k] for k in PASSED if k in opts}
    if "meas_bytes" in opts:
        given["meas_bytes"] = int(opts["meas_bytes"])
    if "alpha" in opts:
        alpha = opts["alpha"]
        given["alphas"] = ([float(a) for a in alpha] if isinstance(alpha, list)
                           else [float(alpha)])
    if task.trajectory_text is not None:
        given["trajectory"] = parse(task.trajectory_text, str(opts["trajectory"]))
    duration = seconds(opts.get("duration", DEFAULT_DURATION_S))
    keys = {k: v for k, v in opts.items() if is_key_path(k)}
    robot = str(opts.get(ROBOT, DEFAULT_ROBOT))
    config = RobotConfig(robot=described(task.robots, robot, keys), seed=int(opts["seed"]),
                         faults=list(opts["fault"]), actions=list(opts.get("do", [])),
                         tuning=point_tuning(opts),
                         keep_records="oscillation" in task.metrics, duration_s=duration,
                         **given)
    return Robot(config), duration


def check_runs(spec: SweepSpec, path: Path) -> None:
    """Build the robot of representative points before any runs, so that what would fail in
    every point (a base fault, action or trajectory; an engine a fault or mode rules out; a
    metric the report lacks) is one error naming the file: every value of the named-choice
    axes, fault axes at their smallest and largest, other axes at their first value; their
    combinations, or one axis at a time when there are more than MAX_BUILDS."""
    picks = {name: _representatives(name, values) for name, values in spec.axes.items()}
    first = {name: values[0] for name, values in picks.items()}
    if math.prod(len(v) for v in picks.values()) <= MAX_BUILDS:
        points = [dict(zip(picks, combo, strict=True))
                  for combo in itertools.product(*picks.values())]
    else:
        points = [first, *({**first, name: v} for name, values in picks.items()
                           for v in values[1:])]
    for point in points:
        task = Task(0, point, 0, spec.base, spec.metrics, spec.measure, spec.trajectory_text,
                    spec.robots)
        try:
            robot = build(task)[0]
            report = robot.report(0.0)
        except Exception as err:  # what the run would raise in every point like this one
            raise SweepError(f"{path}: the point {point} (with [base]) cannot run: "
                             f"{err}") from err
        joint = int(spec.measure["joint"])
        if joint > robot.joints:
            raise SweepError(f"{path}: measure.joint: {joint}: {robot.description.name} has "
                             f"joints 1..{robot.joints} (the point {point})")
        for name in spec.metrics:
            _check_metric_in(path, name, report, point)


def _representatives(name: str, values: list[Any]) -> list[Any]:
    """The values of an axis check_runs builds a robot for."""
    if name in (*PASSED, "tuning", "meas_bytes", ROBOT):
        return values
    if name in FAULT_AXES:
        return list({min(values, key=float): 0, max(values, key=float): 0})
    return values[:1]


def _check_metric_in(path: Path, name: str, report: dict[str, Any],
                     point: dict[str, Any]) -> None:
    """Refuse a metric the run report cannot give: no such key, a list or dict not reduced,
    a reduction of a single figure."""
    if name in measures.DERIVED:
        return
    how, sep, key = name.partition(":")
    key = key if sep else how
    if key not in report:
        raise SweepError(f"{path}: metrics: {name!r}: the run report has no {key!r} (point "
                         f"{point}); it has {', '.join(sorted(report))}")
    collection = isinstance(report[key], dict | list)
    if collection and not sep:
        raise SweepError(f"{path}: metrics: {name!r}: {key} is a "
                         f"{type(report[key]).__name__}: reduce it (max:{key}, sum:{key} or "
                         f"mean:{key})")
    if sep and not collection:
        raise SweepError(f"{path}: metrics: {name!r}: {key} is a single figure: give it "
                         f"as {key!r}")


def status(report: dict[str, Any]) -> str:
    """`fault` when the run saw a servo fault, trip, slip, deadline miss or actuation
    timeout; `ok` otherwise."""
    faulty = (report["servo_faults"] or report["trips"] or report["slips"]
              or report["deadline_misses"] or report["actuation_timeouts"])
    return "fault" if faulty else "ok"


def is_error(status_text: str) -> bool:
    """Is a row's status an error (the run raised or its worker died), not `ok`/`fault`?"""
    return status_text.startswith("error")


def finished(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose run finished (`ok` or `fault`): the ones with figures."""
    return [r for r in rows if not is_error(str(r.get("status", "error")))]


def metric(report: dict[str, Any], name: str) -> Any:
    """A report key, or a max:/sum:/mean: reduction of a report list or dict (0 when empty)."""
    how, sep, key = name.partition(":")
    key = key if sep else how
    if key not in report:
        raise ValueError(f"metric {name!r}: the run report has no {key!r}")
    value = report[key]
    if not sep:
        if isinstance(value, dict | list):
            raise ValueError(f"metric {name!r} is a {type(value).__name__}: reduce it "
                             f"(max:{key}, sum:{key} or mean:{key})")
        return value
    values = [float(v) for v in (value.values() if isinstance(value, dict) else value)]
    if not values:
        return 0.0
    return {"max": max(values), "sum": math.fsum(values),
            "mean": math.fsum(values) / len(values)}[how]


def run_point(task: Task) -> dict[str, Any]:
    """Run one point; its result row (axes, seed, status, metrics).  Any error of the run is
    the row's status `error: ...` (the sweep goes on)."""
    row = task.row_head()
    try:
        robot, duration = build(task)
        robot.run(duration)
        report = robot.report(0.0)
        values: dict[str, Any] = {}
        for name in task.metrics:
            values.update(_measure(robot, report, task, name))
        row["status"] = status(report)
        row.update(values)
    except Exception as err:  # a bad option or a failing run is this point's result
        row["status"] = f"error: {type(err).__name__}: {err}"
    return row


def _measure(robot: Any, report: dict[str, Any], task: Task, name: str) -> dict[str, Any]:
    """The column(s) of one metric."""
    if name == "oscillation":
        return measures.oscillation(robot, task.measure)
    if name == "fault_detection":
        return measures.fault_detection(robot, task.measure,
                                        float(task.point.get("silence_ms", 0.0)))
    if name == "bus_off_events":
        return {name: measures.bus_off_events(robot)}
    if name == "servo_faults_total":
        return {name: sum(report["servo_faults"].values())}
    return {name.replace(":", "_"): metric(report, name)}
