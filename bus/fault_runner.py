"""Apply fault scripts to a simulated bus: frame rules into the plan, node faults as events."""

from collections.abc import Collection, Iterable

import can

from servobus.bus.controller import Controller
from servobus.bus.faults import (
    FaultPlan,
    FaultScriptError,
    FrameFault,
    NodeFault,
    check_before_end,
    parse_fault,
)
from servobus.bus.medium import Medium
from servobus.bus.scheduler import BUS


def apply_node_fault(medium: Medium, fault: NodeFault) -> None:
    """Schedule one silence / babble / late fault on the medium's environment."""
    env = medium.env
    if fault.kind == "babble":
        _babble(medium, fault)
        return
    assert fault.node is not None
    ctrl = _node(medium, fault.node)
    if fault.kind == "silence":
        def silence() -> None:
            ctrl.silenced = True

        def speak() -> None:
            ctrl.silenced = False
            medium.wake(env.now)

        env.schedule(fault.at_ns, silence, BUS)
        if fault.duration_ns is not None:
            env.schedule(fault.at_ns + fault.duration_ns, speak, BUS)
    elif fault.kind == "late":
        def late() -> None:
            ctrl.tx_delay_ns = fault.delay_ns

        env.schedule(fault.at_ns, late, BUS)


def _babble(medium: Medium, fault: NodeFault) -> None:
    """A node that keeps an 8-byte frame with the fault's ID queued from at to at + duration."""
    assert fault.can_id is not None and fault.duration_ns is not None
    env = medium.env
    end = fault.at_ns + fault.duration_ns
    ctrl = medium.attach(f"BABBLER_0x{fault.can_id:X}_{fault.at_ns}", deliver=None)
    frame = can.Message(arbitration_id=fault.can_id, data=bytes(8), is_extended_id=False)

    def again(_: can.Message) -> None:
        if env.now < end:
            medium.submit(ctrl, frame)

    def start() -> None:
        ctrl.on_sent = again
        medium.submit(ctrl, frame)

    env.schedule(fault.at_ns, start, BUS)


def apply_script(medium: Medium, lines: Iterable[str], ids: Collection[int] | None = None,
                 period_ns: int | None = None, end_ns: int | None = None
                 ) -> list[FrameFault | NodeFault | float]:
    """Parse and apply fault lines; return what was applied (for reports).  With `ids` (the
    IDs the nodes send), `period_ns` (the tick period) and `end_ns` (the run's end), a fault
    that could never take effect (a frame rule on an ID nobody sends, a node delayed by more
    than a period, a time at or after the end) is an error."""
    applied: list[FrameFault | NodeFault | float] = []
    plan: FaultPlan = medium.faults
    for line in lines:
        fault = parse_fault(line)
        try:
            _check(medium, fault, ids, period_ns)
            if isinstance(fault, FrameFault):
                plan.rules.append(fault)
            elif isinstance(fault, NodeFault):
                apply_node_fault(medium, fault)
            else:
                plan.corrupt_probability = fault
            if isinstance(fault, FrameFault | NodeFault):  # last: what is wrong besides first
                check_before_end(fault.after_ns if isinstance(fault, FrameFault)
                                 else fault.at_ns, end_ns)
        except FaultScriptError as err:
            raise FaultScriptError(f"fault {line.strip()!r}: {err}") from err
        applied.append(fault)
    return applied


def _check(medium: Medium, fault: FrameFault | NodeFault | float, ids: Collection[int] | None,
           period_ns: int | None) -> None:
    """FaultScriptError for a parsed fault this bus cannot act on."""
    if isinstance(fault, FrameFault):
        if ids is not None and fault.can_id is not None and fault.can_id not in ids:
            known = ", ".join(f"0x{i:03X}" for i in sorted(ids))
            raise FaultScriptError(f"no node sends CAN ID 0x{fault.can_id:03X} (sent: {known})")
        if fault.sender is not None:
            _node(medium, fault.sender)
    elif isinstance(fault, NodeFault) and fault.kind == "late" and period_ns is not None \
            and fault.delay_ns >= period_ns:
        raise FaultScriptError(f"a delay of {fault.delay_ns / 1e6:g} ms is not shorter than "
                               f"the {period_ns / 1e6:g} ms period")


def _node(medium: Medium, name: str) -> Controller:
    """The controller of node `name`; FaultScriptError listing the nodes if there is none."""
    try:
        return medium.controller(name)
    except KeyError as err:
        names = ", ".join(c.name for c in medium.controllers)
        raise FaultScriptError(f"unknown node {name!r} (nodes: {names})") from err
