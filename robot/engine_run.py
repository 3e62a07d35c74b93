"""A time-triggered robot described to the period engine (``bus.period_engine``).

The nodes are the reference path's own objects (TickNode, BoardNode, HostNode on the same
Environment), so their timers, supervision, PID and operator commands are the same code; only
the medium differs.  What runs per frame is a handler on bytes:

    TICK         boards: advance the bank to the end of frame once, firmware can_tick per board,
                 each queues its MEAS; host: its tick handler (one can.Message per period)
    MEAS_j       host: the position, straight into ``HostNode.measurement`` when it is idle
    ACTUATION_k  boards of group k (``Schema.layout``): ``rig.actuate`` (RAM write, applied at
                 the next tick)
    POSREF_k     boards of group k: ``board.can_posref``
    COMMAND, STATUS_j, ANNOUNCE_j   the nodes' own ``on_message`` (rare)
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import can

from servobus.bus.codec_fast import FastCodec
from servobus.bus.frame_fast import stuffed_length
from servobus.bus.period_engine import Handler, LeanBus, rx_message
from servobus.bus.schema import TICK, actuation_name, meas_name
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant.board_node import tick_all

if TYPE_CHECKING:
    from servobus.robot.assembly import Robot

CHANNEL = "servobus0"
DECODED_CACHE = 4096


class NodeBus:
    """What a Python node sends through on the engine: its frames go to the LeanBus as bytes."""

    state = can.BusState.ACTIVE

    def __init__(self, lean: LeanBus, sender: int) -> None:
        self.lean, self.sender = lean, sender

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        """Queue the frame (CanOperationError when the node's queue is full)."""
        self.lean.send(self.sender, msg.arbitration_id, bytes(msg.data))

    def send_data(self, can_id: int, data: bytes) -> None:
        """Queue a frame given as bytes (no can.Message on the hot path)."""
        self.lean.send(self.sender, can_id, data)

    def set_filters(self, filters: Any = None) -> None:
        """The engine's handler tables are the acceptance filters."""


def python_handler(node: Any) -> Handler:
    """A handler that hands a node the can.Message (rare frames)."""
    return lambda can_id, data, now: node.on_message(rx_message(can_id, data, now, CHANNEL))


def wire(robot: "Robot") -> LeanBus:
    """Put the robot's time trigger, boards and host on a LeanBus and start them."""
    schema, bank, host, boards = robot.schema, robot.bank, robot.host, robot.boards
    lean = LeanBus(robot.env, schema.bitrate)
    tick_id = int(schema.message(TICK).frame_id)
    meas_bytes = robot.meas_bytes
    by_joint = {b.joint: b for b in boards}
    first_of = {group[0]: (k, group) for k, group in enumerate(schema.layout.groups, start=1)}
    names = [meas_name(b.joint, meas_bytes) for b in boards]
    meas_ids = [int(schema.message(n).frame_id) for n in names]
    meas_codecs = [schema.codec(n) for n in names]
    senders: list[int] = []

    rams, roms = bank.rams, bank.roms
    cached: list[dict[int, tuple[bytes, int]]] = [{} for _ in boards]  # position -> frame

    def on_tick(can_id: int, data: bytes, now: int) -> None:
        bank.advance_to(now)  # simulated time: the engine runs only in a lockstep run
        tick_all(rams, roms)
        positions = rams[:, m.POS_TX].tolist()
        for k, node in enumerate(boards):
            position = positions[k]
            if meas_bytes == 2:
                frame = cached[k].get(position)
                if frame is None:
                    payload = meas_codecs[k].encode({f"position_{node.joint}": position})
                    bits = stuffed_length(meas_ids[k], payload, False)
                    frame = cached[k][position] = (payload, bits)
                lean.send(senders[k], meas_ids[k], *frame)
                continue
            lean.send(senders[k], *schema.encode_data(*node.measurement()))

    def board_handlers(node: Any) -> dict[int, Handler]:
        handlers: dict[int, Handler] = {
            int(schema.message("COMMAND").frame_id): python_handler(node)}
        if node is boards[0]:
            handlers[tick_id] = on_tick
        if node.joint in first_of:  # the group's first board serves the group's boards
            group, joints = first_of[node.joint]
            members = [by_joint[j] for j in joints]
            for name, handler in ((actuation_name(group), _actuation),
                                  (f"POSREF_{group}", _posref)):
                handlers[int(schema.message(name).frame_id)] = handler(
                    schema.codec(name), members)
        return handlers

    lean.attach(robot.tick.name, {})
    senders.extend(lean.attach(b.name, board_handlers(b)) for b in boards)
    host_handlers: dict[int, Handler] = {int(msg.frame_id): python_handler(host)
                                         for msg in schema.db.messages}
    for j, (can_id, codec) in enumerate(zip(meas_ids, meas_codecs, strict=True), start=1):
        host_handlers[can_id] = _measurement(host, j, codec)
    lean.attach(host.name, host_handlers)
    nodes: list[Any] = [robot.tick, *boards, host]
    for k, node in enumerate(nodes):
        node.start(NodeBus(lean, k), robot.env)
    lean.charges.append(robot.meter.charge)
    return lean


def _actuation(codec: FastCodec, members: list[Any]) -> Handler:
    """ACTUATION_k to its boards (decoded once): each keeps its i_w until the next tick."""
    signals = [(b.rig, f"iw_{b.joint}") for b in members]

    def handler(can_id: int, data: bytes, now: int) -> None:
        values = codec.decode(data)
        for rig, name in signals:
            rig.actuate(values[name])
    return handler


def _posref(codec: FastCodec, members: list[Any]) -> Handler:
    """POSREF_k to its boards: local-P position references."""
    signals = [(b.rig.ram, f"xw_{b.joint}") for b in members]

    def handler(can_id: int, data: bytes, now: int) -> None:
        values = codec.decode(data)
        for ram, name in signals:
            board.can_posref(ram, int(values[name]))
    return handler


def _measurement(host: Any, j: int, codec: FastCodec) -> Handler:
    """MEAS_j to the host: the position straight in when the host is idle (payloads repeat:
    decoded once)."""
    name = f"position_{j}"
    positions: dict[bytes, float] = {}

    def handler(can_id: int, data: bytes, now: int) -> None:
        if host.idle(now):
            position = positions.get(data)
            if position is None:
                if len(positions) > DECODED_CACHE:
                    positions.clear()
                position = positions[data] = float(codec.decode(data)[name])
            host.measurement(j, position, now)
        else:
            host.on_message(rx_message(can_id, data, now, CHANNEL))
    return handler


def log_tap(writer: can.Listener) -> Callable[[int, int, int, int, bytes, int], None]:
    """A tap writing every delivered frame as the reference recorder does."""

    def tap(start: int, end: int, busy: int, can_id: int, data: bytes, sender: int) -> None:
        writer.on_message_received(rx_message(can_id, data, end, CHANNEL))
    return tap
