"""How a run's cost grows with the robot (`servobus bench scaling`): time-triggered robots of N
joints (`servobus robot new`'s shape: a board per joint, actuation groups of four, 4 ms) and the
shipped SPEJBL, each run on the compiled engine; per robot the simulated seconds per wall and
per CPU second and the wall microseconds per period and per period and joint, min / median /
max over `runs` measurements taken in turns (robot after robot, so that the machine's drift
spreads over all of them)."""

import statistics
import tempfile
from pathlib import Path

from servobus.robot.bench import measure
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile
from servobus.robot.robot_new import write_new

JOINTS = (1, 3, 7, 12, 16, 23)  # the default shapes


def _once(robot: RobotFile, seconds: float) -> dict[str, float]:
    """One measurement (``bench.measure`` on the compiled engine), per period and joint."""
    m = measure("compiled", seconds, kernel=False, robot_name=robot)
    counts = m["engine_periods"]
    return {"sim_s_per_wall_s": m["sim_s_per_wall_s"], "sim_s_per_cpu_s": m["sim_s_per_cpu_s"],
            "us_per_period": 1e6 * m["wall_s"] / m["periods"],
            "us_per_period_per_joint": 1e6 * m["wall_s"] / m["periods"] / len(robot.joints),
            "compiled_pct": 100.0 * counts["compiled"] / sum(counts.values())}


def _spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def bench_scaling(joints: tuple[int, ...] = JOINTS, seconds: float = 5.0,
                  runs: int = 3) -> dict:
    """The rows of the scaling table (module docstring), SPEJBL's last."""
    with tempfile.TemporaryDirectory() as folder:
        robots = {f"{n} joints": checked(str(write_new(f"scaling-{n}", n, Path(folder))[0]))
                  for n in joints}
        robots["spejbl"] = checked("spejbl")
        samples: dict[str, list[dict[str, float]]] = {name: [] for name in robots}
        for _ in range(runs):
            for name, robot in robots.items():
                samples[name].append(_once(robot, seconds))
    rows = []
    for name, taken in samples.items():
        row: dict = {"robot": name, "joints": len(robots[name].joints)}
        for key in taken[0]:
            row[key] = _spread([t[key] for t in taken])
        rows.append(row)
    return {"sim_s": seconds, "runs": runs, "engine": "compiled", "rows": rows}
