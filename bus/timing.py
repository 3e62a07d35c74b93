"""Real-time behaviour read off a recorded bus log: tick jitter, latencies, misses, slips.

Each TICK opens a period that lasts until the next TICK; the frames in between belong to it.
Only the schema's frames count: a frame with a TICK, measurement or actuation ID but another
length (a zero-length TICK, another robot's frame with the same ID) is left out and reported.
The tick's 8-bit sequence number says which period it opens; a tick that repeats the sequence
number of the one before (a stuck counter) is placed by its timestamp instead, or is the same
tick again when it came within half a period; ticks whose sequence and timestamps disagree by
1.5 periods or more (a restarted trigger) are counted and reported.  A fitted period more
than 10 % off the nominal one is reported with a warning (a wrong --period, or sequence numbers
that do not count ticks).
Timestamps are the recorder's receive times (end of frame), so every figure is "as seen on the
wire" by the recording node; only the ticks' start of frame is reconstructed, from each tick's
exact length at the bus's bit timing (``BitTiming.frame_ns``: stuff bits, and a CAN FD frame's
data phase at the data bit rate), so that the trigger's own jitter is not mixed with its
frames' lengths.  A frame is the schema's in either format, classic or CAN FD (an FD frame's
payload padded to its FD length).  Percentiles are nearest-rank (the smallest value with at
least p% of the values at or below it), so every reported figure is one that was measured.
"""

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import can

from servobus.bus import frame_bits as fb
from servobus.bus.bit_timing import BitTiming
from servobus.bus.frame_bits_fd import padded
from servobus.bus.log_reader import Log, LogWarning, Warn, read_log
from servobus.bus.schema import TICK, Schema, actuation_name, meas_name, sequence_gap
from servobus.bus.traffic import schema_id

PERIOD_TOLERANCE = 0.1  # a fitted period further off the nominal one is reported


@dataclass(frozen=True)
class Roles:
    """Which frame IDs of a schema are the tick, joint j's measurement (either size) and
    actuation frame k, for the joints and actuation frames of its layout."""

    tick: int
    joints: int
    actuations: int
    meas: dict[int, int]  # frame ID -> joint
    actuation: dict[int, int]  # frame ID -> k
    lengths: dict[int, int]  # frame ID -> the schema's DLC

    @classmethod
    def of(cls, schema: Schema) -> "Roles":
        """The roles in `schema`."""
        joints, actuations = schema.joints, len(schema.layout.groups)
        return cls(schema_id(schema, TICK), joints, actuations,
                   {schema_id(schema, meas_name(j, b)): j
                    for j in range(1, joints + 1) for b in (2, 6)},
                   {schema_id(schema, actuation_name(k)): k for k in range(1, actuations + 1)},
                   {int(m.frame_id): int(m.length) for m in schema.db.messages})

    def foreign(self, msg: can.Message) -> bool:
        """A frame with one of the roles' IDs that is not the schema's (another length, a
        remote frame); a CAN FD frame's length may be the schema's padded to an FD length."""
        can_id = msg.arbitration_id
        if not (can_id == self.tick or can_id in self.meas or can_id in self.actuation):
            return False
        length = self.lengths.get(can_id, len(msg.data))
        lengths = {length, len(padded(bytes(length)))} if msg.is_fd else {length}
        return msg.is_remote_frame or len(msg.data) not in lengths


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
    """One tick period: the tick's time (end of frame), sequence index and start of frame,
    and what arrived before the next."""

    t: float
    index: int
    start: float
    meas: dict[int, float] = field(default_factory=dict)      # joint -> first arrival
    actuation: dict[int, float] = field(default_factory=dict)  # frame k -> first arrival
    repeats: int = 0                                           # a second copy of one frame


def _seq_step(seq: int, prev_seq: int, dt: float, period_s: float) -> tuple[int, bool]:
    """Periods between two ticks: the 8-bit sequence difference, plus the multiple of 256
    that brings it closest to what the timestamps say (a gap of 256+ ticks wraps); and whether
    the sequence did not advance, leaving it to the timestamps (0: the same tick again)."""
    step = sequence_gap(prev_seq, seq)
    wraps = round((dt / period_s - step) / 256)
    step += 256 * max(0, wraps)
    return (step, False) if step else (round(dt / period_s), True)


@dataclass
class Tally:
    """What the periods leave out or place by time, and the first frame of each (its index)."""

    foreign: int = 0  # frames with a role's ID but not the schema's length
    first_foreign: int | None = None
    by_time: int = 0  # ticks repeating the sequence number before, placed by their time
    first_by_time: int | None = None
    repeated_ticks: int = 0  # the same tick again (same sequence, within half a period)
    disagree: int = 0  # ticks whose sequence step is 1.5 periods or more off their timestamp's
    first_disagree: int | None = None


def periods(messages: Sequence[can.Message], period_s: float, roles: Roles, tally: Tally,
            timing: BitTiming) -> tuple[list[Period], int]:
    """The periods of a log in time order, and the count of frames before the first tick
    (each tick's start of frame at the bus's `timing`); `tally` counts what was left out or
    placed by time."""
    out: list[Period] = []
    before = 0
    prev_seq = 0
    for i in sorted(range(len(messages)), key=lambda k: messages[k].timestamp):
        msg = messages[i]
        if msg.is_error_frame or msg.is_extended_id:
            continue
        if roles.foreign(msg):
            tally.foreign += 1
            tally.first_foreign = i if tally.first_foreign is None else tally.first_foreign
            continue
        if msg.arbitration_id == roles.tick:
            seq = msg.data[0]
            step, by_time = (0, False) if not out else _seq_step(
                seq, prev_seq, msg.timestamp - out[-1].t, period_s)
            if by_time:
                tally.by_time += 1
                tally.first_by_time = i if tally.first_by_time is None else tally.first_by_time
            elif out and abs(step - (msg.timestamp - out[-1].t) / period_s) >= 1.5:
                tally.disagree += 1
                tally.first_disagree = i if tally.first_disagree is None else \
                    tally.first_disagree
            if out and not step:
                tally.repeated_ticks += 1
                continue
            to_start_ns = timing.frame_ns(msg) - fb.IFS_BITS * timing.bit_ns
            out.append(Period(msg.timestamp, out[-1].index + step if out else 0,
                              msg.timestamp - to_start_ns / 1e9))
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


def grid_deviation(ticks: Sequence[Period], period_s: float, start: bool = False) -> list[float]:
    """Each tick's deviation (its end of frame, or with `start` its start of frame) from the
    nominal grid t0 + index*period, t0 the median offset (a few very late ticks do not shift
    the grid the others keep)."""
    offsets = [(p.start if start else p.t) - p.index * period_s for p in ticks]
    t0 = percentile(offsets, 50)
    return [o - t0 for o in offsets]


def fitted_period(ticks: Sequence[Period]) -> float | None:
    """Least-squares slope of tick time over index: the period the trigger really kept (None
    without two different indices)."""
    if not ticks:
        return None
    n = len(ticks)
    mi = sum(p.index for p in ticks) / n
    mt = sum(p.t for p in ticks) / n
    den = sum((p.index - mi) ** 2 for p in ticks)
    return sum((p.index - mi) * (p.t - mt) for p in ticks) / den if den else None


def analyze(messages: Sequence[can.Message], period_ns: int, schema: Schema | None = None,
            warn: Warn | None = None, timing: BitTiming | None = None) -> dict[str, object]:
    """The timing report of one log's frames at a nominal tick period (frame roles from
    `schema`, default the shipped DBC; bit rates `timing`, default the schema's); `warn` is
    told what was left out or placed by time and a fitted period off the nominal one, each
    naming the first frame concerned (its file:line when `messages` is a read Log)."""
    schema = schema or Schema()
    timing = timing or schema.bit_timing
    period_s = period_ns / 1e9
    roles = Roles.of(schema)
    if roles.lengths[roles.tick] < 1:
        raise ValueError(f"{schema.path.name}: TICK has no data byte: no sequence number")

    def where(i: int | None) -> str:
        return messages.places[i] if isinstance(messages, Log) and i is not None else \
            f"frame {(i or 0) + 1}"

    if not timing.fd:
        fd = next((i for i, msg in enumerate(messages) if msg.is_fd), None)
        if fd is not None:
            raise ValueError(f"{where(fd)}: a CAN FD frame (ID 0x{messages[fd].arbitration_id:X})"
                             f" on a classic CAN bus ({timing.describe()}): its length needs "
                             "the bus's data bit rate (--data-bitrate)")
    tally = Tally()
    ticks, before = periods(messages, period_s, roles, tally, timing)
    tick_length = roles.lengths[roles.tick]
    if tally.foreign:
        first = messages[tally.first_foreign or 0]
        text = (f"{where(tally.first_foreign)}: ID 0x{first.arbitration_id:03X} with "
                f"{len(first.data)} data bytes{_kind(first)} is not "
                f"{schema.path.name}'s frame of that ID")
        if not ticks:
            raise ValueError(f"{text}: the log holds no {schema.path.name} TICK (ID "
                             f"0x{roles.tick:03X}, {tick_length} byte): nothing to time (a log "
                             "of another robot? its --dbc)")
        _tell(warn, f"{text}: {tally.foreign} such frames left out")
    if not ticks:
        source = f"{messages.path}: the log" if isinstance(messages, Log) else "the log"
        raise ValueError(f"{source} holds no TICK frame (ID 0x{roles.tick:03X}): nothing to time")
    if tally.by_time:
        _tell(warn, f"{where(tally.first_by_time)}: the TICK repeats the sequence number of the "
                    f"tick before: {tally.by_time} such ticks placed by their timestamps "
                    f"({tally.repeated_ticks} of them within half a period: the same tick again)")
    if tally.disagree:
        _tell(warn, f"{where(tally.first_disagree)}: the TICK sequence and the timestamps "
                    f"disagree by 1.5 periods or more: {tally.disagree} such ticks, placed by "
                    "their sequence (a restarted time trigger? another clock?)")
    gaps = [b.index - a.index - 1 for a, b in itertools.pairwise(ticks) if b.index - a.index != 1]
    slope = fitted_period(ticks)
    if slope is not None and abs(slope - period_s) > PERIOD_TOLERANCE * period_s:
        _tell(warn, f"the fitted period {slope * 1e6:.3f} us is {abs(slope / period_s - 1):.0%} "
                    f"off the nominal {period_ns / 1e3:g} us: the log's period is not --period, "
                    f"or its TICK sequence numbers do not count ticks")
    last_meas = [max(p.meas.values()) - p.t for p in ticks if p.meas]
    last_act = [max(p.actuation.values()) - p.t for p in ticks if p.actuation]
    per_joint = {f"MEAS_{j}": stats_us([p.meas[j] - p.t for p in ticks if j in p.meas])
                 for j in range(1, roles.joints + 1)}
    missing_meas = [roles.joints - len(p.meas) for p in ticks]
    missing_act = [roles.actuations - len(p.actuation) for p in ticks]
    return {
        "period_us": period_ns / 1000,
        "bit_timing": timing.describe(),
        "ticks": len(ticks),
        "frames_before_first_tick": before,
        "slips": {"gaps": len(gaps), "ticks_missing": sum(gaps)},
        "fitted_period_us": None if slope is None else round(slope * 1e6, 3),
        "tick_interval_us": stats_us([b.t - a.t for a, b in itertools.pairwise(ticks)]),
        "tick_jitter_us": stats_us(grid_deviation(ticks, period_s)),
        "tick_start_jitter_us": stats_us(grid_deviation(ticks, period_s, start=True)),
        "tick_to_last_meas_us": stats_us(last_meas),
        "tick_to_last_actuation_us": stats_us(last_act),
        "tick_to_meas_us": per_joint,
        "missing_meas": {"periods": sum(m > 0 for m in missing_meas),
                         "frames": sum(missing_meas)},
        "missing_actuation": {"periods": sum(m > 0 for m in missing_act),
                              "frames": sum(missing_act)},
        "repeated_frames": sum(p.repeats for p in ticks),
        "repeated_ticks": tally.repeated_ticks,
        "ticks_placed_by_time": tally.by_time,
        "ticks_off_their_sequence": tally.disagree,
        "frames_not_in_schema": tally.foreign,
    }


def _kind(msg: can.Message) -> str:
    """' (CAN FD)' or ' (a remote frame)' for a frame of that kind."""
    return " (CAN FD)" if msg.is_fd else " (a remote frame)" if msg.is_remote_frame else ""


def _tell(warn: Warn | None, text: str) -> None:
    """A warning line: to `warn`, else a LogWarning."""
    if warn is None:
        warnings.warn(text, LogWarning, stacklevel=3)
    else:
        warn(text)


def analyze_log(path: str | Path, period_ns: int, schema: Schema, warn: Warn | None = None,
                timing: BitTiming | None = None) -> dict[str, object]:
    """The timing report of a recorded .log/.asc/.blf file (classic or CAN FD frames)."""
    return analyze(read_log(path, warn), period_ns, schema, warn, timing)
