"""An emulated servo board as a CAN node: the firmware's CAN interrupts on the schema's frames.

    TICK         advance the board to now; firmware latches the position; send MEAS_j (MEAS6_j)
    ACTUATION_k  firmware keeps i_w as pending (applied at the next tick)
    POSREF_k     local-P mode position reference x_w
    COMMAND      release (float) / engage / freeze / set_mode / clear_faults, joint j or all (0)
    every 100 ms STATUS_j with mode, latched faults, CAN error state, TEC, REC; ANNOUNCE_j at boot

The board's acceptance filter admits only these frames (``filter_bus=False``: the caller sets
one filter for several boards sharing a bus).  A tick brings the whole bank up to now once
(``BoardBank.sync``): exactly in simulated time; on a real bus (the bank's ``max_step_ns``) the
boards idle until the first tick and never simulate more than that span at a tick.  A frame that
does not decode is counted (``rx_faults``), never raised.

On the period engine's bus (bytes) the board takes its hot frames through ``byte_handlers``: the
same firmware calls on raw payloads, decoded once per distinct payload.
"""

from collections.abc import Callable
from dataclasses import dataclass

import can
import numpy as np
from can.typechecking import CanFilter

from servobus.bus.codec_fast import signal_reader
from servobus.bus.node import Clock, send_or_count
from servobus.bus.period_engine import Handler
from servobus.bus.schema import (
    CAN_STATE_NAMES,
    COMMAND_NAMES,
    TICK,
    Schema,
    SchemaError,
    actuation_name,
    meas_name,
    posref_name,
)
from servobus.firmware import board, protection
from servobus.firmware import memory as m
from servobus.plant.board_bank import BoardBank
from servobus.plant.kernel_cache import cached_njit

STATUS_PERIOD_NS = 100_000_000
can_tick_fast = cached_njit(board.can_tick)  # the same handler, compiled


def tick_all_boards(rams: np.ndarray, roms: np.ndarray) -> None:
    """Every board's CAN tick interrupt (firmware can_tick), one compiled call (the period
    engine: the boards of a bank hear one tick)."""
    for k in range(rams.shape[0]):
        can_tick_fast(rams[k], roms[k])


tick_all = cached_njit(tick_all_boards)
CAN_STATES = {state: CAN_STATE_NAMES.index(name) for state, name in (
    (can.BusState.ACTIVE, "error_active"), (can.BusState.PASSIVE, "error_passive"),
    (can.BusState.ERROR, "bus_off"))}
FIRMWARE_VERSION = 0x0100


@dataclass
class BoardNode:
    """Joint `joint` (1..N, the DBC's) of a BoardBank on a CAN bus."""

    bank: BoardBank
    index: int
    schema: Schema
    meas_bytes: int = 2
    engage_mode: int = m.MODE_CURRENT
    rx_faults: int = 0
    tx_faults: int = 0
    unique_id: int = 0
    joint: int = 0  # 0: index + 1
    filter_bus: bool = True
    name: str = ""  # its DBC node name; "": JOINT_<joint>

    def __post_init__(self) -> None:
        self.joint = self.joint or self.index + 1
        self.name = self.name or f"JOINT_{self.joint}"
        # what the STATUS timer calls: `send_status` unless an engine takes it over
        self.on_status_due: Callable[[], None] = self.send_status
        self.rig = self.bank.rigs[self.index]
        group, _ = self.schema.layout.group_of(self.joint)
        self._act_name, self._posref_name = actuation_name(group), posref_name(group)
        ids = {name: int(self.schema.message(name).frame_id) for name in
               (TICK, self._act_name, self._posref_name, "COMMAND")}
        self._tick, self._act, self._posref, self._cmd = ids.values()
        self._meas = meas_name(self.joint, self.meas_bytes)
        self._position = f"position_{self.joint}"
        self.filters: list[CanFilter] = [
            {"can_id": i, "can_mask": 0x7FF, "extended": False} for i in ids.values()]

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Boot: acceptance filter, announce, status timer."""
        self.bus, self.clock = bus, clock
        if self.filter_bus:
            bus.set_filters(self.filters)
        send_or_count(bus, self.schema.encode(f"ANNOUNCE_{self.joint}", {
            f"unique_id_{self.joint}": self.unique_id or 0x5E000000 + self.joint,
            f"fw_version_{self.joint}": FIRMWARE_VERSION,
            f"board_mode_{self.joint}": int(self.rig.ram[m.MODE]),
            f"sensing_{self.joint}": int(self.rig.rom[m.SIGNED_SENSE])}), self)
        self.arm_status(clock.now_ns() + STATUS_PERIOD_NS)

    def arm_status(self, at: int) -> None:
        """Arm the STATUS timer for `at` (ns)."""
        self.clock.call_at(at, lambda: self.on_status_due())

    def byte_handlers(self) -> dict[int, Handler]:
        """The frames it takes as bytes on a bus that hands them so (the period engine): TICK
        (the bank brought to now once, the firmware's tick, its MEAS queued; a 2-byte MEAS kept
        per position), its group's ACTUATION and POSREF (decoded)."""
        ram, rom, bank = self.rig.ram, self.rig.rom, self.bank
        meas_id = int(self.schema.message(self._meas).frame_id)
        codec = self.schema.codec(self._meas)
        payloads: dict[int, bytes] = {}  # position -> MEAS payload

        def on_tick(can_id: int, data: bytes, now: int) -> None:
            bank.advance_to(now)  # once per tick: the other boards' calls find it done
            can_tick_fast(ram, rom)
            send = self.bus.send_data  # type: ignore[attr-defined]  # a bus of bytes, started
            # after its handlers are taken
            if self.meas_bytes != 2:
                send(*self.schema.encode_data(*self.measurement()))
                return
            position = int(ram[m.POS_TX])
            payload = payloads.get(position)
            if payload is None:
                payload = payloads[position] = codec.encode({self._position: position})
            send(meas_id, payload)

        amps = signal_reader(self.schema.codec(self._act_name), f"iw_{self.joint}", float)
        refs = signal_reader(self.schema.codec(self._posref_name), f"xw_{self.joint}", int)

        def on_actuation(can_id: int, data: bytes, now: int) -> None:
            self.rig.actuate(amps(data))

        def on_posref(can_id: int, data: bytes, now: int) -> None:
            board.can_posref(ram, refs(data))

        return {self._tick: on_tick, self._act: on_actuation, self._posref: on_posref}

    def on_message(self, msg: can.Message) -> None:
        """Run the firmware's CAN handler for an accepted frame."""
        ram = self.rig.ram
        try:
            if msg.arbitration_id == self._tick:
                self.schema.check(msg)
                self.bank.sync(self.clock.now_ns(), msg)
                can_tick_fast(ram, self.rig.rom)
                self._send_measurement()
                return
            v = self.schema.decode(msg).values
        except SchemaError:
            self.rx_faults += 1
            return
        if msg.arbitration_id == self._act:
            self.rig.actuate(v[f"iw_{self.joint}"])
        elif msg.arbitration_id == self._posref:
            board.can_posref(ram, int(v[f"xw_{self.joint}"]))
        elif msg.arbitration_id == self._cmd and int(v["joint"]) in (0, self.joint):
            self._command(int(v["command"]), int(v["mode"]))

    def _command(self, command: int, mode: int) -> None:
        """COMMAND; set_mode's value is the firmware's MODE_* (the DBC's one mode enum)."""
        ram = self.rig.ram
        verb = COMMAND_NAMES[command] if 0 <= command < len(COMMAND_NAMES) else None
        if verb == "release":
            board.set_mode(ram, m.MODE_FLOAT)
        elif verb in ("engage", "freeze"):  # freeze: the host sets x_w := x, then engages
            board.set_mode(ram, self.engage_mode)
        elif verb == "set_mode" and 0 <= mode < len(m.MODE_NAMES):
            self.engage_mode = mode
            board.set_mode(ram, mode)
        elif verb == "clear_faults":
            protection.clear_faults(ram)
        else:
            self.rx_faults += 1

    def report(self) -> dict[str, float | int]:
        """Frames it could not read or send, its PWM periods and the time its bank has not
        simulated (before the first tick, beyond one tick period per tick on a real bus)."""
        return {"rx_faults": self.rx_faults, "tx_faults": self.tx_faults,
                "pwm_periods": int(self.bank.done[self.index]),
                "skipped_s": self.bank.skipped_ns / 1e9}

    def measurement(self) -> tuple[str, dict[str, float]]:
        """The MEAS frame the firmware sends at a tick: its name and values."""
        j, ram = self.joint, self.rig.ram
        values: dict[str, float] = {self._position: int(ram[m.POS_TX])}
        if self.meas_bytes == 6:
            values[f"supply_{j}"] = self.rig.servo.supply_v
            values[f"current_{j}"] = max(min(float(self.rig.amps(int(ram[m.PI_MEAS]))), 7.99), -8)
        return self._meas, values

    def _send_measurement(self) -> None:
        send_or_count(self.bus, self.schema.encode(*self.measurement()), self)

    def send_status(self) -> None:
        """STATUS_j from RAM and the controller's error state; the next one 100 ms later."""
        j, ram = self.joint, self.rig.ram
        ctrl = getattr(self.bus, "controller", None)
        send_or_count(self.bus, self.schema.encode(f"STATUS_{j}", {
            f"mode_{j}": int(ram[m.MODE]),
            f"over_current_{j}": int(ram[m.STATUS] & m.STATUS_OVER_CURRENT != 0),
            f"over_temperature_{j}": int(ram[m.STATUS] & m.STATUS_OVER_TEMPERATURE != 0),
            f"watchdog_{j}": int(board.actuation_timed_out(ram)),
            f"can_state_{j}": CAN_STATES.get(self.bus.state, 0),
            f"tec_{j}": min(ctrl.tec, 255) if ctrl else 0,
            f"rec_{j}": min(ctrl.rec, 255) if ctrl else 0}), self)
        self.arm_status(self.clock.now_ns() + STATUS_PERIOD_NS)
