"""Speed of `servobus run` at full fidelity, with where the wall time goes."""

import time

from servobus.robot.assembly import Robot, RobotConfig


def bench_run(seconds: float = 10.0) -> dict:
    """Default robot (12 switching boards, time trigger, host) for `seconds` simulated."""
    robot = Robot(RobotConfig())
    robot.run(0.05)  # compile or load the numba cache
    kernel = [0.0]
    advance = robot.bank.advance_to

    def timed(t_ns: int) -> None:
        start = time.perf_counter()
        advance(t_ns)
        kernel[0] += time.perf_counter() - start

    robot.bank.advance_to = timed  # type: ignore[method-assign]
    frames_before = robot.medium.frames
    start = time.perf_counter()
    robot.run(seconds)
    wall = time.perf_counter() - start
    return {"sim_s": seconds, "wall_s": wall, "sim_s_per_wall_s": seconds / wall,
            "boards_kernel_s": kernel[0], "boards_kernel_pct": 100.0 * kernel[0] / wall,
            "bus_nodes_host_s": wall - kernel[0],
            "frames": robot.medium.frames - frames_before,
            "frames_per_wall_s": (robot.medium.frames - frames_before) / wall}
