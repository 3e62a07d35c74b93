"""The host as a CAN node: cycle state machine, controller, trajectory, joint commands.

    tick k --> collect MEAS_1..N --> compute (compute_ns) --> ACTUATION_1..G --> wait tick k+1

(N joints in G actuation groups, as the DBC states them: ``Schema.layout``; SPEJBL: 12 and 3.)

If a measurement is missing, the host computes anyway once the measurement phase is over
(``meas_timeout_ns`` after the tick) with the joint's last value and no current for it, so the
other joints stay under control; the fault is reported at the next tick.  Frames that arrive
while the host is busy (a slow host) wait, and so does every frame behind them, so frames are
always handled in arrival order; if several ticks queued up meanwhile the host jumps to the
newest and the skipped periods show up as slips (SPEC 1.1: the host was too slow); a tick
older than the newest one seen opens no period (Supervisor).  Unknown or malformed frames are
counted.  With ``local_p`` the boards close the position loop: the host sends position
references and runs no PID (nothing to saturate, no current-limit events).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import can
import numpy as np

from servobus.bus.codec_fast import signal_reader
from servobus.bus.node import Clock, decode_or_count, send_bytes_or_count, send_or_count
from servobus.bus.period_engine import Handler, rx_message
from servobus.bus.schema import (
    COMMANDS,
    MODE_NAMES,
    MODES,
    TICK,
    Schema,
    actuation_name,
    meas_name,
    posref_name,
)
from servobus.host.period_log import PeriodLog
from servobus.host.pid import MimoController
from servobus.host.supervisor import Supervisor
from servobus.host.trajectory import Player


@dataclass
class PeriodRecord:
    """What the host saw and did in one period (for reports and plots)."""

    tick_ns: int
    reference: np.ndarray
    measured: np.ndarray
    current: np.ndarray


@dataclass
class HostNode:
    """The PID host (SISO per-joint PIDs behind the MIMO interface)."""

    schema: Schema
    controller: MimoController
    player: Player
    meas_bytes: int = 2
    compute_ns: int = 200_000
    meas_timeout_ns: int = 2_000_000
    local_p: bool = False
    name: str = "HOST"
    supervisor: Supervisor = field(default_factory=Supervisor)
    records: PeriodLog = field(default_factory=PeriodLog)  # bounded; tracking figures
    rx_faults: int = 0
    tx_faults: int = 0
    limit_events: int = 0
    extra_delay: Callable[[int], int] = lambda now: 0

    def __post_init__(self) -> None:
        self.joints = n = self.schema.joints
        self.groups = self.schema.layout.groups
        if not self.supervisor.expected:
            self.supervisor.expected = frozenset(range(1, n + 1))
        self._tick_id = int(self.schema.message(TICK).frame_id)
        self._meas = {int(self.schema.message(meas_name(j, self.meas_bytes)).frame_id): j
                      for j in range(1, n + 1)}
        self._mode_ids = {int(self.schema.message(f"{kind}_{j}").frame_id): (j, f"{sig}_{j}")
                          for j in range(1, n + 1)
                          for kind, sig in (("STATUS", "mode"), ("ANNOUNCE", "board_mode"))}
        self.board_modes = ["unknown"] * n  # from STATUS_j / ANNOUNCE_j (schema.MODES)
        self.measured = np.full(n, 512.0)
        self.engaged = np.ones(n, dtype=bool)
        self.hold = np.full(n, np.nan)  # frozen joints keep this reference
        self._fresh = np.zeros(n, dtype=bool)
        self._busy_until = 0
        self._backlog: list[tuple[can.Message, int]] = []
        self._period = 0
        self._pending: int | None = None
        self._period_end: int | None = None  # first tick of a skipped run (drain)

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Keep the bus and clock.  No acceptance filter: the host sees, and counts, every
        frame it cannot decode.  A bus that takes bytes (the period engine) gets the cycle's
        frames as bytes."""
        self.bus, self.clock = bus, clock
        self._send_data: Callable[[int, bytes], None] | None = getattr(bus, "send_data", None)

    def on_message(self, msg: can.Message) -> None:
        """Handle a frame now, or keep it for when the busy host is free again."""
        now = self.clock.now_ns()
        if not self.idle(now):
            self._backlog.append((msg, now))
            return
        self._handle(msg, now)

    def _handle(self, msg: can.Message, now: int) -> None:
        """Process a frame that arrived at `now` (ns)."""
        decoded = decode_or_count(self.schema, msg, self)
        if decoded is None:
            return
        if msg.arbitration_id == self._tick_id:
            ended, self._period_end = self._period_end, None
            if not self.supervisor.on_tick(int(decoded.values["seq"]), now, ended):
                return  # an old tick (a reorder or duplicate on the bus) opens no period
            self.player.advance_to(now / 1e9)
            self._fresh[:] = False
            self._period += 1
            period = self._period
            self.clock.call_at(max(now + self.meas_timeout_ns, self.clock.now_ns()),
                               lambda: self._timeout(period))
        elif msg.arbitration_id in self._meas:
            j = self._meas[msg.arbitration_id]
            self.measurement(j, float(decoded.values[f"position_{j}"]), now)
        elif msg.arbitration_id in self._mode_ids:
            j, signal = self._mode_ids[msg.arbitration_id]
            value = int(decoded.values[signal])
            if 0 <= value < len(MODE_NAMES):
                self.board_modes[j - 1] = MODE_NAMES[value]
            else:
                self.rx_faults += 1
                self.board_modes[j - 1] = "unknown"

    def measurement(self, j: int, position: float, now: int) -> None:
        """Joint j's measured position arrived at `now` (the host not busy): the period's
        computation starts once all are in."""
        self.measured[j - 1] = position
        self._fresh[j - 1] = True
        if self.supervisor.on_measurement(j, now) and self._pending != self._period:
            self._compute(self._period, now)

    def byte_handlers(self) -> dict[int, Handler]:
        """The frames it takes as bytes on a bus that hands them so (the period engine): each
        MEAS_j, its position straight in when the host is idle (payloads repeat: decoded once),
        else kept as a frame in the backlog like any other."""
        return {can_id: self._measurement_bytes(j, can_id) for can_id, j in self._meas.items()}

    def _measurement_bytes(self, j: int, can_id: int) -> Handler:
        position = signal_reader(self.schema.codec(meas_name(j, self.meas_bytes)),
                                 f"position_{j}", float)

        def handler(can_id: int, data: bytes, now: int) -> None:
            if not self.idle(now):
                self.on_message(rx_message(can_id, data, now, self.schema.fd_ids))
                return
            self.measurement(j, position(data), now)
        return handler

    def idle(self, now: int) -> bool:
        """Whether a frame arriving at `now` is handled at once (not kept in the backlog)."""
        return now >= self._busy_until and not self._backlog

    def between_periods(self, now: int) -> bool:
        """Whether the host is idle and done with its period at `now`: its actuation computed,
        no skipped ticks being drained, a tick seen (the state an engine may run whole
        periods from)."""
        return self.idle(now) and self._pending == self._period and \
            self._period_end is None and self.supervisor.seq is not None and \
            self.player.clock[1] is not None

    def ran_periods(self, seq: int, tick_end: np.ndarray, last_meas: np.ndarray,
                    refs: np.ndarray, meas: np.ndarray, currents: np.ndarray,
                    limit_events: int) -> None:
        """An engine ran n whole periods as this host would have (tick i heard at
        tick_end[i] with sequence number seq + i, its last measurement at last_meas[i], the
        references, measurements and currents of row i): the supervisor's and the records'
        figures, the period count, the busy time and the limit events, as n periods here."""
        n = len(tick_end)
        self.supervisor.steady_periods(seq, tick_end, last_meas, self.compute_ns)
        self.records.extend(tick_end.tolist(), refs, meas, currents, PeriodRecord)
        self._period += n
        self._pending = self._period
        self._busy_until = int(last_meas[-1]) + self.compute_ns
        self._fresh[:] = True
        self.limit_events += limit_events

    def _timeout(self, period: int) -> None:
        if period == self._period and self.supervisor.sent_ns is None and \
                self._pending != period:
            self._compute(period, self.clock.now_ns())

    def _compute(self, period: int, ready: int) -> None:
        """Compute the period's actuation; its inputs were complete at `ready` (ns)."""
        self._pending = period
        now = max(self.clock.now_ns(), self._busy_until)
        self.supervisor.on_compute(ready)
        done = now + self.compute_ns + self.extra_delay(now)
        self._busy_until = done
        self.clock.call_at(done, lambda: self._send(period))

    def _send(self, period: int) -> None:
        reference = np.where(np.isnan(self.hold), self.player.position(), self.hold)
        currents = np.zeros(self.joints)
        if not self.local_p:
            usable = self._fresh & self.engaged
            currents = np.where(usable, self.controller.step(reference, self.measured), 0.0)
            if not usable.all():  # no stale integration for silent or released joints
                self.controller.reset(~usable)
            self.limit_events += int(np.count_nonzero(self.controller.saturated & usable))
        for k, joints in enumerate(self.groups, start=1):
            if self.local_p:
                self._emit(posref_name(k), {
                    f"xw_{j}": int(min(max(round(reference[j - 1]), 0), 1023)) for j in joints})
            else:
                self._emit(actuation_name(k), {f"iw_{j}": float(currents[j - 1]) for j in joints})
        if period == self._period:
            self.supervisor.on_actuation_sent(self.clock.now_ns())
        self.records.append(PeriodRecord(self.supervisor.tick_ns, reference.copy(),
                                         self.measured.copy(), currents))
        self._drain_backlog()

    def _emit(self, name: str, values: dict[str, float]) -> None:
        """Send a frame of the cycle: as bytes where the bus takes them (the period engine),
        else as a can.Message; the same payload either way."""
        send_bytes_or_count(self.bus, self._send_data, self.schema,
                            *self.schema.encode_data(name, values), self)

    def _drain_backlog(self) -> None:
        """Serve frames that waited while busy; only the newest tick's period is kept."""
        backlog, self._backlog = self._backlog, []
        ticks = [k for k, (m, _) in enumerate(backlog) if m.arbitration_id == self._tick_id]
        start = ticks[-1] if ticks else 0
        if len(ticks) > 1:  # the current period ended with the first of the queued ticks
            self._period_end = backlog[ticks[0]][1]
        for msg, arrived in backlog[start:]:
            self._handle(msg, arrived)

    def report(self) -> dict:
        """The supervisor's figures (ticks, slips, old ticks, deadline misses, servo faults by
        joint, host window) and the frames it could not read or send."""
        sup = self.supervisor
        return {"ticks": sup.ticks, "slips": sup.slips,
                "ticks_out_of_order": sup.ticks_out_of_order,
                "deadline_misses": sup.deadline_misses,
                "servo_faults": {f"joint_{j}": n for j, n in sorted(sup.servo_faults.items())},
                "host_window_measured_s": sup.window_stats(), "rx_faults": self.rx_faults,
                "tx_faults": self.tx_faults}

    def command(self, joint: int, command: str, mode: str = "float") -> None:
        """Send a joint command (joint 0: all joints); `mode` (a name of schema.MODES) is
        the board mode set by set_mode."""
        if command not in COMMANDS:
            raise ValueError(f"unknown command {command!r}: use one of {', '.join(COMMANDS)}")
        if not 0 <= joint <= self.joints:
            raise ValueError(f"joint {joint}: use 1..{self.joints}, or 0 for all")
        if mode not in MODES:
            raise ValueError(f"unknown board mode {mode!r}: use one of {', '.join(MODES)}")
        send_or_count(self.bus, self.schema.encode(
            "COMMAND", {"joint": joint, "command": COMMANDS[command], "mode": MODES[mode]}), self)

    def _mask(self, joint: int) -> np.ndarray:
        return np.arange(1, self.joints + 1) == joint if joint else \
            np.ones(self.joints, dtype=bool)

    def release(self, joint: int = 0) -> None:
        """Float a joint (0: all): no control, the limb can be moved by hand."""
        mask = self._mask(joint)
        self.engaged[mask] = False
        self.command(joint, "release")

    def engage(self, joint: int = 0) -> None:
        """Put a joint (0: all) back under control, following the trajectory."""
        mask = self._mask(joint)
        self.hold[mask] = np.nan
        self.controller.reset(mask)
        self.engaged[mask] = True
        self.command(joint, "engage")

    def freeze(self, joint: int = 0) -> None:
        """x_w := x, then engage: the joint holds where it is now."""
        mask = self._mask(joint)
        self.hold[mask] = self.measured[mask]
        self.controller.reset(mask)
        self.engaged[mask] = True
        self.command(joint, "freeze")

    def capture(self) -> np.ndarray:
        """The present pose (the measured positions), for a new trajectory line."""
        return np.rint(self.measured).astype(int)
