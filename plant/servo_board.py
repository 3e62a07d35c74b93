"""GuRoo's RC servo board as a CAN node: the firmware's receive interrupt and its servo models
(1..8: GuRoo's board drives 8, joints 16..23; SERVO_SP_k carries servos 4k-3..4k, the last frame
only the servos the board has).

    boot          ANNOUNCE_b (payload: the DIP-switch ID b; GuRoo's: 6)
    SERVO_SP_k    advance the servos to now; firmware can_setpoints: each changed word updates
                  its servo's pulse width (counted)
    every 4 ms    SERVO_STATUS: updates mod 256, status byte (bit i-1: servo i's set-point clamped)

The servo models advance lazily to ``clock.now_ns()`` whenever a frame or timer needs them, so
the same code runs in the lockstep simulator and on a real bus.  The acceptance filter admits
the two set-point frames only (``filter_bus=False``: the caller filters); a frame that does
not decode is counted in ``rx_faults``, a refused send in ``tx_faults``.  ``seed`` draws the
servos' power-up angles (within +-20 mrad of zero: where the arms were left), deterministically.

On a bus that takes bytes (the period engine's NodeBus: ``send_data``), ``byte_handlers`` gives
the receive interrupt on the raw payload (the words are the raw signal values: ``p * 1000``
rounds back to them exactly) and the node sends its status as bytes; same frames, same state.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import can
import numpy as np
from can.typechecking import CanFilter

from servobus.bus.node import Clock, decode_or_count, send_bytes_or_count, send_or_count
from servobus.bus.schema import Schema
from servobus.firmware import servo_board as fw
from servobus.plant.rc_servo import RCServoBank
from servobus.presets import guroo as preset

POWER_UP_SPREAD_RAD = 0.020
# the report's angles in rad to 6 decimals: 1 urad, 1/1000 of a set-point LSB (a held servo's
# PD decays geometrically towards its reference and never reaches it: 1e-143 rad reads 0)
REPORT_DECIMALS = 6
# ``ServoState.ints``: the firmware's updates counter and status byte, SERVO_SP frames handled,
# the node's update count, the servo models' clock (ns), the number of the status armed next
S_UPDATES, S_STATUS, S_FRAMES, S_NODE_UPDATES, S_T, S_K = range(6)


@dataclass
class ServoState:
    """The servo board's state as arrays (``ServoBoardNode.batch_state``), for a compiled
    engine to read and write in place and hand back (``ServoBoardNode.take_batch_state``); the
    models' arrays are the bank's own."""

    theta: np.ndarray
    omega: np.ndarray
    ref: np.ndarray
    max_error: np.ndarray
    step_ns: int  # the models' integration step
    constants: np.ndarray  # the models' constants (``RCServoBank.constants``)
    words: np.ndarray  # the firmware's set-point words
    pulses: np.ndarray  # the firmware's pulse widths (us)
    ints: np.ndarray  # S_*
    status_t0: int  # the status grid's origin (boot, ns)
    status_ns: int  # the status period

    def arrays(self) -> tuple[Any, ...]:
        """The fields in their order, as the compiled call takes them."""
        return (self.theta, self.omega, self.ref, self.max_error, self.step_ns, self.constants,
                self.words, self.pulses, self.ints, self.status_t0, self.status_ns)


class ServoBoardNode:
    """The RC servo board (`shape`: its name, DIP-switch ID and joints; GuRoo's by default) on
    a CAN bus."""

    def __init__(self, schema: Schema, *, shape: preset.Board = preset.SERVO_SHAPE,
                 seed: int = 0, filter_bus: bool = True) -> None:
        if not 1 <= len(shape.joints) <= fw.SERVOS:
            raise ValueError(f"a servo board drives 1..{fw.SERVOS} servos, not "
                             f"{len(shape.joints)}")
        self.schema, self.seed, self.filter_bus = schema, seed, filter_bus
        self.name, self.board_id, self.joints = shape.name, shape.board, shape.joints
        self.status_period_ns = schema.cycle_ns("SERVO_STATUS")
        self.ram = fw.ServoBoardRam()
        self.updates = 0  # every changed word (the firmware's counter wraps at 16 bits)
        self.frames = 0
        self.rx_faults = self.tx_faults = 0
        rng = random.Random(seed)
        n = len(self.joints)
        self.servos = RCServoBank(n, theta0=np.array([
            rng.uniform(-POWER_UP_SPREAD_RAD, POWER_UP_SPREAD_RAD) for _ in range(n)]))
        frames = range(1, fw.servo_frames(n) + 1)
        self._frames = {int(schema.message(f"SERVO_SP_{k}").frame_id): k for k in frames}
        self.filters: list[CanFilter] = [
            {"can_id": i, "can_mask": 0x7FF, "extended": False} for i in self._frames]
        self._status_id = int(schema.message("SERVO_STATUS").frame_id)
        # SERVO_STATUS's two bytes (SERVO_SP_k's int16 words, 1 mrad: byte_handlers): the
        # DBC's codecs
        self._status_bytes = schema.codec("SERVO_STATUS").layout
        self._send_data: Callable[[int, bytes], None] | None = None

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Boot: acceptance filter, announce, status timer; the servos start at now."""
        self.bus, self.clock = bus, clock
        self._send_data = getattr(bus, "send_data", None)
        self.servos.t_ns = clock.now_ns()
        if self.filter_bus:
            bus.set_filters(self.filters)
        send_or_count(bus, self.schema.encode(f"ANNOUNCE_{self.board_id}",
                                              {f"board_{self.board_id}": self.board_id}), self)
        self._status_t0, self._status_k = clock.now_ns(), 1
        self.arm_status(self.next_status_due())

    def arm_status(self, at: int) -> None:
        """Arm the status timer for `at` (ns)."""
        self.clock.call_at(at, self.send_status)

    def next_status_due(self) -> int:
        """The grid instant of the status armed next (ns)."""
        return self._status_t0 + self._status_k * self.status_period_ns

    def on_message(self, msg: can.Message) -> None:
        """The CAN receive interrupt: set-point words to pulse widths."""
        frame = self._frames.get(msg.arbitration_id)
        if frame is None:
            return
        decoded = decode_or_count(self.schema, msg, self)
        if decoded is None:
            return
        values = decoded.values
        first = fw.WORDS_PER_FRAME * (frame - 1)
        self._setpoints(frame, [round(values[f"p_{j}"] * 1000) for j in
                                self.joints[first:first + fw.WORDS_PER_FRAME]])

    def byte_handlers(self) -> dict[int, Callable[[int, bytes, int], None]]:
        """The receive interrupt on raw payloads, per accepted CAN ID (a bus of bytes)."""
        layouts = {i: self.schema.codec(f"SERVO_SP_{k}").layout for i, k in self._frames.items()}

        def handler(can_id: int, data: bytes, now: int) -> None:
            layout = layouts[can_id]
            if len(data) != layout.size:
                self.rx_faults += 1
                return
            self._setpoints(self._frames[can_id], list(layout.unpack(data)))
        return dict.fromkeys(self._frames, handler)

    def _setpoints(self, frame: int, words: list[int]) -> None:
        """Set-point words of SERVO_SP_<frame> to pulse widths (the servos advanced to now)."""
        self.servos.advance_to(self.clock.now_ns())
        self.frames += 1
        self.updates += fw.can_setpoints(self.ram, frame, words)
        for i in range(len(words)):
            k = 4 * (frame - 1) + i
            self.servos.set_pulse(k, self.ram.pulse_us[k])

    def send_status(self) -> None:
        """The status timer: SERVO_STATUS (the servos advanced to now), the next on the grid."""
        self.servos.advance_to(self.clock.now_ns())
        updates, status = self.ram.updates & 0xFF, self.ram.status
        send_bytes_or_count(self.bus, self._send_data, self.schema, self._status_id,
                            self._status_bytes.pack(updates, status), self)
        self._status_k += 1  # an absolute grid from boot: a late status shifts no later one
        self.arm_status(self.next_status_due())

    def batch_state(self) -> ServoState:
        """The state a compiled period engine runs on (``ServoState``: the models' arrays in
        place, the rest as new arrays)."""
        bank, ram = self.servos, self.ram
        ints = np.array([ram.updates, ram.status, self.frames, self.updates, bank.t_ns,
                         self._status_k], dtype=np.int64)
        return ServoState(bank.theta, bank.omega, bank.ref, bank.max_error, bank.step_ns,
                          bank.constants, np.array(ram.words, dtype=np.int64),
                          np.array(ram.pulse_us, dtype=np.int64), ints, self._status_t0,
                          self.status_period_ns)

    def take_batch_state(self, state: ServoState) -> None:
        """The state after an engine ran this board's frames and timers (``batch_state``'s
        arrays, written); the next status is the engine's to arm."""
        ram, bank = self.ram, self.servos
        ram.words, ram.pulse_us = state.words.tolist(), state.pulses.tolist()
        ram.updates, ram.status, self.frames, self.updates, bank.t_ns, self._status_k = \
            state.ints.tolist()

    def report(self) -> dict[str, Any]:
        """Updates, frames, positions (rad) and the largest tracking error seen (rad), the
        angles to 1 urad (`REPORT_DECIMALS`)."""
        self.servos.advance_to(self.clock.now_ns())
        return {"updates": self.updates, "frames": self.frames, "rx_faults": self.rx_faults,
                "tx_faults": self.tx_faults,
                "positions_rad": [_rad(x) for x in self.servos.theta],
                "pulse_us": self.ram.pulse_us[:len(self.joints)],
                "max_tracking_error_rad": _rad(self.servos.max_error.max())}


def _rad(value: float) -> float:
    """An angle to `REPORT_DECIMALS` (a -0.0 read as 0.0)."""
    return round(float(value), REPORT_DECIMALS) + 0.0
