"""Real-time behaviour read off a recorded bus log: tick jitter, latencies, misses, slips.

Each TICK opens a period that lasts until the next TICK; the frames in between belong to it.
Timestamps are the recorder's receive times, so every figure is "as seen on the wire" by the
recording node.  Percentiles are nearest-rank (the smallest value with at least p% of the
values at or below it), so every reported figure is one that was measured.
"""

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import can

from servobus.bus.log_reader import Warn, read_log
from servobus.bus.schema import JOINTS, TICK, Schema, actuation_name, meas_name, sequence_gap
from servobus.bus.traffic import schema_id

ACTUATIONS = JOINTS // 4  # ACTUATION_1..3, four joints each


@dataclass(frozen=True)
class Roles:
    """Which frame IDs of a schema are the tick, joint j's measurement (either size) and
    actuation frame k."""

    tick: int
    meas: dict[int, int]  # frame ID -> joint
    actuation: dict[int, int]  # frame ID -> k

    @classmethod
    def of(cls, schema: Schema) -> "Roles":
        """The roles in `schema`."""
        return cls(schema_id(schema, TICK),
                   {schema_id(schema, meas_name(j, b)): j
                    for j in range(1, JOINTS + 1) for b in (2, 6)},
                   {schema_id(schema, actuation_name(k)): k for k in range(1, ACTUATIONS + 1)})


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile p (0 < p <= 100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def stats_us(values_s: Sequence[float]) -> dict[str, float] | None:
    """min / p50 / p99 / max of times in seconds, in µs rounded to 0.1 µs (None if empty)."""
    if not values_s:
        return None
    us = [v * 1e6 for v in values_s]
    return {"n": len(us), "min": round(min(us), 1), "p50": round(percentile(us, 50), 1),
            "p99": round(percentile(us, 99), 1), "max": round(max(us), 1)}


@dataclass
class Period:
    """One tick period: the tick's time and sequence index and what arrived before the next."""

    t: float
    index: int
    meas: dict[int, float] = field(default_factory=dict)      # joint -> first arrival
    actuation: dict[int, float] = field(default_factory=dict)  # frame 1..3 -> first arrival
    repeats: int = 0                                           # a second copy of one frame


def _seq_step(seq: int, prev_seq: int, dt: float, period_s: float) -> int:
    """Periods between two ticks: the 8-bit sequence difference, plus the multiple of 256
    that brings it closest to what the timestamps say (a gap of 256+ ticks wraps)."""
    step = sequence_gap(prev_seq, seq)
    wraps = round((dt / period_s - step) / 256)
    return step + 256 * max(0, wraps)


def periods(messages: Sequence[can.Message], period_s: float,
            roles: Roles) -> tuple[list[Period], int]:
    """The periods of a log in time order, and the count of frames before the first tick."""
    out: list[Period] = []
    before = 0
    prev_seq = 0
    for msg in sorted(messages, key=lambda m: m.timestamp):
        if msg.is_error_frame or msg.is_remote_frame or msg.is_extended_id:
            continue
        if msg.arbitration_id == roles.tick and len(msg.data) >= 1:
            seq = msg.data[0]
            index = 0 if not out else out[-1].index + _seq_step(
                seq, prev_seq, msg.timestamp - out[-1].t, period_s)
            out.append(Period(msg.timestamp, index))
            prev_seq = seq
            continue
        if not out:
            before += 1
            continue
        slot, key = _slot(out[-1], msg, roles)
        if slot is None:
            continue
        if key in slot:
            out[-1].repeats += 1
        else:
            slot[key] = msg.timestamp
    return out, before


def _slot(period: Period, msg: can.Message,
          roles: Roles) -> tuple[dict[int, float] | None, int]:
    """Where a frame is filed in its period: (measurements, joint), (actuations, k) or None."""
    if msg.arbitration_id in roles.meas:
        return period.meas, roles.meas[msg.arbitration_id]
    if msg.arbitration_id in roles.actuation:
        return period.actuation, roles.actuation[msg.arbitration_id]
    return None, 0


def grid_deviation(ticks: Sequence[Period], period_s: float) -> list[float]:
    """Each tick's deviation from the nominal grid t0 + index*period, t0 the median offset
    (a few very late ticks do not shift the grid the others keep)."""
    offsets = [p.t - p.index * period_s for p in ticks]
    t0 = percentile(offsets, 50)
    return [o - t0 for o in offsets]


def fitted_period(ticks: Sequence[Period]) -> float | None:
    """Least-squares slope of tick time over index: the period the trigger really kept."""
    if len(ticks) < 2:
        return None
    n = len(ticks)
    mi = sum(p.index for p in ticks) / n
    mt = sum(p.t for p in ticks) / n
    den = sum((p.index - mi) ** 2 for p in ticks)
    return sum((p.index - mi) * (p.t - mt) for p in ticks) / den


def analyze(messages: Sequence[can.Message], period_ns: int,
            schema: Schema | None = None) -> dict[str, object]:
    """The timing report of one log's frames at a nominal tick period (frame roles from
    `schema`, default the shipped DBC)."""
    period_s = period_ns / 1e9
    roles = Roles.of(schema or Schema())
    ticks, before = periods(messages, period_s, roles)
    if not ticks:
        raise ValueError(f"the log holds no TICK frame (ID 0x{roles.tick:03X}): nothing to time")
    gaps = [b.index - a.index - 1 for a, b in itertools.pairwise(ticks) if b.index - a.index != 1]
    slope = fitted_period(ticks)
    last_meas = [max(p.meas.values()) - p.t for p in ticks if p.meas]
    last_act = [max(p.actuation.values()) - p.t for p in ticks if p.actuation]
    per_joint = {f"MEAS_{j}": stats_us([p.meas[j] - p.t for p in ticks if j in p.meas])
                 for j in range(1, JOINTS + 1)}
    missing_meas = [JOINTS - len(p.meas) for p in ticks]
    missing_act = [ACTUATIONS - len(p.actuation) for p in ticks]
    return {
        "period_us": period_ns / 1000,
        "ticks": len(ticks),
        "frames_before_first_tick": before,
        "slips": {"gaps": len(gaps), "ticks_missing": sum(gaps)},
        "fitted_period_us": None if slope is None else round(slope * 1e6, 3),
        "tick_interval_us": stats_us([b.t - a.t for a, b in itertools.pairwise(ticks)]),
        "tick_jitter_us": stats_us(grid_deviation(ticks, period_s)),
        "tick_to_last_meas_us": stats_us(last_meas),
        "tick_to_last_actuation_us": stats_us(last_act),
        "tick_to_meas_us": per_joint,
        "missing_meas": {"periods": sum(m > 0 for m in missing_meas),
                         "frames": sum(missing_meas)},
        "missing_actuation": {"periods": sum(m > 0 for m in missing_act),
                              "frames": sum(missing_act)},
        "repeated_frames": sum(p.repeats for p in ticks),
    }


def analyze_log(path: str | Path, period_ns: int, schema: Schema,
                warn: Warn | None = None) -> dict[str, object]:
    """The timing report of a recorded .log/.asc/.blf file."""
    return analyze(read_log(path, warn), period_ns, schema)
