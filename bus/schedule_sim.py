"""The bus schedule on the simulated bus: time trigger, one node per joint of the DBC's layout
(12 on SPEJBL) and host, as traffic models.

Used by `servobus bussim` to check timing, load, logs and faults of the protocol itself, and by
the bus benchmark (SPEJBL's 14 nodes).  A tick is *delayed* when it reached the bus later than
the TICK's worst-case response time (Davis 2007, the schedule's own bound) after the time
trigger queued it: something outside the schedule (a babbler, a burst of errors) held it back,
and the period it opens is not counted complete.
"""

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from servobus.bus.busload import worst_case_response_ns
from servobus.bus.deferred_signals import deferred_signals
from servobus.bus.fault_runner import apply_script
from servobus.bus.faults import FaultPlan
from servobus.bus.load_meter import LoadMeter
from servobus.bus.medium import FrameRecord, Medium
from servobus.bus.node import Node, attach_sim
from servobus.bus.recorder import MediumRecorder
from servobus.bus.scheduler import NS_PER_S, Environment
from servobus.bus.schema import TICK, Schema
from servobus.bus.sim_interface import SimBus
from servobus.bus.tick_node import TickNode
from servobus.bus.traffic import HostTraffic, JointTraffic


@dataclass
class ScheduleSim:
    """A ready-to-run simulated robot bus carrying the protocol's traffic."""

    schema: Schema
    meas_bytes: int = 2
    seed: int = 0
    realtime_factor: float | None = None
    faults: Sequence[str] = ()
    log_path: str | None = None
    duration_s: float | None = None  # the run's length, when known: every fault must fall in it
    env: Environment = field(init=False)
    medium: Medium = field(init=False)

    def __post_init__(self) -> None:
        self.env = Environment(self.realtime_factor)
        timing = self.schema.bit_timing
        self.medium = Medium(self.env, timing.bitrate, faults=FaultPlan(seed=self.seed),
                             data_bitrate=timing.data_bitrate)
        self.meter = LoadMeter(timing.bitrate, window_s=self.schema.tick_period_ns / NS_PER_S,
                               data_bitrate=timing.data_bitrate)
        self.medium.taps.append(self.meter.tap)
        self.tick = TickNode(self.schema, self.schema.tick_period_ns, seed=self.seed)
        self.host = HostTraffic(self.schema, self.meas_bytes,
                                tick_on_time=lambda: self.last_tick_on_time)
        self._tick_id = int(self.schema.message(TICK).frame_id)
        wcrt = worst_case_response_ns(self.schema, self.meas_bytes, TICK)
        self.tick_bound_ns = self.schema.tick_period_ns if wcrt is None else wcrt
        self.ticks_delayed = 0
        self.tick_delay_max_ns = 0
        self.last_tick_on_time = True
        self.medium.taps.append(self._tick_timing)
        self.joints = [JointTraffic(self.schema, j, self.meas_bytes)
                       for j in range(1, self.schema.joints + 1)]
        nodes: list[Node] = [self.tick, *self.joints, self.host]
        self.buses: list[SimBus] = [attach_sim(n, self.medium) for n in nodes]
        apply_script(self.medium, self.faults, period_ns=self.schema.tick_period_ns,
                     ids={int(m.frame_id) for m in self.schema.period_messages(self.meas_bytes)},
                     end_ns=None if self.duration_s is None else round(self.duration_s * NS_PER_S))
        # last, so that a bad fault line leaves no empty log behind
        self.recorder = MediumRecorder(self.medium, self.log_path) if self.log_path else None

    def _tick_timing(self, record: FrameRecord) -> None:
        """Judge each delivered tick against its worst-case response time."""
        if record.ok and record.msg.arbitration_id == self._tick_id:
            latency = record.end_ns - record.queued_ns
            self.tick_delay_max_ns = max(self.tick_delay_max_ns, latency)
            self.last_tick_on_time = latency <= self.tick_bound_ns
            self.ticks_delayed += not self.last_tick_on_time

    def run(self, duration_s: float) -> dict[str, Any]:
        """Run for `duration_s` simulated seconds (the log is closed even on Ctrl-C)."""
        if duration_s <= 0:
            raise ValueError(f"duration must be positive, got {duration_s}")
        # Ctrl-C stops between two frames and takes effect once the log is closed: the log
        # holds exactly the frames the report counts
        with deferred_signals() as held:
            try:
                self.env.run(until=round(duration_s * NS_PER_S), stop=held.__bool__)
            finally:
                report = self.report()
                self.close()
        return report

    def close(self) -> None:
        """Close the log and take every node off the bus."""
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        for bus in self.buses:
            bus.shutdown()

    def report(self) -> dict[str, Any]:
        """Counters of the run."""
        load = self.meter.report()
        return {
            "sim_time_s": self.env.now / NS_PER_S,
            "frames": self.medium.frames, "error_frames": self.medium.error_frames,
            "ticks_sent": self.tick.sent, "host_periods": self.host.periods,
            "host_complete_periods": self.host.complete,
            "host_late_periods": self.host.late,
            "ticks_delayed": self.ticks_delayed,
            "tick_latency_max_s": self.tick_delay_max_ns / NS_PER_S,
            "tick_latency_bound_s": self.tick_bound_ns / NS_PER_S,
            "host_decode_faults": self.host.decode_faults,
            "bus_load_pct": load["load_pct"],
            "window_load_max_pct": load.get("window_load_max_pct", 0.0),
            "faults_injected": len(self.medium.faults.injected),
            "nodes": {c.name: {"state": c.state.value, "tec": c.tec, "rec": c.rec,
                               **dataclasses.asdict(c.counters)}
                      for c in self.medium.controllers},
            "log": self.log_path,
        }
