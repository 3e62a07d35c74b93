"""One sweep point as one task: a `servobus run` from the base options and the point's values,
reduced to the sweep's metrics.  Runs on a Dask worker (anything it needs travels in `Task`)."""

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from servobus.sweep import measures
from servobus.sweep.spec import SweepSpec, seconds

if TYPE_CHECKING:
    from servobus.host.tunings import Tuning


@dataclass(frozen=True)
class Task:
    """Everything a worker needs for one point (picklable, no file paths)."""

    index: int
    point: dict[str, Any]
    seed: int
    base: dict[str, Any]
    metrics: list[str]
    measure: dict[str, Any]
    trajectory_text: str | None


def tasks(spec: SweepSpec) -> list[Task]:
    """The sweep's points as tasks, in point order."""
    return [Task(k, p, spec.run_seed(p), spec.base, spec.metrics, spec.measure,
                 spec.trajectory_text) for k, p in enumerate(spec.points())]


def options(task: Task) -> dict[str, Any]:
    """Base options with the point's run options on top; fault axes become fault lines."""
    opts = {**task.base, **{k: v for k, v in task.point.items()
                            if k not in ("corrupt_rate", "silence_ms", "replicate")}}
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


def point_tuning(opts: dict[str, Any]) -> "str | Tuning":
    """The run's tuning: the base tuning's name, or (omega_d / omega_i / k_kp axes) the base
    tuning with those fields replaced."""
    from servobus.host import tunings

    name = str(opts.get("tuning", tunings.DEFAULT_TUNING))
    fields = {k: float(opts[k]) for k in ("omega_d", "omega_i", "k_kp") if k in opts}
    if not fields:
        return name
    base = tunings.tuning(name)
    wd, wi = fields.get("omega_d", base.omega_d), fields.get("omega_i", base.omega_i)
    k_kp = fields.get("k_kp", base.k_kp)
    return tunings.Tuning(f"{name}[wd={wd:g},wi={wi:g},k={k_kp:g}]", wd, wi, k_kp)


def build(task: Task) -> tuple[Any, float]:
    """The Robot of a task and its duration (s)."""
    from servobus.host.trajectory import parse
    from servobus.robot.assembly import Robot, RobotConfig

    opts = options(task)
    alpha = opts.get("alpha", 1.0)
    alphas = [float(a) for a in alpha] if isinstance(alpha, list) else [float(alpha)] * 12
    traj = (parse(task.trajectory_text, str(opts["trajectory"]))
            if task.trajectory_text is not None else None)
    needs_records = "oscillation" in task.metrics
    config = RobotConfig(mode=opts.get("mode", "cascade"),
                         sensing=opts.get("sensing", "supply-unipolar"),
                         plant=opts.get("plant", "switching"), alphas=alphas,
                         seed=int(opts["seed"]), faults=list(opts["fault"]),
                         meas_bytes=int(opts.get("meas_bytes", 2)),
                         anti_windup=opts.get("anti_windup", "soft"), tuning=point_tuning(opts),
                         actions=list(opts.get("do", [])), keep_records=needs_records,
                         engine=opts.get("engine", "auto"), trajectory=traj)
    robot = Robot(config)
    return robot, seconds(opts.get("duration", 1.0))


def status(report: dict[str, Any]) -> str:
    """`fault` when the run saw a servo fault, trip, slip, deadline miss or actuation
    timeout; `ok` otherwise."""
    faulty = (report["servo_faults"] or report["trips"] or report["slips"]
              or report["deadline_misses"] or report["actuation_timeouts"])
    return "fault" if faulty else "ok"


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
    row: dict[str, Any] = {"point": task.index, **task.point, "seed": task.seed}
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
