"""Frames per second through the simulated bus with 14 nodes, next to python-can's buses.

Every node sends the same number of 8-byte frames and every other node receives them all:
each frame is delivered to 13 receivers, and every line counts a delivery only when its node
has taken the frame (a listener or handler called, or ``recv()`` returned it), so all lines do
the same work.  ``servobus``/``servobus_recv``: the reference medium (python-can's path);
``servobus_period``: the period engine's bus, the one ``servobus run`` uses (queues full, and
``_depth1``: one frame queued per node, as in a robot run); ``servobus_compiled``: the same
traffic through a compiled arbiter with LeanBus's rules (``bus.arbiter_compiled``), one numba
call (the compiled period engines' wire, ``robot.period_loop``, follows the same rules frame by
frame between the nodes' compiled code).  A line is one function ``(frames per node) -> Shot``
measured by ``repeat``: frames put on the bus and deliveries received per wall second, min /
median / max over the repeats (after one warm-up shot of the same size).
"""

import statistics
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Any, TypedDict

import can
import numpy as np

from servobus.bus import frame_bits as fb
from servobus.bus.bit_timing import BitTiming
from servobus.bus.medium import Medium
from servobus.bus.period_engine import TX_QUEUE, LeanBus
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.scheduler import NS_PER_S, Environment
from servobus.bus.schema import Schema
from servobus.bus.sim_interface import SimBus

NODES = 14
BITRATE = 1_000_000  # the period engine's and the compiled arbiter's lines


class _Shot(TypedDict):
    frames: int
    deliveries: int
    wall_s: float


class Shot(_Shot, total=False):
    """One measurement of a line: what went through and how long it took."""

    sim_time_s: float  # a simulated bus: the simulated time the frames took
    received_min: int  # the fewest frames any one node took (13 x frames per node if none lost)


Line = Callable[[int], Shot]


def _frames(node: int, count: int) -> list[can.Message]:
    return [can.Message(arbitration_id=0x100 + node, data=k.to_bytes(8, "little"),
                        is_extended_id=False) for k in range(count)]


def _sim_buses(per_node: int) -> tuple[Medium, list[SimBus]]:
    medium = Medium(Environment())
    return medium, [SimBus(channel=f"N{i}", medium=medium, tx_queue_size=per_node,
                           rx_queue_size=per_node * NODES) for i in range(NODES)]


def _send_all(buses: list[SimBus], per_node: int) -> None:
    for i, bus in enumerate(buses):
        for msg in _frames(i, per_node):
            bus.send(msg)


def sim_listeners(per_node: int) -> Shot:
    """The simulated bus as the robot uses it: each node's listener takes its frames at their
    end of frame (here: counts them)."""
    medium, buses = _sim_buses(per_node)
    counts = [0] * NODES
    for i, bus in enumerate(buses):
        bus.listener = lambda msg, i=i: counts.__setitem__(i, counts[i] + 1)
    start = time.perf_counter()
    _send_all(buses, per_node)
    medium.env.run()
    wall = time.perf_counter() - start
    for bus in buses:
        bus.shutdown()
    return {"frames": medium.frames, "deliveries": sum(counts), "wall_s": wall,
            "sim_time_s": medium.env.now / 1e9, "received_min": min(counts)}


def sim_recv(per_node: int) -> Shot:
    """The simulated bus through python-can's API: the medium runs, then every node
    ``recv()``s each frame from its receive queue."""
    medium, buses = _sim_buses(per_node)
    start = time.perf_counter()
    _send_all(buses, per_node)
    medium.env.run()
    counts = [0] * NODES
    for i, bus in enumerate(buses):
        while bus.recv(0) is not None:
            counts[i] += 1
    wall = time.perf_counter() - start
    for bus in buses:
        bus.shutdown()
    return {"frames": medium.frames, "deliveries": sum(counts), "wall_s": wall,
            "sim_time_s": medium.env.now / 1e9, "received_min": min(counts)}


def period_engine(per_node: int, depth: int = TX_QUEUE) -> Shot:
    """The bus `servobus run` uses (``period_engine.LeanBus``): every node has a handler per
    other node's ID that counts the frame as it takes it.  A node's transmit queue holds at most
    TX_QUEUE frames: it starts with `depth` and, as each of its frames is delivered, the node
    queues its next one (a tap), so the lowest-ID node still sends all its frames first, as on
    the medium with every frame queued at once."""
    env = Environment()
    bus = LeanBus(env, BitTiming(BITRATE))
    counts = [0] * NODES
    ids = [0x100 + i for i in range(NODES)]
    for i in range(NODES):
        def take(can_id: int, data: bytes, now: int, i: int = i) -> None:
            counts[i] += 1
        bus.attach(f"N{i}", {can_id: take for k, can_id in enumerate(ids) if k != i})
    pending = [[k.to_bytes(8, "little") for k in range(per_node)] for _ in range(NODES)]
    cursor = [min(depth, TX_QUEUE, per_node)] * NODES

    def refill(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        k = cursor[sender]
        if k < per_node:
            cursor[sender] = k + 1
            bus.send(sender, ids[sender], pending[sender][k])

    bus.taps.append(refill)
    start = time.perf_counter()
    for i in range(NODES):
        for data in pending[i][:cursor[i]]:
            bus.send(i, ids[i], data)
    env.run()
    wall = time.perf_counter() - start
    return {"frames": bus.frames, "deliveries": sum(counts), "wall_s": wall,
            "sim_time_s": env.now / 1e9, "received_min": min(counts)}


def compiled_arbiter(per_node: int) -> Shot:
    """The same traffic as ``period_engine`` through the compiled arbiter
    (``bus.arbiter_compiled``, LeanBus's arbitration rules): one numba call, every delivery
    counted into the receiving node's counter."""
    from servobus.bus.arbiter_compiled import arbitrate_c  # numba: this line only

    ids = np.array([0x100 + i for i in range(NODES)], dtype=np.int64)
    k = np.arange(per_node, dtype="<u8")
    payloads = np.ascontiguousarray(np.broadcast_to(
        k.view(np.uint8).reshape(per_node, 8), (NODES, per_node, 8)))
    accepts = ~np.eye(NODES, dtype=bool)
    counts = np.zeros(NODES, dtype=np.int64)
    free = np.zeros(1, dtype=np.int64)
    start = time.perf_counter()
    bit_ns = NS_PER_S // BITRATE
    frames = arbitrate_c(ids, payloads, 8, accepts, bit_ns, counts, free)
    wall = time.perf_counter() - start
    return {"frames": int(frames), "deliveries": int(counts.sum()), "wall_s": wall,
            "sim_time_s": (int(free[0]) - fb.IFS_BITS * bit_ns) / 1e9,  # at the last EOF
            "received_min": int(counts.min())}


def python_can(interface: str, channel: Any, **kw: Any) -> Line:
    """A python-can backend as a line: 14 bus objects, each sends, each drains (a thread per
    node) what the others sent."""
    def shot(per_node: int) -> Shot:
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
        return {"frames": NODES * per_node, "deliveries": sum(counts), "wall_s": wall,
                "received_min": min(counts)}
    return shot


def spread(values: list[float]) -> dict[str, float]:
    """min / median / max."""
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def repeat(line: Line, per_node: int, repeats: int) -> dict[str, Any]:
    """Run a line `repeats` times after one full-size warm-up shot outside the figures (imports,
    compiled helpers, and the stuffed lengths a simulated bus remembers of the same payloads: so
    every repeat does the same work): frames/s and deliveries/s (min / median / max)."""
    line(per_node)
    shots = [line(per_node) for _ in range(repeats)]
    frames, deliveries = shots[-1]["frames"], shots[-1]["deliveries"]
    extra = {k: v for k, v in shots[-1].items() if k not in _Shot.__annotations__}
    if "received_min" in extra:
        extra["received_min"] = min(s.get("received_min", 0) for s in shots)
    return extra | {"frames": frames, "deliveries": deliveries,
            "lost": frames * (NODES - 1) - deliveries, "repeats": repeats,
            "wall_s": spread([s["wall_s"] for s in shots]),
            "frames_per_s": spread([s["frames"] / s["wall_s"] for s in shots]),
            "deliveries_per_s": spread([s["deliveries"] / s["wall_s"] for s in shots])}


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
    """SPEJBL's full protocol (tick node, 12 joints, host) with cantools coding on every frame."""
    sim = ScheduleSim(Schema())
    start = time.perf_counter()
    sim.run(seconds)
    wall = time.perf_counter() - start
    return {"frames": sim.medium.frames, "wall_s": wall,
            "frames_per_s": sim.medium.frames / wall, "sim_s_per_wall_s": seconds / wall}


def bench_bus(per_node: int = 2000, remote_port: int | None = None,
              repeats: int = 3) -> dict[str, Any]:
    """Every backend usable here, measured the same way."""
    result: dict[str, Any] = {"nodes": NODES, "frames_per_node": per_node,
                              "servobus": repeat(sim_listeners, per_node, repeats),
                              "servobus_recv": repeat(sim_recv, per_node, repeats),
                              "servobus_schedule": bench_schedule(2.0),
                              "virtual": repeat(python_can("virtual", "bench"), per_node,
                                                repeats) | latency("virtual", "lat")}
    result["servobus_period"] = repeat(period_engine, per_node, repeats)
    result["servobus_period_depth1"] = repeat(partial(period_engine, depth=1), per_node, repeats)
    result["servobus_compiled"] = repeat(compiled_arbiter, per_node, repeats)
    if remote_port is not None:
        from servobus.bus.remote_server import serve_in_thread

        server = serve_in_thread("127.0.0.1", remote_port)
        url = f"ws://127.0.0.1:{server.server_port}/"
        try:
            result["remote"] = repeat(python_can("remote", url), max(per_node // 10, 1),
                                      repeats) | latency("remote", url, 50)
        finally:
            with suppress(OSError):
                server.shutdown()
                server.server_close()
    return result
