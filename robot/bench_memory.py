"""RSS of a long `servobus run` against simulated time (issue 11: bounded memory).

The default robot runs in steps; after each the resident set size is read from
/proc/self/statm.  The growth per simulated hour is the least-squares slope of RSS over
simulated time after a warm-up (the bounded buffers fill in their first 2 s, numba and the
allocator settle), so a store that grows with simulated time shows and one-off costs do not.
"""

import os
import time

from servobus.robot.assembly import Robot, RobotConfig

WARM_UP_S = 30.0  # simulated seconds left out of the slope
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mib() -> float:
    """This process's resident set size (MiB), from /proc/self/statm (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys over xs (0 for fewer than two points)."""
    if len(xs) < 2:
        return 0.0
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


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
    late = [s for s in samples if s["sim_s"] >= min(WARM_UP_S, total_s / 2)]
    per_s = slope([s["sim_s"] for s in late], [s["rss_mib"] for s in late])
    return {"sim_minutes": minutes, "wall_s": wall, "rss_before_robot_mib": start_rss,
            "rss_start_mib": samples[0]["rss_mib"], "rss_end_mib": samples[-1]["rss_mib"],
            "warm_up_s": min(WARM_UP_S, total_s / 2),
            "growth_mib_per_sim_hour": per_s * 3600.0,
            "growth_after_warm_up_mib": late[-1]["rss_mib"] - late[0]["rss_mib"],
            "samples": samples}
