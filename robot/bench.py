"""Speed of `servobus run` at full fidelity on the period engine and on the reference path."""

import time

from servobus.robot.assembly import Robot, RobotConfig


def _measure(engine: str, seconds: float) -> dict:
    """One engine: simulated s per wall s and per CPU s, and where the time goes."""
    robot = Robot(RobotConfig(engine=engine))
    robot.run(0.05)  # compile or load the numba cache
    kernel = [0.0]
    advance = robot.bank.advance_to

    def timed(t_ns: int) -> None:
        start = time.perf_counter()
        advance(t_ns)
        kernel[0] += time.perf_counter() - start

    robot.bank.advance_to = timed  # type: ignore[method-assign]
    frames, periods = robot.frames, int(robot.bank.done.sum())
    start, cpu = time.perf_counter(), time.process_time()
    robot.run(seconds)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    periods = int(robot.bank.done.sum()) - periods
    return {"engine": robot.engine, "sim_s": seconds, "wall_s": wall, "cpu_s": cpu,
            "sim_s_per_wall_s": seconds / wall, "sim_s_per_cpu_s": seconds / cpu,
            "boards_kernel_s": kernel[0], "boards_kernel_pct": 100.0 * kernel[0] / wall,
            "kernel_ns_per_pwm_period": 1e9 * kernel[0] / max(periods, 1),
            "bus_nodes_host_s": wall - kernel[0],
            "frames": robot.frames - frames,
            "frames_per_wall_s": (robot.frames - frames) / wall}


def bench_run(seconds: float = 10.0, reference_seconds: float = 2.0) -> dict:
    """The default robot (12 switching boards, time trigger, host): `seconds` simulated on the
    period engine and `reference_seconds` on the reference path, in one process."""
    engine = _measure("period", seconds)
    reference = _measure("reference", reference_seconds)
    return {"engine": engine, "reference": reference,
            "ratio_engine_to_reference": engine["sim_s_per_wall_s"] /
            reference["sim_s_per_wall_s"],
            "ratio_engine_to_reference_cpu": engine["sim_s_per_cpu_s"] /
            reference["sim_s_per_cpu_s"],
            "kernel_ns_per_pwm_period": engine["kernel_ns_per_pwm_period"]}
