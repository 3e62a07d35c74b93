"""Bus load and the host's timing budget of a time-triggered schedule (SPEC 1.2: SPEJBL's
4 ms), under three frame-length models, with the exact stuffing of the actual payloads and the
worst-case response time of every message.

A period carries TICK, the N measurements and the G actuation frames of the DBC's layout
(``Schema.layout``; N = 12 and G = 3 on SPEJBL).  Two host windows per model
(docs/decisions.md, "Bus load models"):
  host_window_*        = period - (TICK + N measurements + G actuations), strict: the time from
                         the end of the last measurement to the next tick, less the actuation
                         frames the host must fit in;
  host_window_thesis_* = period - (N measurements + G actuations), the thesis' accounting: the
                         tick frame is not subtracted.  The two differ by exactly the tick's time.

Every time is in ns on the bus's ``BitTiming``: a CAN FD frame with bit rate switch spends its
data phase at the data bit rate (``bus.frame_bits_fd``), so frame bits alone do not give a
load.  The models of an FD frame keep its fixed parts (the stuff count, its fixed stuff bits,
CRC-17/21) and vary the dynamic stuff bits of SOF..data as the classic models do: none, one per
5 bits, or the worst case (``BitTiming.worst_case_ns``).
"""

from collections.abc import Callable
from statistics import mean
from typing import Any

import can
import cantools

from servobus.bus import frame_bits as fb
from servobus.bus import frame_bits_fd as fdb
from servobus.bus.bit_timing import BitTiming
from servobus.bus.rta import MessageTiming, response_rows, response_times
from servobus.bus.schema import TICK, Schema


def _model(classic: Callable[[int], int],
           stuff: Callable[[int], int]) -> Callable[[int, bool, bool], fdb.FdLength]:
    """A frame model: `classic`'s bits for a classic frame, an FD frame with `stuff`(m)
    dynamic stuff bits in m bits."""
    def bits(length: int, fd: bool, brs: bool) -> fdb.FdLength:
        return fdb.fd_model_bits(length, stuff, brs=brs) if fd else \
            fdb.FdLength(classic(length), 0)
    return bits


def _worst(length: int, fd: bool, brs: bool) -> fdb.FdLength:
    """Davis 2007 for a classic frame, ``fd_worst_case_bits`` for an FD one."""
    return BitTiming().worst_case_bits(length, fd=fd, brs=brs)


MODELS: dict[str, Callable[[int, bool, bool], fdb.FdLength]] = {
    "stretch_6_5": _model(fb.stretch_6_5_bits, lambda m: m // 5),
    "worst_case": _worst,
    "no_stuffing": _model(fb.no_stuffing_bits, lambda m: 0),
}


def model_ns(timing: BitTiming, bits: fdb.FdLength) -> int:
    """A frame's time in ns on `timing`: nominal bits at the bit rate, data bits at the data
    rate."""
    return bits.nominal_bits * timing.bit_ns + bits.data_bits * timing.data_bit_ns


def _window(bits: int, busy_ns: int, tick_ns: int, period_ns: int) -> dict[str, float]:
    """Load of `busy_ns` per period (`bits` on the wire), strict host window and the thesis'
    (the tick's `tick_ns` not subtracted)."""
    thesis_ns = period_ns - busy_ns + tick_ns
    return {"frame_bits": bits, "frame_ns": busy_ns, "load_pct": 100.0 * busy_ns / period_ns,
            "host_window_s": (period_ns - busy_ns) / 1e9,
            "host_window_pct": 100.0 * (period_ns - busy_ns) / period_ns,
            "host_window_thesis_s": thesis_ns / 1e9,
            "host_window_thesis_pct": 100.0 * thesis_ns / period_ns}


def typical_payloads(schema: Schema, frames: list[cantools.database.Message],
                     seq: int) -> list[can.Message]:
    """The period's frames of a robot at rest: tick `seq`, pots mid-scale, zero current, 7 V."""
    out = []
    for msg in frames:
        values: dict[str, Any] = {}
        for sig in msg.signals:
            base = sig.name.rsplit("_", 1)[0]
            values[sig.name] = {"seq": seq, "position": 512, "supply": 7.0}.get(
                sig.name if sig.name == "seq" else base, 0)
        out.append(schema.encode(msg.name, values))
    return out


def timing_of(schema: Schema, bitrate: int | None = None) -> BitTiming:
    """The schema's bit timing, its nominal rate `bitrate` when given (ValueError: a rate the
    bus cannot run)."""
    return BitTiming(bitrate or schema.bitrate, schema.data_bitrate)


def busload(schema: Schema, period_ns: int | None = None, bitrate: int | None = None,
            meas_bytes: int = 2, local_p: bool = False) -> dict[str, Any]:
    """The `servobus busload` report (the predicted schedule, its load models, the exact
    stuffed load and each message's response time) on the schema's bit timing, its nominal
    rate `bitrate` when given; `local_p`: the host sends the groups' POSREF set-points, not
    their ACTUATION currents."""
    period_ns = period_ns or schema.tick_period_ns
    if period_ns <= 0:
        raise ValueError(f"period {period_ns} ns must be positive")
    timing = timing_of(schema, bitrate)
    frames = schema.period_messages(meas_bytes, local_p)
    flags = [schema.frame_flags(m.name) for m in frames]
    schedule: list[dict[str, Any]] = []
    models = {}
    for m, (fd, brs) in zip(frames, flags, strict=True):
        lengths = {model: f(m.length, fd, brs) for model, f in MODELS.items()}
        schedule.append({"name": m.name, "id": f"0x{m.frame_id:03X}", "dlc": m.length,
                         "fd": fd, "brs": brs,
                         **{model: b.nominal_bits + b.data_bits for model, b in lengths.items()},
                         **{f"{model}_ns": model_ns(timing, b) for model, b in lengths.items()}})
    for model in MODELS:
        models[model] = _window(sum(row[model] for row in schedule),
                                sum(row[f"{model}_ns"] for row in schedule),
                                schedule[0][f"{model}_ns"], period_ns)
    per_seq, tick_ns, bits = [], [], []
    for seq in range(256):
        sent = typical_payloads(schema, frames, seq)
        wires = [timing.wire(msg) for msg in sent]
        per_seq.append(sum(ns for ns, _ in wires))
        tick_ns.append(wires[0][0])
        bits.append(sum(n for _, n in wires))
    worst = max(range(256), key=per_seq.__getitem__)
    if per_seq[worst] > period_ns:
        raise ValueError(f"a period of {period_ns / 1e6:g} ms cannot hold its own frames "
                         f"({per_seq[worst] / 1e6:g} ms at {timing.describe()})")
    exact: dict[str, Any] = _window(bits[worst], per_seq[worst], tick_ns[worst], period_ns)
    exact |= {"frame_bits_min": min(bits), "frame_bits_mean": mean(bits),
              "frame_ns_min": min(per_seq), "frame_ns_mean": mean(per_seq),
              "load_pct_mean": 100.0 * mean(per_seq) / period_ns,
              "payloads": "tick seq 0..255, positions 512, currents 0 A, supply 7 V"}
    return {"period_s": period_ns / 1e9, "bitrate": timing.bitrate,
            "data_bitrate": timing.data_bitrate, "bit_timing": timing.describe(),
            "meas_bytes": meas_bytes, "schedule": schedule, "models": models, "exact": exact,
            "messages": _response_times(schema, meas_bytes, period_ns, timing, local_p)}


def _timings(schema: Schema, meas_bytes: int, period_ns: int, timing: BitTiming,
             local_p: bool = False) -> list[MessageTiming]:
    """Every cyclic message as the RTA sees it; deadline = its own period.  `local_p`: the
    host sends each group's POSREF on its ACTUATION's cycle instead."""
    timings = []
    tick_cycle = schema.message(TICK).cycle_time
    for m, cycle in schema.cyclic_messages(meas_bytes, local_p):
        t_ns = period_ns if cycle == tick_cycle else cycle * 1_000_000
        timings.append(MessageTiming(m.name, m.frame_id, schema.worst_case_ns(m.name, timing),
                                     t_ns, t_ns))
    return timings


def worst_case_response_ns(schema: Schema, meas_bytes: int, name: str) -> int | None:
    """Davis 2007 worst-case response time of message `name` on the DBC's schedule (None:
    unbounded)."""
    timing = schema.bit_timing
    return response_times(_timings(schema, meas_bytes, schema.tick_period_ns, timing),
                          timing.bit_ns)[name]


def _response_times(schema: Schema, meas_bytes: int, period_ns: int, timing: BitTiming,
                    local_p: bool = False) -> list[dict[str, Any]]:
    """Davis 2007 worst-case response of every cyclic message against its deadline (= period)."""
    timings = _timings(schema, meas_bytes, period_ns, timing, local_p)
    return response_rows(timings, timing.bit_ns)
