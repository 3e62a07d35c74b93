"""GuRoo's central computer as a CAN node (SPEC 5): open-loop velocity broadcast, supervision.

Every ``period_ns`` (2 ms) on an absolute grid from its start it sends VEL_SP_1..5 (joints 1..15:
the gait's velocity at the broadcast instant in motor encoder counts per second, 2000 counts per
motor revolution x 156, rounded to the 16 cnt/s LSB) and SERVO_SP_1..2 (joints 16..23: the
gait's position, the integral of omega, rounded to 1 mrad); every VEL_SP carries the broadcast
count mod 2^16.  A broadcast that fires late (a stalled process) goes out once and the grid
instants it overran are skipped (``late``), never sent in a burst.

It listens to ANNOUNCE_b (the boards that booted), FEEDBACK_b (positions, status word: bit 0
over-current trip latched, bit 1 current limit active, bits 4..7 board ID) and SERVO_STATUS.
Supervision: the commanded position of a DC joint is the integral of the velocity it was sent
(held over each period, in counts); its tracking error is FEEDBACK minus that integral at the
frame's arrival.  A board's feedback is missed once its deadline (one feedback period after its
nominal time, the RTA's deadline) has passed: a board whose frames were missed
``silent_after`` times in a row is a servo fault, counted once per silence (a board that talks
again and falls silent again counts again).  The gait is open loop: nothing read back changes
what is sent.  Memory is bounded: running sums, no per-period lists (unless ``keep_samples``:
every feedback position with its commanded value, for `servobus run --plot`).

The set-point frames are packed from their raw words (struct) and sent as bytes on a bus that
takes them (``send_data``: the period engine), as can.Message otherwise; ``byte_handlers`` reads
FEEDBACK_b and SERVO_STATUS from raw payloads.  Bytes and values equal the schema codec's
(tests/robot/test_guroo_speed_parts.py).
"""

import math
from collections.abc import Callable
from typing import Any

import can
import numpy as np

from servobus.bus.node import Clock, decode_or_count, send_bytes_or_count
from servobus.bus.schema import Schema
from servobus.host.guroo_trajectory import DC_JOINTS, JOINTS, Gait
from servobus.presets import guroo as pre

COUNTS_PER_RAD = pre.COUNTS_PER_REV * pre.GEAR_RATIO / (2 * math.pi)  # joint rad to motor counts
COUNTS_PER_DEG = pre.COUNTS_PER_JOINT_DEG  # 866.67 (SPEC 5: "about 867")
LOOKAHEAD = 125  # broadcasts whose commands are evaluated at once (0.25 s at 2 ms)
HP_BOARDS = DC_JOINTS // 3
SERVO_BOARD = HP_BOARDS + 1  # board 6 (its ANNOUNCE_6, its SERVO_STATUS)
TRIP_BIT, LIMIT_BIT = 0x1, 0x2


def _degrees(counts: list[float | None]) -> list[float | None]:
    """Motor counts to joint degrees (None stays None: a joint never heard)."""
    return [None if x is None else x / COUNTS_PER_DEG for x in counts]


def board_name(b: int) -> str:
    """HP_1..HP_5, SERVO_BOARD (board 6)."""
    return "SERVO_BOARD" if b == SERVO_BOARD else f"HP_{b}"


class CentralNode:
    """The central computer: set-point broadcast every 2 ms and what it reads back."""

    name = "CENTRAL"

    def __init__(self, schema: Schema, gait: Gait, *, silent_after: int = 3,
                 keep_samples: bool = False) -> None:
        if silent_after < 1:
            raise ValueError(f"silent_after {silent_after} must be positive")
        self.schema, self.gait = schema, gait
        self.period_ns = schema.cycle_ns("VEL_SP_1")  # the DBC's cycle times
        self.feedback_period_ns = schema.cycle_ns("FEEDBACK_1")
        self.silent_after = silent_after
        self.broadcasts = self.late = self.rx_faults = self.tx_faults = 0
        boards = range(1, SERVO_BOARD + 1)
        self.servo_faults = {b: 0 for b in boards}
        self.announced: set[int] = set()
        self.trips = {b: 0 for b in range(1, HP_BOARDS + 1)}
        self.limit_frames = {b: 0 for b in range(1, HP_BOARDS + 1)}
        self.id_mismatches = 0
        self.servo_updates: int | None = None
        self.servo_status: int | None = None
        self._last_seen: dict[int, int] = {}
        self._silent = {b: False for b in boards}
        self._tripped = {b: False for b in range(1, HP_BOARDS + 1)}
        self._commanded = [0.0] * DC_JOINTS  # counts, at the last broadcast
        self._sent_w = [0.0] * DC_JOINTS  # cnt/s of the last broadcast
        self._t_sent = 0
        self._err_n = [0] * DC_JOINTS
        self._err_sq = [0.0] * DC_JOINTS
        self._err_max = [0.0] * DC_JOINTS
        ids = {f"FEEDBACK_{b}": b for b in range(1, HP_BOARDS + 1)}
        self._feedback = {int(schema.message(n).frame_id): b for n, b in ids.items()}
        self._announce = {int(schema.message(f"ANNOUNCE_{b}").frame_id): b for b in boards}
        self._servo_status = int(schema.message("SERVO_STATUS").frame_id)
        self._vel_ids = [int(schema.message(f"VEL_SP_{b}").frame_id)
                         for b in range(1, HP_BOARDS + 1)]
        self._servo_ids = [int(schema.message(f"SERVO_SP_{k}").frame_id) for k in (1, 2)]
        # the words' layouts and LSBs (VEL_SP: 16 cnt/s, FEEDBACK: 8 cnt, SERVO_SP: 1 mrad) from
        # the DBC's generated struct codecs
        self._vel, self._fb, self._servo, self._status = (schema.codec(n) for n in (
            "VEL_SP_1", "FEEDBACK_1", "SERVO_SP_1", "SERVO_STATUS"))
        self._vel_lsb, self._fb_lsb = self._vel.scales[0], self._fb.scales[0]
        self._send_data: Callable[[int, bytes], None] | None = None
        self._k = 0
        self._t0 = 0
        self._plan_k = 0
        no_plan = np.empty((0, DC_JOINTS))
        self._plans: tuple[np.ndarray, np.ndarray, np.ndarray] = (no_plan, no_plan, no_plan)
        self._rows: tuple[list, ...] = ([], [], [])  # the same chunk as lists
        # (arrival ns, joint, measured, commanded counts) per feedback position, for a plot
        self.samples: list[tuple[int, int, float, float]] | None = [] if keep_samples else None

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Keep the bus and clock; the first broadcast now, the boards' silence counted from
        now."""
        self.bus, self.clock = bus, clock
        self._send_data = getattr(bus, "send_data", None)
        self._t0 = self._t_sent = clock.now_ns()
        self._last_seen = {b: self._t0 for b in self.servo_faults}
        clock.call_at(self._t0, self._broadcast)

    def commands(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """The DC joints' velocity set-points (cnt/s, LSB-rounded) and the servo joints'
        positions (mrad) at gait time t_s."""
        return self._setpoints(*self.gait.state(t_s))

    def _setpoints(self, omega: np.ndarray, theta: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """clip(round(omega C / LSB) LSB) and clip(round(theta / 1 mrad)) of the last axis (one
        row per instant), in place: rint is round's decimals=0, clip is min(max()) for finite
        values."""
        w = omega[..., :DC_JOINTS] * COUNTS_PER_RAD
        lsb = self._vel_lsb
        np.divide(w, lsb, out=w)
        np.rint(w, out=w)
        np.multiply(w, lsb, out=w)
        np.minimum(np.maximum(w, -32768 * lsb, out=w), 32767 * lsb, out=w)
        p = theta[..., DC_JOINTS:JOINTS] / self._servo.scales[0]
        np.rint(p, out=p)
        np.minimum(np.maximum(p, -32768, out=p), 32767, out=p)
        return w, p

    def _plan(self, k: int) -> tuple[list[float], list[int], list[int]]:
        """Broadcast k's set-points (cnt/s), VEL_SP words and servo words (mrad): the commands
        of its nominal instant, evaluated LOOKAHEAD broadcasts at a time (the gait is open
        loop; ``Gait.states`` gives ``state``'s numbers)."""
        if not 0 <= k - self._plan_k < len(self._plans[0]):
            self.plan_arrays(k, 1)  # evaluates the chunk that holds k
        i = k - self._plan_k
        return self._rows[0][i], self._rows[1][i], self._rows[2][i]

    def plan_arrays(self, k: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Broadcasts k..k+n-1's rows of ``_plan`` as arrays (the same chunks of LOOKAHEAD
        broadcasts, each evaluated when the first broadcast beyond the last one is asked for)."""
        parts = []
        while n > 0:
            i = k - self._plan_k
            if not 0 <= i < len(self._plans[0]):
                ts = [(j * self.period_ns) / 1e9 for j in range(k, k + LOOKAHEAD)]
                w, p = self._setpoints(*self.gait.states(ts))
                raw_w = (w / self._vel_lsb).astype(np.int64)  # exact: w is a multiple of the LSB
                self._plans = (w, raw_w, p.astype(np.int64))
                self._rows = tuple(a.tolist() for a in self._plans)  # for `_plan`, row by row
                self._plan_k, i = k, 0
            m = min(n, len(self._plans[0]) - i)
            w, raw_w, raw_p = self._plans
            parts.append((w[i:i + m], raw_w[i:i + m], raw_p[i:i + m]))
            k, n = k + m, n - m
        if len(parts) == 1:
            return parts[0]
        w, raw_w, raw_p = (np.concatenate(c) for c in zip(*parts, strict=True))
        return w, raw_w, raw_p

    def _broadcast(self) -> None:
        now = self.clock.now_ns()
        self._supervise(now)
        dt = now - self._t_sent
        self._commanded = [c + w * dt / 1e9 for c, w in zip(self._commanded, self._sent_w,
                                                             strict=True)]
        w, raw_w, raw_p = self._plan(self._k)
        seq = self.broadcasts % 65536
        for b, can_id in enumerate(self._vel_ids):
            j = 3 * b
            data = self._vel.layout.pack(raw_w[j], raw_w[j + 1], raw_w[j + 2], seq)
            send_bytes_or_count(self.bus, self._send_data, can_id, data, self)
        for half, can_id in enumerate(self._servo_ids):
            send_bytes_or_count(self.bus, self._send_data, can_id,
                                self._servo.layout.pack(*raw_p[4 * half:4 * half + 4]), self)
        self._sent_w, self._t_sent = w, now
        self.broadcasts += 1
        self._k += 1
        behind = max(0, (now - self._t0) // self.period_ns + 1 - self._k)
        self.late += behind
        self._k += behind
        self.clock.call_at(self._t0 + self._k * self.period_ns, self._broadcast)

    def _supervise(self, now: int) -> None:
        """A board whose last `silent_after` feedback deadlines passed without a frame."""
        limit = (self.silent_after + 1) * self.feedback_period_ns
        for b, seen in self._last_seen.items():
            if now - seen >= limit and not self._silent[b]:
                self._silent[b] = True
                self.servo_faults[b] += 1

    def on_message(self, msg: can.Message) -> None:
        """Feedback, servo status and announce frames; anything undecodable is counted."""
        decoded = decode_or_count(self.schema, msg, self)
        if decoded is None:
            return
        values = decoded.values
        now = self.clock.now_ns()
        can_id = msg.arbitration_id
        if can_id in self._feedback:
            b = self._feedback[can_id]
            self._on_feedback(b, [float(values[f"x_{3 * b - 2 + i}"]) for i in range(3)],
                              int(values[f"status_{b}"]), now)
        elif can_id == self._servo_status:
            self._heard(SERVO_BOARD, now)
            self.servo_updates = int(values["updates"])
            self.servo_status = int(values["servo_status"])
        elif can_id in self._announce:
            self.announced.add(int(values[f"board_{self._announce[can_id]}"]))

    def _heard(self, b: int, now: int) -> None:
        self._last_seen[b] = now
        self._silent[b] = False

    def byte_handlers(self) -> dict[int, Callable[[int, bytes, int], None]]:
        """FEEDBACK_b and SERVO_STATUS on raw payloads, per CAN ID (a bus of bytes)."""
        def feedback(can_id: int, data: bytes, now: int) -> None:
            if len(data) != self._fb.layout.size:
                self.rx_faults += 1
                return
            x1, x2, x3, status = self._fb.layout.unpack(data)
            lsb = self._fb_lsb
            self._on_feedback(self._feedback[can_id], [float(x1 * lsb), float(x2 * lsb),
                                                       float(x3 * lsb)], status, now)

        def servo_status(can_id: int, data: bytes, now: int) -> None:
            if len(data) != self._status.layout.size:
                self.rx_faults += 1
                return
            self._heard(SERVO_BOARD, now)
            self.servo_updates, self.servo_status = self._status.layout.unpack(data)
        return {**dict.fromkeys(self._feedback, feedback), self._servo_status: servo_status}

    def _on_feedback(self, b: int, xs: list[float], status: int, now: int) -> None:
        self._heard(b, now)
        tripped = bool(status & TRIP_BIT)
        self.trips[b] += tripped and not self._tripped[b]
        self._tripped[b] = tripped
        self.limit_frames[b] += bool(status & LIMIT_BIT)
        self.id_mismatches += (status >> 4) & 0xF != b
        dt = now - self._t_sent
        for i in range(3):
            j = 3 * (b - 1) + i
            commanded = self._commanded[j] + self._sent_w[j] * dt / 1e9
            err = xs[i] - commanded
            if self.samples is not None:
                self.samples.append((now, j + 1, xs[i], commanded))
            self._err_n[j] += 1
            self._err_sq[j] += err * err
            self._err_max[j] = max(self._err_max[j], abs(err))

    def tracking(self) -> dict[str, list[float | None]]:
        """Per DC joint: RMS and max |FEEDBACK - commanded| in counts and joint degrees."""
        rms = [math.sqrt(s / n) if n else None for s, n in zip(self._err_sq, self._err_n,
                                                                 strict=True)]
        peak = [float(m) if n else None for m, n in zip(self._err_max, self._err_n, strict=True)]
        return {"rms_counts": rms, "max_counts": peak, "rms_deg": _degrees(rms),
                "max_deg": _degrees(peak)}

    def report(self) -> dict[str, Any]:
        """Broadcasts, faults per board, tracking per joint, announces, trips."""
        return {"broadcasts": self.broadcasts, "late_broadcasts": self.late,
                "tx_faults": self.tx_faults, "rx_faults": self.rx_faults,
                "servo_faults": {board_name(b): n for b, n in self.servo_faults.items()},
                "boards_announced": sorted(self.announced),
                "trips_seen": {board_name(b): n for b, n in self.trips.items()},
                "current_limit_frames": {board_name(b): n for b, n in self.limit_frames.items()},
                "board_id_mismatches": self.id_mismatches,
                "servo_board": {"updates_mod_256": self.servo_updates,
                                "status": self.servo_status},
                "tracking": self.tracking()}
