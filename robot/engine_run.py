"""The SPEJBL robot described to the period engine (``bus.period_engine``).

The nodes are the reference path's own objects (TickNode, BoardNode, HostNode on the same
Environment), so their timers, supervision, PID and operator commands are the same code; only
the medium differs.  What runs per frame is a handler on bytes:

    TICK         boards: advance the bank to the end of frame once, firmware can_tick per board,
                 each queues its MEAS; host: its tick handler (one can.Message per period)
    MEAS_j       host: the position, straight into ``HostNode.measurement`` when it is idle
    ACTUATION_k  boards of group k: ``rig.actuate`` (RAM write, applied at the next tick)
    POSREF_k     boards of group k: ``board.can_posref``
    COMMAND, STATUS_j, ANNOUNCE_j   the nodes' own ``on_message`` (rare)
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import can

from servobus.bus.codec_fast import FastCodec, generate
from servobus.bus.period_engine import Handler, LeanBus, rx_message
from servobus.bus.scheduler import NS_PER_S
from servobus.bus.schema import TICK, Schema, actuation_name, meas_name
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant.board_node import can_tick_fast

if TYPE_CHECKING:
    from servobus.robot.assembly import Robot

CHANNEL = "servobus0"


class NodeBus:
    """What a Python node sends through on the engine: its frames go to the LeanBus as bytes."""

    state = can.BusState.ACTIVE

    def __init__(self, lean: LeanBus, sender: int) -> None:
        self.lean, self.sender = lean, sender

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        """Queue the frame (CanOperationError when the node's queue is full)."""
        self.lean.send(self.sender, msg.arbitration_id, bytes(msg.data))

    def set_filters(self, filters: Any = None) -> None:
        """The engine's handler tables are the acceptance filters."""


def _codec(schema: Schema, name: str) -> FastCodec:
    codec = generate(schema.message(name))
    if codec is None:
        raise ValueError(f"{name}: the engine needs a byte-aligned layout")
    return codec


def _python(node: Any) -> Handler:
    """A handler that hands a node the can.Message (rare frames)."""
    return lambda can_id, data, now: node.on_message(rx_message(can_id, data, now, CHANNEL))


def wire(robot: "Robot") -> LeanBus:
    """Put the robot's time trigger, boards and host on a LeanBus and start them."""
    schema, bank, host, boards = robot.schema, robot.bank, robot.host, robot.boards
    lean = LeanBus(robot.env, schema.bitrate)
    tick_id = int(schema.message(TICK).frame_id)
    meas_bytes = robot.config.meas_bytes
    names = [meas_name(b.joint, meas_bytes) for b in boards]
    meas_ids = [int(schema.message(n).frame_id) for n in names]
    meas_codecs = [_codec(schema, n) for n in names]
    senders: list[int] = []

    def on_tick(can_id: int, data: bytes, now: int) -> None:
        bank.advance_to(now) if bank.max_step_ns is None else bank.follow(now, bank.max_step_ns)
        for k, node in enumerate(boards):
            rig = node.rig
            ram = rig.ram
            can_tick_fast(ram, rig.rom)
            j = node.joint
            values: dict[str, float] = {f"position_{j}": int(ram[m.POS_TX])}
            if meas_bytes == 6:
                values[f"supply_{j}"] = rig.servo.supply_v
                values[f"current_{j}"] = max(min(float(rig.amps(int(ram[m.PI_MEAS]))), 7.99),
                                             -8)
            lean.send(senders[k], meas_ids[k], meas_codecs[k].encode(values))

    def board_handlers(node: Any) -> dict[int, Handler]:
        group = (node.joint - 1) // 4 + 1
        act, pos = actuation_name(group), f"POSREF_{group}"
        act_codec, pos_codec = _codec(schema, act), _codec(schema, pos)
        iw, xw, ram = f"iw_{node.joint}", f"xw_{node.joint}", node.rig.ram
        handlers: dict[int, Handler] = {
            int(schema.message(act).frame_id):
                lambda i, data, now: node.rig.actuate(act_codec.decode(data)[iw]),
            int(schema.message(pos).frame_id):
                lambda i, data, now: board.can_posref(ram, int(pos_codec.decode(data)[xw])),
            int(schema.message("COMMAND").frame_id): _python(node)}
        if node is boards[0]:
            handlers[tick_id] = on_tick
        else:
            handlers[tick_id] = lambda i, data, now: None
        return handlers

    lean.attach(robot.tick.name, {})
    senders.extend(lean.attach(b.name, board_handlers(b)) for b in boards)
    host_handlers: dict[int, Handler] = {int(msg.frame_id): _python(host)
                                         for msg in schema.db.messages}
    for j, (can_id, codec) in enumerate(zip(meas_ids, meas_codecs, strict=True), start=1):
        host_handlers[can_id] = _measurement(host, j, codec)
    lean.attach(host.name, host_handlers)
    for k, node in enumerate([robot.tick, *boards, host]):
        node.start(NodeBus(lean, k), robot.env)
    lean.taps.append(_meter_tap(robot))
    return lean


def _measurement(host: Any, j: int, codec: FastCodec) -> Handler:
    position = f"position_{j}"

    def handler(can_id: int, data: bytes, now: int) -> None:
        if host.idle(now):
            host.measurement(j, float(codec.decode(data)[position]), now)
        else:
            host.on_message(rx_message(can_id, data, now, CHANNEL))
    return handler


def _meter_tap(robot: "Robot") -> Callable[[int, int, int, int, bytes, int], None]:
    meter, bitrate = robot.meter, robot.schema.bitrate

    def tap(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        meter.charge(start, busy, (busy - start) * bitrate // NS_PER_S, True)
    return tap


def log_tap(writer: can.Listener) -> Callable[[int, int, int, int, bytes, int], None]:
    """A tap writing every delivered frame as the reference recorder does."""

    def tap(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        writer.on_message_received(rx_message(can_id, data, end, CHANNEL))
    return tap
