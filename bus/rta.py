"""Worst-case response times of CAN messages (Davis, Burns, Bril, Lukkien 2007).

Non-preemptive fixed-priority scheduling with the busy-period correction: for message m with
blocking B_m (longest lower-priority frame), the level-m busy period t_m, and each instance
q < Q_m = ceil((t_m + J_m) / T_m):

    w(q) = B_m + q C_m + sum_{k in hp(m)} ceil((w(q) + J_k + tau_bit) / T_k) C_k
    R_m = max_q ( J_m + w(q) - q T_m + C_m )
"""

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MessageTiming:
    """One periodic message: priority (its ID; lower wins), C, T, J, D in ns."""

    name: str
    can_id: int
    c_ns: int
    t_ns: int
    d_ns: int
    j_ns: int = 0


def _fixed_point(start: int, step, limit: int) -> int | None:
    """Iterate w = step(w) from `start` until it converges; None if it exceeds `limit`."""
    w = start
    while True:
        nxt = step(w)
        if nxt == w:
            return w
        if nxt > limit:
            return None
        w = nxt


def response_times(msgs: list[MessageTiming], bit_ns: int) -> dict[str, int | None]:
    """Worst-case response time of every message (None: unbounded, the bus is overloaded);
    `bit_ns` is tau_bit, the nominal bit time (arbitration runs at it on a CAN FD bus too)."""
    result: dict[str, int | None] = {}
    ordered = sorted(msgs, key=lambda m: m.can_id)
    horizon = 1000 * max(m.t_ns for m in msgs)
    for i, m in enumerate(ordered):
        hp, hep = ordered[:i], ordered[:i + 1]
        blocking = max((k.c_ns for k in ordered[i + 1:]), default=0)
        busy = _fixed_point(m.c_ns, lambda t, hep=hep, b=blocking: b + sum(
            math.ceil((t + k.j_ns) / k.t_ns) * k.c_ns for k in hep), horizon)
        if busy is None:
            result[m.name] = None
            continue
        worst = 0
        for q in range(math.ceil((busy + m.j_ns) / m.t_ns)):
            base = blocking + q * m.c_ns
            w = _fixed_point(base, lambda w, base=base, hp=hp: base + sum(
                math.ceil((w + k.j_ns + bit_ns) / k.t_ns) * k.c_ns for k in hp), horizon)
            if w is None:
                worst = -1
                break
            worst = max(worst, m.j_ns + w - q * m.t_ns + m.c_ns)
        result[m.name] = None if worst < 0 else worst
    return result


def response_rows(timings: list[MessageTiming], bit_ns: int) -> list[dict[str, Any]]:
    """The busload report's rows: every message's WCRT against its deadline, by CAN ID."""
    rts = response_times(timings, bit_ns)
    rows = []
    for t in sorted(timings, key=lambda t: t.can_id):
        wcrt = rts[t.name]
        rows.append({"name": t.name, "id": f"0x{t.can_id:03X}", "c_s": t.c_ns / 1e9,
                     "period_s": t.t_ns / 1e9, "deadline_s": t.d_ns / 1e9,
                     "wcrt_s": None if wcrt is None else wcrt / 1e9,
                     "meets_deadline": wcrt is not None and wcrt <= t.d_ns})
    return rows
