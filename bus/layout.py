"""A time-triggered robot's shape as its DBC states it: how many joints (MEAS_1..MEAS_N) and
which joints each host actuation frame carries (ACTUATION_k's iw_j signals, in byte order).

Every part of the bus, host and boards that walks joints or groups reads it from here, so a DBC
of any shape (``bus.dbc_generate``) needs no code of its own.
"""

import re
from dataclasses import dataclass
from typing import Any

_IW = re.compile(r"iw_(\d+)")


@dataclass(frozen=True)
class Layout:
    """Joints 1..joints; groups[k-1]: the joints of ACTUATION_k and POSREF_k, frame order."""

    joints: int
    groups: tuple[tuple[int, ...], ...]

    def group_of(self, joint: int) -> tuple[int, int]:
        """(k, q): joint's actuation frame k (1-based) and its slot q (0-based) in it."""
        for k, group in enumerate(self.groups, start=1):
            if joint in group:
                return k, group.index(joint)
        raise ValueError(f"joint {joint} is in no actuation group")


def layout_of(db: Any, path: object) -> Layout:
    """The layout of a loaded cantools database (ValueError naming `path` when the DBC has no
    MEAS_1, numbers its joints with a gap, or an ACTUATION_k whose signals are not iw_j)."""
    names = {m.name for m in db.messages}
    joints = 0
    while f"MEAS_{joints + 1}" in names:
        joints += 1
    if not joints:
        raise ValueError(f"{path}: no MEAS_1: not a time-triggered robot's DBC")
    if extra := sorted(n for n in names if re.fullmatch(r"MEAS_\d+", n) and
                       int(n[5:]) > joints):
        raise ValueError(f"{path}: {extra[0]} but no MEAS_{joints + 1}: joints are numbered "
                          "1..N without a gap")
    groups: list[tuple[int, ...]] = []
    seen: set[int] = set()
    while f"ACTUATION_{len(groups) + 1}" in names:
        name = f"ACTUATION_{len(groups) + 1}"
        signals = sorted(db.get_message_by_name(name).signals, key=lambda s: s.start)
        group = []
        for sig in signals:
            mt = _IW.fullmatch(sig.name)
            if mt is None or not 1 <= int(mt.group(1)) <= joints or int(mt.group(1)) in seen:
                raise ValueError(f"{path}: {name}.{sig.name}: an actuation frame carries "
                                  f"iw_j signals of joints 1..{joints}, each in one frame")
            seen.add(int(mt.group(1)))
            group.append(int(mt.group(1)))
        groups.append(tuple(group))
    if missing := sorted(set(range(1, joints + 1)) - seen):
        raise ValueError(f"{path}: joint {missing[0]} is in no ACTUATION_k frame")
    return Layout(joints, tuple(groups))
