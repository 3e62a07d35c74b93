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

CORRUPT = "corrupt"
NO_ACK = "noack"
_UNITS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


class FaultScriptError(ValueError):
    """A fault script line that cannot be understood."""


def parse_duration(text: str) -> int:
    """'1.5s', '50ms', '300us', '200ns' -> integer nanoseconds."""
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)(s|ms|us|ns)", text.strip())
    if not m:
        raise FaultScriptError(f"bad time {text!r}: use a number with s, ms, us or ns")
    return round(float(m.group(1)) * _UNITS[m.group(2)])


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


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError as err:
        raise FaultScriptError(f"bad CAN ID {text!r}") from err


def parse_fault(line: str) -> FrameFault | NodeFault | float:
    """One script line -> a frame fault, a node fault, or a corruption probability."""
    words = line.split()
    if not words:
        raise FaultScriptError("empty fault line")
    opts = dict(zip(words[2::2], words[3::2], strict=False))
    kind = words[0]
    try:
        if kind in (CORRUPT, NO_ACK):
            return FrameFault(kind, _int(words[1]), parse_duration(opts["at"]),
                              int(opts.get("count", "1")), opts.get("from"))
        if kind == "random-corrupt":
            p = float(words[1])
            if not 0.0 <= p <= 1.0:
                raise FaultScriptError(f"probability {p} is not in [0, 1]")
            return p
        if kind == "silence":
            dur = parse_duration(opts["for"]) if "for" in opts else None
            return NodeFault("silence", parse_duration(opts["at"]), node=words[1],
                             duration_ns=dur)
        if kind == "babble":
            return NodeFault("babble", parse_duration(opts["at"]), can_id=_int(words[1]),
                             duration_ns=parse_duration(opts["for"]))
        if kind == "late":
            return NodeFault("late", parse_duration(opts.get("at", "0s")), node=words[1],
                             delay_ns=parse_duration(opts["by"]))
    except (KeyError, IndexError) as err:
        raise FaultScriptError(f"fault {line!r} is missing a part: {err}") from err
    except ValueError as err:
        if isinstance(err, FaultScriptError):
            raise
        raise FaultScriptError(f"fault {line!r}: {err}") from err
    raise FaultScriptError(f"unknown fault {kind!r} in {line!r}: use corrupt, noack, "
                           "random-corrupt, silence, babble or late")
