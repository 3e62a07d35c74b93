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
                         tick frame is not subtracted.  The two differ by exactly the tick's bits.
"""

from collections.abc import Callable
from statistics import mean
from typing import Any

import cantools

from servobus.bus import frame_bits as fb
from servobus.bus.rta import MessageTiming, response_rows, response_times
from servobus.bus.scheduler import NS_PER_S
from servobus.bus.schema import TICK, Schema

MODELS: dict[str, Callable[[int], int]] = {
    "stretch_6_5": fb.stretch_6_5_bits,
    "worst_case": fb.worst_case_bits,
    "no_stuffing": fb.no_stuffing_bits,
}


def _window(bits: int, tick_bits: int, period_ns: int, bit_ns: int) -> dict[str, float]:
    """Load of `bits` per period, strict host window and the thesis' (tick not subtracted)."""
    busy_ns = bits * bit_ns
    thesis_ns = period_ns - (bits - tick_bits) * bit_ns
    return {"frame_bits": bits, "load_pct": 100.0 * busy_ns / period_ns,
            "host_window_s": (period_ns - busy_ns) / 1e9,
            "host_window_pct": 100.0 * (period_ns - busy_ns) / period_ns,
            "host_window_thesis_s": thesis_ns / 1e9,
            "host_window_thesis_pct": 100.0 * thesis_ns / period_ns}


def typical_payloads(schema: Schema, frames: list[cantools.database.Message],
                     seq: int) -> list[bytes]:
    """The period's payloads of a robot at rest: tick `seq`, pots mid-scale, zero current, 7 V."""
    out = []
    for msg in frames:
        values: dict[str, Any] = {}
        for sig in msg.signals:
            base = sig.name.rsplit("_", 1)[0]
            values[sig.name] = {"seq": seq, "position": 512, "supply": 7.0}.get(
                sig.name if sig.name == "seq" else base, 0)
        out.append(bytes(schema.encode(msg.name, values).data))
    return out


def busload(schema: Schema, period_ns: int | None = None, bitrate: int | None = None,
            meas_bytes: int = 2, local_p: bool = False) -> dict[str, Any]:
    """The `servobus busload` report (the predicted schedule, its load models, the exact
    stuffed load and each message's response time); `local_p`: the host sends the
    groups' POSREF set-points, not their ACTUATION currents."""
    period_ns = period_ns or schema.tick_period_ns
    bitrate = bitrate or schema.bitrate
    if period_ns <= 0 or bitrate <= 0 or NS_PER_S % bitrate:
        raise ValueError(f"period {period_ns} ns and bit rate {bitrate} must be positive, "
                         "and the bit rate must divide 1e9")
    bit_ns = NS_PER_S // bitrate
    frames = schema.period_messages(meas_bytes, local_p)
    schedule = [{"name": m.name, "id": f"0x{m.frame_id:03X}", "dlc": m.length,
                 **{model: f(m.length) for model, f in MODELS.items()}} for m in frames]
    models = {model: _window(sum(f(m.length) for m in frames), f(frames[0].length), period_ns,
                             bit_ns) for model, f in MODELS.items()}
    per_seq, tick_bits = [], []
    for seq in range(256):
        payloads = typical_payloads(schema, frames, seq)
        lengths = [fb.exact_frame_bits(m.frame_id, p) for m, p in
                   zip(frames, payloads, strict=True)]
        per_seq.append(sum(lengths))
        tick_bits.append(lengths[0])
    worst = max(range(256), key=per_seq.__getitem__)
    if per_seq[worst] * bit_ns > period_ns:
        raise ValueError(f"a period of {period_ns / 1e6:g} ms cannot hold its own frames "
                         f"({per_seq[worst] * bit_ns / 1e6:g} ms at {bitrate / 1e3:g} kbit/s)")
    exact: dict[str, Any] = _window(per_seq[worst], tick_bits[worst], period_ns, bit_ns)
    exact |= {"frame_bits_min": min(per_seq), "frame_bits_mean": mean(per_seq),
              "load_pct_mean": 100.0 * mean(per_seq) * bit_ns / period_ns,
              "payloads": "tick seq 0..255, positions 512, currents 0 A, supply 7 V"}
    return {"period_s": period_ns / 1e9, "bitrate": bitrate, "meas_bytes": meas_bytes,
            "schedule": schedule, "models": models, "exact": exact,
            "messages": _response_times(schema, meas_bytes, period_ns, bit_ns, local_p)}


def _timings(schema: Schema, meas_bytes: int, period_ns: int, bit_ns: int,
             local_p: bool = False) -> list[MessageTiming]:
    """Every cyclic message as the RTA sees it; deadline = its own period.  `local_p`: the
    host sends each group's POSREF on its ACTUATION's cycle instead."""
    timings = []
    tick_cycle = schema.message(TICK).cycle_time
    for m, cycle in schema.cyclic_messages(meas_bytes, local_p):
        t_ns = period_ns if cycle == tick_cycle else cycle * 1_000_000
        timings.append(MessageTiming(m.name, m.frame_id, fb.worst_case_bits(m.length) * bit_ns,
                                     t_ns, t_ns))
    return timings


def worst_case_response_ns(schema: Schema, meas_bytes: int, name: str) -> int | None:
    """Davis 2007 worst-case response time of message `name` on the DBC's schedule (None:
    unbounded)."""
    bit_ns = NS_PER_S // schema.bitrate
    return response_times(_timings(schema, meas_bytes, schema.tick_period_ns, bit_ns),
                          bit_ns)[name]


def _response_times(schema: Schema, meas_bytes: int, period_ns: int, bit_ns: int,
                    local_p: bool = False) -> list[dict[str, Any]]:
    """Davis 2007 worst-case response of every cyclic message against its deadline (= period)."""
    timings = _timings(schema, meas_bytes, period_ns, bit_ns, local_p)
    return response_rows(timings, bit_ns)
