"""Fault injection on the simulated bus, seeded and scriptable.

Frame faults (decided when a frame starts): ``corrupt`` (receivers see a CRC error) and
``noack`` (nobody acknowledges).  Node faults (scheduled on the environment): ``silence`` a node,
a ``babble``-ing node that keeps a high-priority frame queued, a ``late`` node whose frames
enter arbitration after a delay.  Script lines, one fault each:

    corrupt 0x101 at 1.0s [count 3] [from JOINT_1]
    noack 0x101 at 1.0s [count 1]
    random-corrupt 1e-3
    silence JOINT_5 at 1.0s [for 50ms]
    babble 0x001 at 1.0s for 50ms
    late JOINT_3 by 300us [at 1.0s]
"""

import random
import re
from dataclasses import dataclass, field

import can

from servobus.bus.controller import MAX_STANDARD_ID, id_fits

CORRUPT = "corrupt"
NO_ACK = "noack"
_UNITS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
MAX_TIME_NS = 366 * 86_400 * 1_000_000_000  # a time beyond a year is a typo (and 1e400s overflows)


class FaultScriptError(ValueError):
    """A fault script line that cannot be understood."""


def check_before_end(at_ns: int, end_ns: int | None, what: str = "at") -> None:
    """FaultScriptError for a scripted time at or after the run's end (`end_ns`; None: not
    known): it could never act, and the run would look as if it had been tried."""
    if end_ns is not None and at_ns >= end_ns:
        raise FaultScriptError(f"{what} {at_ns / 1e9:g} s is not before the run's end "
                               f"({end_ns / 1e9:g} s): it would never happen")


def fit_words(line: str, usage: str) -> list[str]:
    """The words of `line` standing for the upper-case placeholders of `usage` (a trailing
    "[...]" part optional); FaultScriptError naming the first word that does not fit."""
    required, _, optional = usage.partition(" [")
    pattern = required.split() + optional.rstrip("]").split()
    words = line.split()
    for word, expected in zip(words, pattern, strict=False):
        if not expected.isupper() and word != expected:
            raise FaultScriptError(f"unknown word {word!r} where {expected!r} belongs: "
                                   f"use {usage}")
    if len(words) > len(pattern):
        raise FaultScriptError(f"unexpected {words[len(pattern)]!r} at the end: use {usage}")
    need = len(required.split())
    if len(words) < len(pattern) and len(words) != need:
        missing = pattern[len(words):need if len(words) < need else None]
        raise FaultScriptError(f"missing {' '.join(missing)!r}: use {usage}")
    return [word for word, expected in zip(words, pattern, strict=False) if expected.isupper()]


def parse_duration(text: str) -> int:
    """'1.5s', '50ms', '300us', '200ns' -> integer nanoseconds."""
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)(s|ms|us|ns)", text.strip())
    if not m:
        raise FaultScriptError(f"bad time {text!r}: use a number with s, ms, us or ns")
    value = float(m.group(1)) * _UNITS[m.group(2)]
    if not value < MAX_TIME_NS:
        raise FaultScriptError(f"time {text!r} is beyond any run (over a year)")
    return round(value)


@dataclass
class FrameFault:
    """Corrupt or leave unacknowledged the next `count` frames matching id/sender after a time."""

    kind: str
    can_id: int | None
    after_ns: int
    count: int = 1
    sender: str | None = None

    def matches(self, msg: can.Message, sender: str, now: int) -> bool:
        """Does this rule apply to this frame now?"""
        return (self.count > 0 and now >= self.after_ns
                and (self.can_id is None or msg.arbitration_id == self.can_id)
                and (self.sender is None or sender == self.sender))


@dataclass
class FaultPlan:
    """The frame faults of one run, with a log of every injection."""

    rules: list[FrameFault] = field(default_factory=list)
    corrupt_probability: float = 0.0
    seed: int = 0
    injected: list[tuple[int, str, int, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def take(self, msg: can.Message, sender: str, now: int) -> str | None:
        """The fault to apply to this transmission attempt, if any (consumes a rule count)."""
        if not self.rules and not self.corrupt_probability:
            return None
        kind = None
        for rule in self.rules:
            if rule.matches(msg, sender, now):
                rule.count -= 1
                kind = rule.kind
                break
        if kind is None and self.corrupt_probability and self._rng.random() < \
                self.corrupt_probability:
            kind = CORRUPT
        if kind is not None:
            self.injected.append((now, kind, msg.arbitration_id, sender))
        return kind


@dataclass(frozen=True)
class NodeFault:
    """silence / babble / late, applied by `bus.fault_runner.apply_node_fault`."""

    kind: str
    at_ns: int
    node: str | None = None
    can_id: int | None = None
    duration_ns: int | None = None
    delay_ns: int = 0


BUS_FAULTS = (CORRUPT, NO_ACK, "random-corrupt", "silence", "babble", "late")

# kind -> (required options, optional options) after `kind WHAT`
_OPTIONS = {CORRUPT: ({"at"}, {"count", "from"}), NO_ACK: ({"at"}, {"count", "from"}),
            "silence": ({"at"}, {"for"}), "babble": ({"at", "for"}, set()),
            "late": ({"by"}, {"at"})}


def _can_id(text: str) -> int:
    """An 11-bit standard CAN ID (the bus carries standard frames only)."""
    try:
        can_id = int(text, 0)
    except ValueError as err:
        raise FaultScriptError(f"bad CAN ID {text!r}") from err
    if not id_fits(can_id, extended=False):
        raise FaultScriptError(f"CAN ID {text} does not fit 11 bits "
                               f"(0x000..0x{MAX_STANDARD_ID:03X})")
    return can_id


def _count(text: str) -> int:
    try:
        count = int(text, 10)
    except ValueError as err:
        raise FaultScriptError(f"count {text!r} is not a whole number") from err
    if count < 1:
        raise FaultScriptError(f"count {count} must be at least 1")
    return count


def _positive(text: str, what: str) -> int:
    value = parse_duration(text)
    if value <= 0:
        raise FaultScriptError(f"{what} {text} must be positive")
    return value


def _options(words: list[str], kind: str) -> dict[str, str]:
    """The `key value` pairs after `kind WHAT`: every required key, no unknown or repeated one."""
    required, optional = _OPTIONS[kind]
    if len(words) < 2:
        raise FaultScriptError("missing a part: use " + _usage(kind))
    opts: dict[str, str] = {}
    for k in range(2, len(words), 2):
        key = words[k]
        if key not in required | optional or key in opts:
            raise FaultScriptError(f"{'repeated' if key in opts else 'unknown'} part {key!r}: "
                                   f"use {_usage(kind)}")
        if k + 1 == len(words):
            raise FaultScriptError(f"missing a part: {key!r} needs a value: use {_usage(kind)}")
        opts[key] = words[k + 1]
    if missing := required - set(opts):
        raise FaultScriptError(f"missing {', '.join(sorted(missing))}: use {_usage(kind)}")
    return opts


def _usage(kind: str) -> str:
    return next(line.strip() for line in (__doc__ or "").splitlines()
                if line.strip().startswith(kind + " "))


def parse_fault(line: str) -> FrameFault | NodeFault | float:
    """One script line -> a frame fault, a node fault, or a corruption probability;
    FaultScriptError quoting the line for anything that could not take effect as written."""
    words = line.split()
    if not words:
        raise FaultScriptError("empty fault line")
    try:
        return _parse(words)
    except FaultScriptError as err:
        raise FaultScriptError(f"fault {line.strip()!r}: {err}") from err


def _parse(words: list[str]) -> FrameFault | NodeFault | float:
    kind = words[0]
    if kind == "random-corrupt":
        if len(words) != 2:
            raise FaultScriptError("use random-corrupt P (a probability per frame)")
        try:
            p = float(words[1])
        except ValueError as err:
            raise FaultScriptError(f"probability {words[1]!r} is not a number") from err
        if not 0.0 <= p <= 1.0:
            raise FaultScriptError(f"probability {p} is not in [0, 1]")
        return p
    if kind not in _OPTIONS:
        raise FaultScriptError(f"unknown fault {kind!r}: use {', '.join(BUS_FAULTS)}")
    opts = _options(words, kind)
    at = parse_duration(opts.get("at", "0s"))
    if kind in (CORRUPT, NO_ACK):
        return FrameFault(kind, _can_id(words[1]), at, _count(opts.get("count", "1")),
                          opts.get("from"))
    if kind == "silence":
        dur = _positive(opts["for"], "duration") if "for" in opts else None
        return NodeFault("silence", at, node=words[1], duration_ns=dur)
    if kind == "babble":
        return NodeFault("babble", at, can_id=_can_id(words[1]),
                         duration_ns=_positive(opts["for"], "duration"))
    return NodeFault("late", at, node=words[1], delay_ns=_positive(opts["by"], "delay"))
