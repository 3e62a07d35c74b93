"""A description checked against its DBC, and the summary `servobus robot check` prints.

Checked, each failure a RobotFileError naming the description, the key path and the problem:
the DBC loads (the schema refuses IDs given twice); every node is a DBC node (BU_) and
every message its kind sends (robot.node_kinds) is in the DBC with that node as a sender; each
board hears its joint's actuation group (time-triggered); each message of a cyclic robot's nodes
(a high-power board's mailbox-2 reply MBX2_b too) is there and carries their words in order;
the bit rates are the DBC's Baudrate and BaudrateCANFD; the period is the DBC's shortest cycle
time (the TICK's, time-triggered) and divides every other; the frames of one period (worst-case
stuffing: Davis 2007, or the CAN FD bound, on the bus's bit timing) fit in it.
"""

from typing import Any

import cantools

from servobus.bus.dbc_generate_cyclic import ANNOUNCE_WORDS, MBX2_WORDS
from servobus.bus.schema import (
    DATA_BITRATE_ATTRIBUTE,
    Schema,
    SchemaError,
    actuation_name,
    posref_name,
)
from servobus.firmware.servo_board import WORDS_PER_FRAME
from servobus.robot.file_keys import RobotFileError
from servobus.robot.node_kinds import MEAS_MESSAGE, heard_by, sent_by
from servobus.robot.robot_file import RobotFile, load

NS_PER_MS = 1_000_000


def schema(robot: RobotFile) -> Schema:
    """The robot's DBC, loaded (RobotFileError: missing or not a DBC)."""
    if not robot.dbc.is_file():
        raise RobotFileError(f"{robot.path}: bus.dbc: {robot.dbc}: no such file (a shipped "
                             "name: servobus.dbc, guroo.dbc; or generate it: servobus robot "
                             f"dbc {robot.path} --out {robot.dbc})")
    try:
        return Schema(robot.dbc, required=())
    except SchemaError as err:
        raise RobotFileError(f"{robot.path}: bus.dbc: {err}") from err


def cyclic_messages(robot: RobotFile, db: cantools.database.can.Database
                    ) -> list[cantools.database.Message]:
    """The DBC's messages with a cycle time, the other measurement variant left out."""
    other = MEAS_MESSAGE[6 if robot.meas_bytes == 2 else 2].partition("{")[0]
    return [m for m in db.messages if m.cycle_time and not
            (robot.schedule == "time-triggered" and m.name.startswith(other))]


def checked(robot: str | RobotFile) -> RobotFile:
    """A description (a shipped name, a path, or one loaded), checked against its DBC."""
    loaded = robot if isinstance(robot, RobotFile) else load(robot)
    check(loaded)
    return loaded


def check(robot: RobotFile) -> dict[str, Any]:
    """Check `robot` against its DBC; the summary (`servobus robot check --json`)."""
    loaded = schema(robot)
    db = loaded.db
    _senders(robot, db)
    _receivers(robot, db)
    if robot.schedule == "time-triggered":
        _groups_heard(robot, db)
        _groups_framed(robot, loaded)
    else:
        _cyclic_layout(robot, db)
    _bitrate(robot, loaded)
    cyclic = cyclic_messages(robot, db)
    _period(robot, db, cyclic)
    timing = loaded.bit_timing
    per_period = [m for m in cyclic if _cycle(m) * NS_PER_MS == robot.period_ns]
    used_ns = sum(loaded.worst_case_ns(m.name) for m in per_period)
    if used_ns > robot.period_ns:
        raise RobotFileError(f"{robot.path}: period: one period's {len(per_period)} frames take "
                             f"{used_ns / 1e6:g} ms at {timing.describe()} (worst-case "
                             f"stuffing), more than the period of {robot.period_ns / 1e6:g} ms")
    load = sum(loaded.worst_case_ns(m.name) / (_cycle(m) * NS_PER_MS) for m in cyclic)
    kinds: dict[str, list[str]] = {}
    for node in robot.nodes:
        kinds.setdefault(node.kind, []).append(node.name)
    return {"name": robot.name, "title": robot.title, "file": str(robot.path),
            "schedule": robot.schedule, "joints": len(robot.joints),
            "nodes": kinds, "dbc": str(robot.dbc), "period_s": robot.period_ns / 1e9,
            "bitrate": robot.bitrate, "data_bitrate": robot.data_bitrate,
            "bit_timing": timing.describe(), "frames_per_period": len(per_period),
            "period_used_pct": 100.0 * used_ns / robot.period_ns,
            "bus_load_predicted_pct": 100.0 * load,
            "load_model": "worst-case stuffing (Davis 2007; CAN FD frames: the FD bound), "
                          "every cyclic message"}


def _cycle(m: cantools.database.Message) -> int:
    """A message's GenMsgCycleTime in ms (0: none)."""
    return int(m.cycle_time or 0)


def _senders(robot: RobotFile, db: cantools.database.can.Database) -> None:
    """Every node is a DBC node, and the DBC has every message it sends with it as sender."""
    bu = {n.name for n in db.nodes}
    by_name = {m.name: m for m in db.messages}
    for k, node in enumerate(robot.nodes):
        if node.name not in bu:
            raise RobotFileError(f"{robot.path}: {robot.where(k)}.name: {robot.dbc.name} has "
                                 f"no node {node.name} (its nodes: {', '.join(sorted(bu))})")
        for name in sent_by(node, robot.nodes, len(robot.groups), robot.meas_bytes):
            if name not in by_name:
                raise RobotFileError(f"{robot.path}: {robot.where(k)}: a {node.kind} sends "
                                     f"{name}, which {robot.dbc.name} does not define")
            if node.name not in by_name[name].senders:
                raise RobotFileError(f"{robot.path}: {robot.where(k)}: a {node.kind} sends "
                                     f"{name}, whose sender in {robot.dbc.name} is "
                                     f"{', '.join(by_name[name].senders) or 'nobody'}")


def _receivers(robot: RobotFile, db: cantools.database.can.Database) -> None:
    """Every node is a receiver of what its kind must hear (the period engine delivers a node
    what the DBC names it a receiver of; the other measurement variant where the DBC has it)."""
    by_name = {m.name: m for m in db.messages}
    for k, node in enumerate(robot.nodes):
        names = heard_by(node, robot.nodes, len(robot.groups), robot.meas_bytes)
        other = 6 if robot.meas_bytes == 2 else 2
        names += [n for n in heard_by(node, robot.nodes, len(robot.groups), other)
                  if n in by_name and n not in names]
        for name in names:
            if name not in by_name:
                raise RobotFileError(f"{robot.path}: {robot.where(k)}: a {node.kind} hears "
                                     f"{name}, which {robot.dbc.name} does not define")
            if not any(node.name in s.receivers for s in by_name[name].signals):
                raise RobotFileError(f"{robot.path}: {robot.where(k)}: a {node.kind} hears "
                                     f"{name}, but no signal of it in {robot.dbc.name} names "
                                     f"{node.name} a receiver")


def _groups_heard(robot: RobotFile, db: cantools.database.can.Database) -> None:
    """Every joint's board hears a signal of its group's ACTUATION_k and POSREF_k."""
    host = next(k for k, n in enumerate(robot.nodes) if n.kind == "host")
    board = {j: n.name for n in robot.nodes if n.kind == "board" for j in n.joints}
    for k, group in enumerate(robot.groups, start=1):
        for name in (actuation_name(k), posref_name(k)):
            message = db.get_message_by_name(name)  # _senders found it
            for j in group:
                if not any(board[j] in s.receivers for s in message.signals):
                    raise RobotFileError(
                        f"{robot.path}: {robot.where(host)}.groups: group {k} carries joint {j}, "
                        f"but no signal of {name} in {robot.dbc.name} has {board[j]} as a "
                        "receiver")


def _groups_framed(robot: RobotFile, loaded: Schema) -> None:
    """The host's groups are the DBC's ACTUATION_k frames, joint for joint, in frame order."""
    host = next(k for k, n in enumerate(robot.nodes) if n.kind == "host")
    try:
        framed = loaded.layout.groups
    except SchemaError as err:
        raise RobotFileError(f"{robot.path}: bus.dbc: {err}") from None
    if framed != robot.groups:
        raise RobotFileError(f"{robot.path}: {robot.where(host)}.groups: "
                             f"{[list(g) for g in robot.groups]}, but the ACTUATION frames of "
                             f"{robot.dbc.name} carry {[list(g) for g in framed]}")


def cyclic_signals(robot: RobotFile) -> dict[str, list[str]]:
    """The signals, by start bit, of every message a cyclic robot's nodes read and write: a
    board's words in its joints' order (``bus.dbc_generate_cyclic``'s layout)."""
    out: dict[str, list[str]] = {}
    for node in robot.nodes:
        b, joints = node.board, node.joints
        if node.kind == "hp-board":
            out[f"VEL_SP_{b}"] = [*(f"w_{j}" for j in joints), f"seq_{b}"]
            out[f"FEEDBACK_{b}"] = [*(f"x_{j}" for j in joints), f"status_{b}"]
            out[f"ANNOUNCE_{b}"] = [f"board_{b}_{k}" for k in range(ANNOUNCE_WORDS)]
            out[f"MBX2_{b}"] = [f"mbx2_{b}_{k}" for k in range(MBX2_WORDS)]
        if node.kind == "servo-board":
            for k in range(0, len(joints), WORDS_PER_FRAME):
                out[f"SERVO_SP_{k // WORDS_PER_FRAME + 1}"] = [
                    f"p_{j}" for j in joints[k:k + WORDS_PER_FRAME]]
            out["SERVO_STATUS"] = ["updates", "servo_status"]
            out[f"ANNOUNCE_{b}"] = [f"board_{b}"]
    return out


def _cyclic_layout(robot: RobotFile, db: cantools.database.can.Database) -> None:
    """Every message of a cyclic robot's nodes has their signals, in order, in whole bytes (the
    nodes pack and unpack them as words; ``_senders`` has found each message)."""
    for name, want in cyclic_signals(robot).items():
        message = db.get_message_by_name(name)
        signals = sorted(message.signals, key=lambda s: s.start)
        have = [s.name for s in signals]
        if have != want or any(s.start % 8 or s.byte_order != "little_endian" or
                               s.length not in (8, 16) for s in signals):
            raise RobotFileError(f"{robot.path}: bus.dbc: {name} in {robot.dbc.name} carries "
                                 f"{', '.join(have) or 'no signal'}; the nodes need "
                                 f"{', '.join(want)}, little-endian words in that order "
                                 "(servobus robot dbc generates them)")


def _bitrate(robot: RobotFile, loaded: Schema) -> None:
    """bus.bitrate is the DBC's Baudrate attribute (when it has one), bus.data_bitrate its
    BaudrateCANFD (both absent on a classic bus; the Schema has read and checked them)."""
    db = loaded.db
    attr = db.dbc.attributes.get("Baudrate") if db.dbc else None
    if attr is not None and int(attr.value) != robot.bitrate:
        raise RobotFileError(f"{robot.path}: bus.bitrate: {robot.bitrate} bit/s, but "
                             f"{robot.dbc.name} says Baudrate {int(attr.value)}")
    dbc_rate = loaded.data_bitrate
    if dbc_rate != robot.data_bitrate:
        said = f"says {DATA_BITRATE_ATTRIBUTE} {dbc_rate}" if dbc_rate else \
            f"is a classic CAN bus (no {DATA_BITRATE_ATTRIBUTE})"
        have = f"{robot.data_bitrate} bit/s" if robot.data_bitrate else \
            "absent (classic CAN)"
        raise RobotFileError(f"{robot.path}: bus.data_bitrate: {have}, but {robot.dbc.name} "
                             f"{said}")


def _period(robot: RobotFile, db: cantools.database.can.Database,
            cyclic: list[cantools.database.Message]) -> None:
    """The period is the shortest cycle time (the TICK's, time-triggered) and divides all."""
    period_ms = robot.period_ns // NS_PER_MS
    if not cyclic:
        raise RobotFileError(f"{robot.path}: bus.dbc: {robot.dbc.name} has no message with a "
                             "GenMsgCycleTime: no schedule to run")
    if robot.schedule == "time-triggered":
        tick = next(m for m in db.messages if m.name == "TICK")  # _senders found it
        if tick.cycle_time != period_ms:
            raise RobotFileError(f"{robot.path}: period: {period_ms} ms, but TICK's "
                                 f"GenMsgCycleTime in {robot.dbc.name} is {tick.cycle_time} ms")
    shortest = min(cyclic, key=_cycle)
    if shortest.cycle_time != period_ms:
        raise RobotFileError(f"{robot.path}: period: {period_ms} ms, but {shortest.name} in "
                             f"{robot.dbc.name} is sent every {shortest.cycle_time} ms")
    for m in cyclic:
        if _cycle(m) % period_ms:
            raise RobotFileError(f"{robot.path}: period: {period_ms} ms does not divide "
                                 f"{m.name}'s GenMsgCycleTime of {m.cycle_time} ms")
