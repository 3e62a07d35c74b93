"""Speed of `servobus run` at full fidelity on the compiled engine, the period engine and the
reference path, for any time-triggered robot (SPEJBL by default) or a cyclic one.  The boards'
kernel time is measured where the bank is advanced from Python (``BoardBank.advance_to``): on
the compiled engine only its LeanBus periods go through there, so its kernel figure comes from
the period engine's run."""

import time

from servobus.robot.advance import engine_fields
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.robot_file import RobotFile

# whole STATUS periods (100 ms): the measured run's chunks (``advance.CHUNK_S``) then start
# on a STATUS instant, as `servobus run`'s do from 0, and each chunk is one compiled batch
# (0.05 s made two)
WARM_UP_S = 0.1


def measure(engine: str, seconds: float, kernel: bool = True,
             robot_name: str | RobotFile = "spejbl") -> dict:
    """One engine: simulated s per wall s and per CPU s, the tick periods run, and where the
    time goes (`kernel`: the boards' kernel share, which on the compiled engine would be its
    LeanBus periods' only, so not asked for there)."""
    robot = Robot(RobotConfig(robot=robot_name, engine=engine))
    robot.run(WARM_UP_S)  # compile or load the numba cache
    ticks = robot.tick.sent
    kernel_s = [0.0]
    advance = robot.bank.advance_to

    def timed(t_ns: int) -> None:
        start = time.perf_counter()
        advance(t_ns)
        kernel_s[0] += time.perf_counter() - start

    robot.bank.advance_to = timed  # type: ignore[method-assign]
    frames, periods = robot.frames, int(robot.bank.done.sum())
    start, cpu = time.perf_counter(), time.process_time()
    robot.run(seconds)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    periods = int(robot.bank.done.sum()) - periods
    return {**engine_fields(robot), "sim_s": seconds,
            "wall_s": wall, "cpu_s": cpu, "periods": robot.tick.sent - ticks,
            "sim_s_per_wall_s": seconds / wall, "sim_s_per_cpu_s": seconds / cpu,
            **({"boards_kernel_s": kernel_s[0],
                "boards_kernel_pct": 100.0 * kernel_s[0] / wall,
                "kernel_ns_per_pwm_period": 1e9 * kernel_s[0] / max(periods, 1),
                "bus_nodes_host_s": wall - kernel_s[0]} if kernel else {}),
            "frames": robot.frames - frames,
            "frames_per_wall_s": (robot.frames - frames) / wall}


def bench_run(seconds: float = 10.0, reference_seconds: float = 2.0,
              robot: str | RobotFile = "spejbl") -> dict:
    """A time-triggered robot (default SPEJBL: 12 switching boards, time trigger, host):
    `seconds` simulated on the compiled engine, `reference_seconds` on the period engine and on
    the reference path, in one process."""
    compiled = measure("compiled", seconds, kernel=False, robot_name=robot)
    period = measure("period", reference_seconds, robot_name=robot)
    reference = measure("reference", reference_seconds, robot_name=robot)
    compiled["us_per_period"] = 1e6 * compiled["wall_s"] / compiled["periods"]
    name = robot.name if isinstance(robot, RobotFile) else robot
    return {"robot": name, "compiled": compiled, "period": period, "reference": reference,
            "ratio_compiled_to_reference": compiled["sim_s_per_wall_s"] /
            reference["sim_s_per_wall_s"],
            "ratio_compiled_to_reference_cpu": compiled["sim_s_per_cpu_s"] /
            reference["sim_s_per_cpu_s"],
            "ratio_period_to_reference": period["sim_s_per_wall_s"] /
            reference["sim_s_per_wall_s"],
            "kernel_ns_per_pwm_period": period["kernel_ns_per_pwm_period"]}


def bench_described(described: RobotFile, seconds: float = 10.0, loop: str | None = None
                    ) -> dict:
    """A cyclic robot at full fidelity on its default engine (the compiled one): simulated s
    per wall s and per CPU s, frames per wall s, the periods each engine ran
    (`engine_periods`, warm-up included); `loop` None: each board's own."""
    from servobus.robot.described import DescribedConfig, DescribedRobot

    robot = DescribedRobot(described, DescribedConfig(loop=loop))
    name = described.name
    robot.run(0.05)  # compile or load the numba cache
    frames = robot.frames
    start, cpu = time.perf_counter(), time.process_time()
    robot.run(seconds)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"robot": name, **engine_fields(robot),
            "loop": loop, "sim_s": seconds,
            "wall_s": wall, "cpu_s": cpu, "sim_s_per_wall_s": seconds / wall,
            "sim_s_per_cpu_s": seconds / cpu, "frames": robot.frames - frames,
            "frames_per_wall_s": (robot.frames - frames) / wall}
