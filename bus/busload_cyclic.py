"""Bus load and response times of a purely cyclic schedule (GuRoo, SPEC 5): no tick, every
message sent every GenMsgCycleTime.

The analysis runs over the hyperperiod (the least common multiple of the cycle times; 4 ms for
GuRoo: two rounds of set-points, one of feedback), cut into slots of the greatest common divisor
of the cycle times (GuRoo's 2 ms set-point period).  Every message is released at the start of a
slot that is a multiple of its cycle (synchronous release, the critical instant: the worst
alignment of the feedback against the set-points).  Per frame model (the ones of
``bus.busload``): the bits of each slot, its load, and the time left in it; per message the
Davis 2007 worst-case response time against its deadline (= its own cycle).  The exact model
builds every frame of typical payloads (at rest: velocities, positions 0; each broadcast's
sequence number the round it belongs to; status words carrying the board ID in bits 4..7) over
256 rounds and counts its stuff bits.  Times are in ns on the bus's ``BitTiming`` (a CAN FD
frame's data phase at the data bit rate), as in ``bus.busload``.
"""

import math
from statistics import mean
from typing import Any

import can
import cantools

from servobus.bus.bit_timing import BitTiming
from servobus.bus.busload import MODELS, model_ns, timing_of
from servobus.bus.rta import MessageTiming, response_rows
from servobus.bus.schema import Schema

NS_PER_MS = 1_000_000
MAX_SLOTS = 1000  # a hyperperiod of more slots than this is not a schedule worth tabulating
ROUNDS = 256  # rounds (slots) of typical payloads built exactly


def cyclic(schema: Schema) -> list[cantools.database.Message]:
    """The messages with a GenMsgCycleTime (ValueError if there are none)."""
    msgs = [m for m in schema.db.messages if m.cycle_time]
    if not msgs:
        raise ValueError(f"{schema.path.name}: no message has a GenMsgCycleTime: no cyclic "
                         "schedule to analyse")
    return msgs


def _cycle(msg: cantools.database.Message) -> int:
    """A cyclic message's GenMsgCycleTime in ms."""
    return int(msg.cycle_time or 0)


def _slot_of(k: int, cycle_ms: int, slot_ms: int) -> bool:
    """Whether a message of cycle `cycle_ms` is released in slot k."""
    return (k * slot_ms) % cycle_ms == 0


def typical_frame(schema: Schema, msg: cantools.database.Message, round_: int) -> can.Message:
    """The frame of `msg` in round `round_` of a robot at rest."""
    values: dict[str, Any] = {}
    for sig in msg.signals:
        base, _, suffix = sig.name.rpartition("_")
        if base == "seq":
            values[sig.name] = round_ % 65536
        elif base == "status" and suffix.isdigit():
            values[sig.name] = int(suffix) << 4
        else:
            values[sig.name] = 0
    return schema.encode(msg.name, values)


def _slot_rows(slots: list[list[tuple[int, int]]], slot_ns: int) -> list[dict[str, Any]]:
    """Bits, load and time left of each slot (its frames' (bits, ns) given)."""
    rows = []
    for k, frames in enumerate(slots):
        busy_ns = sum(ns for _, ns in frames)
        rows.append({"slot": k, "start_s": k * slot_ns / 1e9, "frames": len(frames),
                     "frame_bits": sum(bits for bits, _ in frames), "frame_ns": busy_ns,
                     "load_pct": 100.0 * busy_ns / slot_ns,
                     "time_left_s": (slot_ns - busy_ns) / 1e9})
    return rows


def _model(rows: list[dict[str, Any]], hyper_ns: int) -> dict[str, Any]:
    """One model's summary: load over the hyperperiod, worst slot, the slots."""
    busy_ns = sum(r["frame_ns"] for r in rows)
    return {"frame_bits": sum(r["frame_bits"] for r in rows), "frame_ns": busy_ns,
            "load_pct": 100.0 * busy_ns / hyper_ns,
            "slot_load_max_pct": max(r["load_pct"] for r in rows),
            "time_left_min_s": min(r["time_left_s"] for r in rows), "slots": rows}


def _exact(schema: Schema, msgs: list[cantools.database.Message], slot_ms: int, slot_ns: int,
           hyper_ns: int, timing: BitTiming) -> dict[str, Any]:
    """Exact stuffing of typical payloads: every slot of ROUNDS rounds built bit by bit; each
    slot of the hyperperiod charged with its worst round."""
    nslots = hyper_ns // slot_ns
    per_slot: list[tuple[int, int]] = []  # (ns, bits) of each round's slot
    for k in range(max(ROUNDS, nslots)):
        sent = [typical_frame(schema, m, k) for m in msgs if _slot_of(k, _cycle(m), slot_ms)]
        wires = [timing.wire(f) for f in sent]
        per_slot.append((sum(ns for ns, _ in wires), sum(n for _, n in wires)))
    worst_at = [max(per_slot[p::nslots]) for p in range(nslots)]  # each slot's worst round
    rows = _slot_rows([[(bits, ns)] for ns, bits in worst_at], slot_ns)
    for row in rows:
        row["frames"] = sum(_slot_of(row["slot"], _cycle(m), slot_ms) for m in msgs)
    return _model(rows, hyper_ns) | {
        "slot_bits_max": max(bits for _, bits in per_slot),
        "slot_bits_min": min(bits for _, bits in per_slot),
        "load_pct_mean": 100.0 * mean(ns for ns, _ in per_slot) / slot_ns,
        "payloads": f"rounds 0..{len(per_slot) - 1}: seq = round, velocities and positions 0, "
                    "status = board ID << 4"}


def _response_times(schema: Schema, msgs: list[cantools.database.Message],
                    timing: BitTiming) -> list[dict[str, Any]]:
    """Davis 2007 worst-case response of every cyclic message against its deadline (= cycle)."""
    timings = [MessageTiming(m.name, m.frame_id, schema.worst_case_ns(m.name, timing),
                             _cycle(m) * NS_PER_MS, _cycle(m) * NS_PER_MS)
               for m in msgs]
    return response_rows(timings, timing.bit_ns)


def busload_cyclic(schema: Schema, bitrate: int | None = None) -> dict[str, Any]:
    """The `servobus busload` report of a DBC with no tick: hyperperiod, slots, loads, WCRTs
    (on the schema's bit timing, its nominal rate `bitrate` when given)."""
    timing = timing_of(schema, bitrate)
    msgs = sorted(cyclic(schema), key=lambda m: m.frame_id)
    cycles = [_cycle(m) for m in msgs]
    hyper_ms, slot_ms = math.lcm(*cycles), math.gcd(*cycles)
    if hyper_ms // slot_ms > MAX_SLOTS:
        raise ValueError(f"cycle times {sorted(set(cycles))} ms give a hyperperiod of "
                         f"{hyper_ms} ms = {hyper_ms // slot_ms} slots of {slot_ms} ms "
                         f"(at most {MAX_SLOTS})")
    hyper_ns, slot_ns = hyper_ms * NS_PER_MS, slot_ms * NS_PER_MS
    nslots = hyper_ms // slot_ms
    schedule, frames = [], []
    for m in msgs:
        fd, brs = schema.frame_flags(m.name)
        lengths = {model: f(m.length, fd, brs) for model, f in MODELS.items()}
        frames.append({model: (b.nominal_bits + b.data_bits, model_ns(timing, b))
                       for model, b in lengths.items()})
        schedule.append({"name": m.name, "id": f"0x{m.frame_id:03X}", "dlc": m.length,
                         "fd": fd, "brs": brs, "cycle_s": _cycle(m) / 1e3,
                         "per_hyperperiod": hyper_ms // _cycle(m),
                         **{model: bits for model, (bits, _) in frames[-1].items()},
                         **{f"{model}_ns": ns for model, (_, ns) in frames[-1].items()}})
    models = {}
    for model in MODELS:
        slots = [[f[model] for m, f in zip(msgs, frames, strict=True)
                  if _slot_of(k, _cycle(m), slot_ms)] for k in range(nslots)]
        models[model] = _model(_slot_rows(slots, slot_ns), hyper_ns)
    exact = _exact(schema, msgs, slot_ms, slot_ns, hyper_ns, timing)
    if exact["frame_ns"] > hyper_ns:
        raise ValueError(f"impossible schedule: a {hyper_ms} ms hyperperiod must carry "
                         f"{exact['frame_ns'] / 1e6:g} ms of frames at {timing.describe()}")
    return {"schedule_kind": "cyclic", "hyperperiod_s": hyper_ns / 1e9,
            "slot_s": slot_ns / 1e9, "bitrate": timing.bitrate,
            "data_bitrate": timing.data_bitrate, "bit_timing": timing.describe(),
            "schedule": schedule, "models": models, "exact": exact,
            "messages": _response_times(schema, msgs, timing)}
