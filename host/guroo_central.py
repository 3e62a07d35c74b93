"""GuRoo's central computer as a CAN node (SPEC 5): open-loop velocity broadcast, supervision.

The robot's shape is its boards (``hp``: the high-power boards, ``servo``: the RC servo board or
None; GuRoo's five boards of three joints and one of eight servos by default).  Every
``period_ns`` (2 ms) on an absolute grid from its start it sends VEL_SP_b to each high-power
board b (its joints: the gait's velocity at the broadcast instant in motor encoder counts per
second, 2000 counts per motor revolution x 156, rounded to the 16 cnt/s LSB) and SERVO_SP_1..
(four servo joints each: the gait's position, the integral of omega, rounded to 1 mrad); every
VEL_SP carries the broadcast count mod 2^16.  Joint j follows the gait's joint (j - 1) mod 23 + 1
(GuRoo's joints their own).  A broadcast that fires late (a stalled process) goes out once and
the grid instants it overran are skipped (``late``), never sent in a burst.

It listens to ANNOUNCE_b (the boards that booted: a high-power board's four words, the servo
board's one, each its board ID), FEEDBACK_b (positions, status word: bit 0 over-current trip
latched, bit 1 current limit active, bits 4..7 board ID) and SERVO_STATUS; an announce word or
status ID other than the board's is counted (``board_id_mismatches``), and a board whose
announce has one is not listed as announced.  It sends no remote frame (it does not poll the
boards' mailbox 2, MBX2_b: the supervision is FEEDBACK_b's, the emulator's addition) and passes
over one it hears: a request to a board's mailbox, which the central neither answers nor counts
as a fault; a board's MBX2_b reply decodes and is not used.
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
from dataclasses import dataclass
from typing import Any

import can
import numpy as np

from servobus.bus.node import Clock, decode_or_count, send_bytes_or_count
from servobus.bus.schema import Schema
from servobus.host.guroo_trajectory import JOINTS, Gait
from servobus.presets import guroo as pre

COUNTS_PER_RAD = pre.COUNTS_PER_REV * pre.GEAR_RATIO / (2 * math.pi)  # joint rad to motor counts
COUNTS_PER_DEG = pre.COUNTS_PER_JOINT_DEG  # 866.67 (SPEC 5: "about 867")
LOOKAHEAD = 125  # broadcasts whose commands are evaluated at once (0.25 s at 2 ms)
SLOTS = pre.MOTORS_PER_BOARD  # velocity slots per high-power board (its motors)
TRIP_BIT, LIMIT_BIT = 0x1, 0x2
# ``CentralState.ints``: id mismatches, servo updates, servo status (-1: never heard),
# broadcasts, the number of the broadcast armed next
C_MISMATCH, C_UPDATES, C_STATUS, C_BROADCASTS, C_K = range(5)
# ``CentralState.floats``' rows, one column per velocity slot: the commanded position at the
# last broadcast, the velocity it sent, the squared errors' sum, the largest error, the count
F_COMMANDED, F_SENT_W, F_ERR_SQ, F_ERR_MAX, F_ERR_N = range(5)


def _degrees(counts: list[float | None]) -> list[float | None]:
    """Motor counts to joint degrees (None stays None: a joint never heard)."""
    return [None if x is None else x / COUNTS_PER_DEG for x in counts]


@dataclass
class CentralState:
    """The central's state as arrays (``CentralNode.batch_state``), for a compiled engine to
    read and write in place and hand back (``CentralNode.take_batch_state``)."""

    ints: np.ndarray  # C_*
    floats: np.ndarray  # F_* rows by velocity slot
    sent: int  # the last broadcast's instant (ns)
    last_seen: np.ndarray  # per supervised board (high-power, then servo): its last frame (ns)
    silent: np.ndarray  # per supervised board: counted silent
    faults: np.ndarray  # per supervised board: its servo faults
    tripped: np.ndarray  # per high-power board: its last status word's trip bit
    trips: np.ndarray  # per high-power board: trips seen
    limits: np.ndarray  # per high-power board: frames with the current limit active


class CentralNode:
    """The central computer: set-point broadcast every 2 ms and what it reads back.

    The DC joints sit in velocity slots, SLOTS per high-power board in its order (slot 3k + m:
    board k's motor m + 1; a board of fewer joints leaves slots that are never sent and always
    0), the servo joints in servo slots, four per SERVO_SP frame."""

    def __init__(self, schema: Schema, gait: Gait, *, hp: tuple[pre.Board, ...] = pre.HP_SHAPE,
                 servo: pre.Board | None = pre.SERVO_SHAPE, name: str = "CENTRAL",
                 silent_after: int = 3, keep_samples: bool = False) -> None:
        if silent_after < 1:
            raise ValueError(f"silent_after {silent_after} must be positive")
        if not hp:
            raise ValueError("the central needs at least one high-power board")
        self.schema, self.gait, self.name, self.hp, self.servo = schema, gait, name, hp, servo
        first = hp[0].board
        self.period_ns = schema.cycle_ns(f"VEL_SP_{first}")  # the DBC's cycle times
        self.feedback_period_ns = schema.cycle_ns(f"FEEDBACK_{first}")
        self.silent_after = silent_after
        self.broadcasts = self.late = self.rx_faults = self.tx_faults = 0
        hp_ids = [b.board for b in hp]
        boards = [*hp_ids, *([servo.board] if servo else [])]
        self._names = {b.board: b.name for b in (*hp, *([servo] if servo else []))}
        self.servo_id = servo.board if servo else None
        self.servo_faults = {b: 0 for b in boards}
        self.announced: set[int] = set()
        self.trips = {b: 0 for b in hp_ids}
        self.limit_frames = {b: 0 for b in hp_ids}
        self.id_mismatches = 0
        self.servo_updates: int | None = None
        self.servo_status: int | None = None
        self._last_seen: dict[int, int] = {}
        self._silent = {b: False for b in boards}
        self._tripped = {b: False for b in hp_ids}
        # the slots: each velocity slot's joint (0: none), each board's first slot
        self.slot_joints = [b.joints[m] if m < len(b.joints) else 0 for b in hp
                            for m in range(SLOTS)]
        self._first_slot = {b.board: SLOTS * k for k, b in enumerate(hp)}
        servo_joints = servo.joints if servo else ()
        self.servo_frames = pre.servo_frames(len(servo_joints))
        self.servo_joints = len(servo_joints)
        # gait columns of the velocity and servo slots (joint j: the gait's (j - 1) mod 23)
        self._vel_cols = [(j - 1) % JOINTS for j in self.slot_joints]
        self._servo_cols = [(j - 1) % JOINTS for j in servo_joints] + \
            [0] * (pre.SERVO_WORDS * self.servo_frames - len(servo_joints))
        self._vel_pad = [k for k, j in enumerate(self.slot_joints) if j == 0]
        self._servo_pad = list(range(len(servo_joints), len(self._servo_cols)))
        dc = len(self.slot_joints)
        self._commanded = [0.0] * dc  # counts, at the last broadcast
        self._sent_w = [0.0] * dc  # cnt/s of the last broadcast
        self._t_sent = 0
        self._err_n = [0] * dc
        self._err_sq = [0.0] * dc
        self._err_max = [0.0] * dc
        self._feedback = {int(schema.message(f"FEEDBACK_{b}").frame_id): b for b in hp_ids}
        self._announce = {int(schema.message(f"ANNOUNCE_{b}").frame_id): b for b in boards}
        self._servo_status = int(schema.message("SERVO_STATUS").frame_id) if servo else None
        self._vel_ids = [int(schema.message(f"VEL_SP_{b}").frame_id) for b in hp_ids]
        self._servo_ids = [int(schema.message(f"SERVO_SP_{k}").frame_id)
                           for k in range(1, self.servo_frames + 1)]
        # the words' layouts and LSBs (VEL_SP: 16 cnt/s, FEEDBACK: 8 cnt, SERVO_SP: 1 mrad) from
        # the DBC's generated struct codecs, per board and per frame (their joints' words)
        self._vel = [schema.codec(f"VEL_SP_{b}") for b in hp_ids]
        self._fb = {b: schema.codec(f"FEEDBACK_{b}") for b in hp_ids}
        self._servo = [schema.codec(f"SERVO_SP_{k}") for k in range(1, self.servo_frames + 1)]
        self._status = schema.codec("SERVO_STATUS") if servo else None
        self._vel_lsb, self._fb_lsb = self._vel[0].scales[0], self._fb[first].scales[0]
        self._servo_lsb = self._servo[0].scales[0] if self._servo else 0.001
        self._send_data: Callable[[int, bytes], None] | None = None
        self._k = 0
        self._t0 = 0
        self._plan_k = 0
        no_plan = np.empty((0, dc))
        self._plans: tuple[np.ndarray, np.ndarray, np.ndarray] = (no_plan, no_plan, no_plan)
        self._rows: tuple[list, ...] = ([], [], [])  # the same chunk as lists
        # (arrival ns, joint, measured, commanded counts) per feedback position, for a plot
        self.samples: list[tuple[int, int, float, float]] | None = [] if keep_samples else None
        # what the broadcast timer calls: `broadcast`, or an engine's hook; an engine that runs
        # broadcasts itself hands the state back (`take_batch_state`) and re-arms (`arm_broadcast`)
        self.on_due: Callable[[], None] = self.broadcast

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Keep the bus and clock; the first broadcast now, the boards' silence counted from
        now."""
        self.bus, self.clock = bus, clock
        self._send_data = getattr(bus, "send_data", None)
        self._t0 = self._t_sent = clock.now_ns()
        self._last_seen = {b: self._t0 for b in self.servo_faults}
        self.arm_broadcast(self._t0)

    def arm_broadcast(self, at: int) -> None:
        """Arm the broadcast timer for `at` (ns)."""
        self.clock.call_at(at, lambda: self.on_due())

    @property
    def armed(self) -> int:
        """The number of the broadcast armed next (k: its grid instant is ``next_due``)."""
        return self._k

    def next_due(self) -> int:
        """The grid instant of the broadcast armed next (ns)."""
        return self._t0 + self._k * self.period_ns

    def on_grid(self, t: int) -> bool:
        """Whether `t` (ns) is one of the broadcast grid's instants."""
        return (t - self._t0) % self.period_ns == 0

    def commands(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """The velocity slots' set-points (cnt/s, LSB-rounded) and the servo slots' positions
        (mrad) at gait time t_s."""
        return self._setpoints(*self.gait.state(t_s))

    def _setpoints(self, omega: np.ndarray, theta: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """clip(round(omega C / LSB) LSB) and clip(round(theta / 1 mrad)) of the slots' gait
        columns (one row per instant), in place: rint is round's decimals=0, clip is
        min(max()) for finite values; the slots without a joint 0."""
        w = omega[..., self._vel_cols] * COUNTS_PER_RAD
        lsb = self._vel_lsb
        np.divide(w, lsb, out=w)
        np.rint(w, out=w)
        np.multiply(w, lsb, out=w)
        np.minimum(np.maximum(w, -32768 * lsb, out=w), 32767 * lsb, out=w)
        p = theta[..., self._servo_cols] / self._servo_lsb
        np.rint(p, out=p)
        np.minimum(np.maximum(p, -32768, out=p), 32767, out=p)
        w[..., self._vel_pad] = 0.0
        p[..., self._servo_pad] = 0.0
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
                # C order whatever the set-points' shape, so the kernel sees one array type
                self._plans = (np.ascontiguousarray(w), np.ascontiguousarray(raw_w),
                               np.ascontiguousarray(p, dtype=np.int64))
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

    def broadcast(self) -> None:
        """The broadcast timer: supervision, every VEL_SP_b and SERVO_SP_k, the next timer on
        the grid (the instants a late broadcast overran skipped)."""
        now = self.clock.now_ns()
        self._supervise(now)
        dt = now - self._t_sent
        self._commanded = [c + w * dt / 1e9 for c, w in zip(self._commanded, self._sent_w,
                                                             strict=True)]
        w, raw_w, raw_p = self._plan(self._k)
        seq = self.broadcasts % 65536
        for b, (board, can_id, codec) in enumerate(zip(self.hp, self._vel_ids, self._vel,
                                                       strict=True)):
            j = SLOTS * b
            data = codec.layout.pack(*raw_w[j:j + len(board.joints)], seq)
            send_bytes_or_count(self.bus, self._send_data, self.schema, can_id, data, self)
        for k, (can_id, codec) in enumerate(zip(self._servo_ids, self._servo, strict=True)):
            j = pre.SERVO_WORDS * k
            words = raw_p[j:min(j + pre.SERVO_WORDS, self.servo_joints)]
            send_bytes_or_count(self.bus, self._send_data, self.schema, can_id,
                                codec.layout.pack(*words), self)
        self._sent_w, self._t_sent = w, now
        self.broadcasts += 1
        self._k += 1
        behind = max(0, (now - self._t0) // self.period_ns + 1 - self._k)
        self.late += behind
        self._k += behind
        self.arm_broadcast(self.next_due())

    def _supervise(self, now: int) -> None:
        """A board whose last `silent_after` feedback deadlines passed without a frame."""
        limit = (self.silent_after + 1) * self.feedback_period_ns
        for b, seen in self._last_seen.items():
            if now - seen >= limit and not self._silent[b]:
                self._silent[b] = True
                self.servo_faults[b] += 1

    def on_message(self, msg: can.Message) -> None:
        """Feedback, servo status and announce frames; anything undecodable is counted, a remote
        frame (a request to a board's mailbox) passed over."""
        if msg.is_remote_frame:
            return
        decoded = decode_or_count(self.schema, msg, self)
        if decoded is None:
            return
        values = decoded.values
        now = self.clock.now_ns()
        can_id = msg.arbitration_id
        if can_id in self._feedback:
            b = self._feedback[can_id]
            joints = self.slot_joints[self._first_slot[b]:self._first_slot[b] + SLOTS]
            self._on_feedback(b, [float(values[f"x_{j}"]) for j in joints if j],
                              int(values[f"status_{b}"]), now)
        elif can_id == self._servo_status and self.servo_id is not None:
            self._heard(self.servo_id, now)
            self.servo_updates = int(values["updates"])
            self.servo_status = int(values["servo_status"])
        elif can_id in self._announce:
            b = self._announce[can_id]
            if all(int(word) == b for word in values.values()):
                self.announced.add(b)
            else:
                self.id_mismatches += 1

    def _heard(self, b: int, now: int) -> None:
        self._last_seen[b] = now
        self._silent[b] = False

    def byte_handlers(self) -> dict[int, Callable[[int, bytes, int], None]]:
        """FEEDBACK_b and SERVO_STATUS on raw payloads, per CAN ID (a bus of bytes)."""
        def feedback(can_id: int, data: bytes, now: int) -> None:
            b = self._feedback[can_id]
            layout = self._fb[b].layout
            if len(data) != layout.size:
                self.rx_faults += 1
                return
            *xs, status = layout.unpack(data)
            lsb = self._fb_lsb
            self._on_feedback(b, [float(x * lsb) for x in xs], status, now)

        def servo_status(can_id: int, data: bytes, now: int) -> None:
            layout = self._status.layout  # type: ignore[union-attr]  # a servo board's
            if len(data) != layout.size:
                self.rx_faults += 1
                return
            self._heard(self.servo_id, now)  # type: ignore[arg-type]
            self.servo_updates, self.servo_status = layout.unpack(data)
        handlers: dict[int, Callable[[int, bytes, int], None]] = dict.fromkeys(self._feedback,
                                                                              feedback)
        if self._servo_status is not None:
            handlers[self._servo_status] = servo_status
        return handlers

    def _on_feedback(self, b: int, xs: list[float], status: int, now: int) -> None:
        self._heard(b, now)
        tripped = bool(status & TRIP_BIT)
        self.trips[b] += tripped and not self._tripped[b]
        self._tripped[b] = tripped
        self.limit_frames[b] += bool(status & LIMIT_BIT)
        self.id_mismatches += (status >> 4) & 0xF != b
        dt = now - self._t_sent
        first = self._first_slot[b]
        for i in range(len(xs)):
            j = first + i
            commanded = self._commanded[j] + self._sent_w[j] * dt / 1e9
            err = xs[i] - commanded
            if self.samples is not None:
                self.samples.append((now, self.slot_joints[j], xs[i], commanded))
            self._err_n[j] += 1
            self._err_sq[j] += err * err
            self._err_max[j] = max(self._err_max[j], abs(err))

    def batch_state(self) -> CentralState:
        """The state a compiled period engine runs on, as new arrays (``CentralState``)."""
        supervised, hp = list(self.servo_faults), [b.board for b in self.hp]
        ints = np.array([self.id_mismatches,
                         -1 if self.servo_updates is None else self.servo_updates,
                         -1 if self.servo_status is None else self.servo_status,
                         self.broadcasts, self._k], dtype=np.int64)
        floats = np.array([self._commanded, self._sent_w, self._err_sq, self._err_max,
                           [float(x) for x in self._err_n]], dtype=float)
        return CentralState(
            ints, floats, self._t_sent,
            np.array([self._last_seen[b] for b in supervised], dtype=np.int64),
            np.array([self._silent[b] for b in supervised], dtype=np.bool_),
            np.array([self.servo_faults[b] for b in supervised], dtype=np.int64),
            np.array([self._tripped[b] for b in hp], dtype=np.bool_),
            np.array([self.trips[b] for b in hp], dtype=np.int64),
            np.array([self.limit_frames[b] for b in hp], dtype=np.int64))

    def take_batch_state(self, state: CentralState,
                         samples: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """The state after an engine ran broadcasts on this node's behalf (``batch_state``'s
        arrays, written), and the tracking samples it took (rows of arrival ns and joint, rows
        of measured and commanded counts) when the node keeps them; the next broadcast is
        the engine's to arm."""
        (self.id_mismatches, updates, status, self.broadcasts, self._k) = state.ints.tolist()
        self.servo_updates = None if updates < 0 else updates
        self.servo_status = None if status < 0 else status
        floats = state.floats
        self._commanded, self._sent_w, self._err_sq, self._err_max = \
            (row.tolist() for row in floats[:F_ERR_N])
        self._err_n = [int(x) for x in floats[F_ERR_N].tolist()]
        self._t_sent = state.sent
        for k, b in enumerate(self.servo_faults):
            self._last_seen[b] = int(state.last_seen[k])
            self._silent[b] = bool(state.silent[k])
            self.servo_faults[b] = int(state.faults[k])
        for k, board in enumerate(self.hp):
            b = board.board
            self._tripped[b] = bool(state.tripped[k])
            self.trips[b] = int(state.trips[k])
            self.limit_frames[b] = int(state.limits[k])
        if self.samples is not None and samples is not None:
            ints, floats = samples
            self.samples.extend((t, j, x, c) for (t, j), (x, c) in zip(
                ints.tolist(), floats.tolist(), strict=True))

    def tracking(self) -> dict[str, list[float | None]]:
        """Per DC joint (in slot order): RMS and max |FEEDBACK - commanded| in counts and joint
        degrees."""
        real = [k for k, j in enumerate(self.slot_joints) if j]
        rms = [math.sqrt(self._err_sq[k] / self._err_n[k]) if self._err_n[k] else None
               for k in real]
        peak = [float(self._err_max[k]) if self._err_n[k] else None for k in real]
        return {"rms_counts": rms, "max_counts": peak, "rms_deg": _degrees(rms),
                "max_deg": _degrees(peak)}

    def report(self) -> dict[str, Any]:
        """Broadcasts, faults per board, tracking per joint, announces, trips."""
        return {"broadcasts": self.broadcasts, "late_broadcasts": self.late,
                "tx_faults": self.tx_faults, "rx_faults": self.rx_faults,
                "servo_faults": {self._names[b]: n for b, n in self.servo_faults.items()},
                "boards_announced": sorted(self.announced),
                "trips_seen": {self._names[b]: n for b, n in self.trips.items()},
                "current_limit_frames": {self._names[b]: n for b, n in self.limit_frames.items()},
                "board_id_mismatches": self.id_mismatches,
                "servo_board": {"updates_mod_256": self.servo_updates,
                                "status": self.servo_status},
                "tracking": self.tracking()}
