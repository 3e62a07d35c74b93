"""Protocol traffic models: nodes that produce the SPEC 1.1 frame pattern without firmware.

``JointTraffic`` answers every TICK with its measurement; ``HostTraffic`` waits for the
measurements of every joint of the schema's layout (12 on SPEJBL) and then sends its actuation
frames (3 on SPEJBL) after a compute delay.  A period is complete once, when its last distinct
measurement arrives before the next tick, and only if its tick came on time (``tick_on_time``,
judged by the caller on the wire); a complete period behind a delayed tick is counted apart
(``late``).  They exercise the bus layer (timing, load, logs, faults) with the real schema; the
emulated boards and the PID host replace them in a full robot run.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import can

from servobus.bus.node import Clock
from servobus.bus.schema import TICK, Schema, SchemaError, actuation_name, meas_name


@dataclass
class JointTraffic:
    """Sends MEAS_<joint> (or MEAS6_<joint>) on every TICK."""

    schema: Schema
    joint: int
    meas_bytes: int = 2
    position: int = 512
    faults: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or f"JOINT_{self.joint}"
        self._bus: can.BusABC | None = None
        self._tick_id = schema_id(self.schema, TICK)

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Keep the bus."""
        self._bus = bus

    def on_message(self, msg: can.Message) -> None:
        """Answer a tick."""
        if msg.arbitration_id != self._tick_id or self._bus is None:
            return
        values: dict[str, float] = {f"position_{self.joint}": self.position}
        if self.meas_bytes == 6:
            values |= {f"supply_{self.joint}": 7.0, f"current_{self.joint}": 0.0}
        self._bus.send(self.schema.encode(meas_name(self.joint, self.meas_bytes), values))


@dataclass
class HostTraffic:
    """Collects the measurements of a period, then sends the actuation frames."""

    schema: Schema
    meas_bytes: int = 2
    compute_ns: int = 200_000
    name: str = "HOST"
    periods: int = 0
    complete: int = 0
    late: int = 0
    decode_faults: int = 0
    seen: set[int] = field(default_factory=set)
    tick_on_time: Callable[[], bool] = lambda: True

    def __post_init__(self) -> None:
        self._tick_id = schema_id(self.schema, TICK)
        self._joints = self.schema.joints
        self._meas_ids = {schema_id(self.schema, meas_name(j, self.meas_bytes)): j
                          for j in range(1, self._joints + 1)}
        self._actuations = [(actuation_name(k), {f"iw_{j}": 0.0 for j in group})
                            for k, group in enumerate(self.schema.layout.groups, start=1)]

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Keep bus and clock."""
        self._bus, self._clock = bus, clock

    def on_message(self, msg: can.Message) -> None:
        """Track the period; send actuation once all measurements are in."""
        try:
            self.schema.decode(msg)
        except SchemaError:
            self.decode_faults += 1
            return
        if msg.arbitration_id == self._tick_id:
            self.periods += 1
            self.seen = set()
        elif msg.arbitration_id in self._meas_ids and len(self.seen) < self._joints:
            self.seen.add(self._meas_ids[msg.arbitration_id])
            if len(self.seen) == self._joints:
                if self.tick_on_time():
                    self.complete += 1
                else:
                    self.late += 1
                self._clock.call_at(self._clock.now_ns() + self.compute_ns, self._actuate)

    def _actuate(self) -> None:
        """Send every actuation frame, zero current references (the layout's groups)."""
        for name, values in self._actuations:
            self._bus.send(self.schema.encode(name, values))


def schema_id(schema: Schema, name: str) -> int:
    """Frame ID of a message."""
    return int(schema.message(name).frame_id)
