"""RSS of a long `servobus run` against simulated time (its memory must stay bounded).

The default robot runs in steps; after each the resident set size is read from
/proc/self/statm.  The growth per simulated hour is the least-squares slope of RSS over
simulated time in the second half of the run: the bounded stores fill first (the period
records in 2 s, the buses' stuffed-length LRU of 65,536 payloads in a few simulated minutes,
then it evicts the oldest), so a store that grows with simulated time
shows and filling a bounded one does not.  The slope after the first 30 s is reported too.
"""

import os
import time

import numpy as np

from servobus.robot.assembly import Robot, RobotConfig

EARLY_S = 30.0  # simulated seconds left out of the second, pessimistic slope
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mib() -> float:
    """This process's resident set size (MiB), from /proc/self/statm (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys over xs (0 for fewer than two points)."""
    if len(xs) < 2 or min(xs) == max(xs):
        return 0.0
    return float(np.polyfit(xs, ys, 1)[0])


def bench_memory(minutes: float = 10.0, every_s: float = 30.0) -> dict:
    """Run the default robot `minutes` simulated; sample RSS every `every_s` simulated s."""
    if minutes <= 0 or every_s <= 0:
        raise ValueError(f"minutes and interval must be positive, got {minutes}, {every_s}")
    start_rss = rss_mib()
    robot = Robot(RobotConfig())
    total_s, sim_s = minutes * 60.0, 0.0
    samples = [{"sim_s": 0.0, "rss_mib": rss_mib()}]
    start = time.perf_counter()
    while sim_s < total_s - 1e-9:
        step = min(every_s, total_s - sim_s)
        robot.run(step)
        sim_s += step
        samples.append({"sim_s": round(sim_s, 6), "rss_mib": rss_mib()})
    wall = time.perf_counter() - start
    half = [s for s in samples if s["sim_s"] >= total_s / 2]
    early = [s for s in samples if s["sim_s"] >= min(EARLY_S, total_s / 2)]
    return {"sim_minutes": minutes, "wall_s": wall, "rss_before_robot_mib": start_rss,
            "rss_start_mib": samples[0]["rss_mib"], "rss_end_mib": samples[-1]["rss_mib"],
            "rss_max_mib": max(s["rss_mib"] for s in samples),
            "growth_mib_per_sim_hour": _hourly(half),
            "growth_second_half_mib": half[-1]["rss_mib"] - half[0]["rss_mib"],
            "growth_after_30s_mib_per_sim_hour": _hourly(early),
            "samples": samples}


def _hourly(samples: list[dict[str, float]]) -> float:
    """RSS slope of the samples in MiB per simulated hour."""
    return 3600.0 * slope([s["sim_s"] for s in samples], [s["rss_mib"] for s in samples])
