"""Frames per second through the simulated bus with 14 nodes, next to python-can's buses.

Every node sends the same number of 8-byte frames and every other node receives them all; the
figure is frames put on the bus per wall second (each frame is delivered to 13 receivers).
"""

import statistics
import threading
import time
from contextlib import suppress
from typing import Any

import can

from servobus.bus.medium import Medium
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema
from servobus.bus.sim_interface import SimBus

NODES = 14


def _frames(node: int, count: int) -> list[can.Message]:
    return [can.Message(arbitration_id=0x100 + node, data=k.to_bytes(8, "little"),
                        is_extended_id=False) for k in range(count)]


def bench_sim(per_node: int) -> dict[str, float]:
    """The simulated bus: queue everything, run the medium until every frame is delivered."""
    medium = Medium(Environment())
    buses = [SimBus(channel=f"N{i}", medium=medium, tx_queue_size=per_node,
                    rx_queue_size=per_node * NODES) for i in range(NODES)]
    start = time.perf_counter()
    for i, bus in enumerate(buses):
        for msg in _frames(i, per_node):
            bus.send(msg)
    medium.env.run()
    received = sum(b.controller.counters.rx_frames for b in buses)
    wall = time.perf_counter() - start
    for bus in buses:
        bus.shutdown()
    return {"frames": medium.frames, "deliveries": received, "wall_s": wall,
            "frames_per_s": medium.frames / wall, "sim_time_s": medium.env.now / 1e9}


def bench_python_can(interface: str, channel: Any, per_node: int, **kw: Any) -> dict[str, float]:
    """A python-can backend: 14 bus objects, each sends, each drains what the others sent."""
    buses = [can.Bus(interface=interface, channel=channel, **kw) for _ in range(NODES)]
    expected = per_node * (NODES - 1)
    counts = [0] * NODES

    def drain(i: int) -> None:
        while counts[i] < expected and buses[i].recv(timeout=2.0) is not None:
            counts[i] += 1

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(NODES)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for i, bus in enumerate(buses):
        for msg in _frames(i, per_node):
            bus.send(msg)
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    for bus in buses:
        bus.shutdown()
    frames = NODES * per_node
    return {"frames": frames, "deliveries": sum(counts), "wall_s": wall,
            "frames_per_s": frames / wall, "lost": frames * (NODES - 1) - sum(counts)}


def latency(interface: str, channel: Any, samples: int = 200, **kw: Any) -> dict[str, float]:
    """Wall time from send on one bus object to recv on another (median, max), in us."""
    a = can.Bus(interface=interface, channel=channel, **kw)
    b = can.Bus(interface=interface, channel=channel, **kw)
    times = []
    try:
        for k in range(samples):
            t0 = time.perf_counter()
            a.send(can.Message(arbitration_id=0x123, data=k.to_bytes(4, "little"),
                               is_extended_id=False))
            if b.recv(timeout=2.0) is not None:
                times.append((time.perf_counter() - t0) * 1e6)
    finally:
        a.shutdown()
        b.shutdown()
    return {"latency_median_us": statistics.median(times), "latency_max_us": max(times),
            "latency_lost": samples - len(times)}


def bench_schedule(seconds: float) -> dict[str, float]:
    """The full protocol (tick node, 12 joints, host) with cantools coding on every frame."""
    sim = ScheduleSim(Schema())
    start = time.perf_counter()
    sim.run(seconds)
    wall = time.perf_counter() - start
    return {"frames": sim.medium.frames, "wall_s": wall,
            "frames_per_s": sim.medium.frames / wall, "sim_s_per_wall_s": seconds / wall}


def bench_bus(per_node: int = 2000, remote_port: int | None = None) -> dict[str, Any]:
    """Every backend usable here, measured the same way."""
    result: dict[str, Any] = {"nodes": NODES, "frames_per_node": per_node,
                              "servobus": bench_sim(per_node),
                              "servobus_schedule": bench_schedule(2.0),
                              "virtual": bench_python_can("virtual", "bench", per_node)
                              | latency("virtual", "lat")}
    from servobus.bus.engine_arbiter import bench_engine_bus  # numba: only when benchmarking

    result["servobus_engine"] = bench_engine_bus(per_node)
    if remote_port is not None:
        from servobus.bus.remote_server import serve_in_thread

        server = serve_in_thread("127.0.0.1", remote_port)
        url = f"ws://127.0.0.1:{server.server_port}/"
        try:
            result["remote"] = bench_python_can("remote", url, max(per_node // 10, 1)) | \
                latency("remote", url, 50)
        finally:
            with suppress(OSError):
                server.shutdown()
                server.server_close()
    return result
