"""Apply fault scripts to a simulated bus: frame rules into the plan, node faults as events."""

from collections.abc import Iterable

import can

from servobus.bus.controller import check_frame
from servobus.bus.faults import FaultPlan, FaultScriptError, FrameFault, NodeFault, parse_fault
from servobus.bus.medium import Medium
from servobus.bus.scheduler import BUS


def apply_node_fault(medium: Medium, fault: NodeFault) -> None:
    """Schedule one silence / babble / late fault on the medium's environment."""
    env = medium.env
    if fault.kind == "babble":
        _babble(medium, fault)
        return
    assert fault.node is not None
    try:
        ctrl = medium.controller(fault.node)
    except KeyError as err:
        names = ", ".join(c.name for c in medium.controllers)
        raise FaultScriptError(f"fault names unknown node {fault.node!r} (nodes: {names})") \
            from err
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
    check_frame(frame)  # refused now, not when the babbler starts

    def again(_: can.Message) -> None:
        if env.now < end:
            medium.submit(ctrl, frame)

    def start() -> None:
        ctrl.on_sent = again
        medium.submit(ctrl, frame)

    env.schedule(fault.at_ns, start, BUS)


def apply_script(medium: Medium, lines: Iterable[str]) -> list[FrameFault | NodeFault | float]:
    """Parse and apply fault lines; return what was applied (for reports)."""
    applied: list[FrameFault | NodeFault | float] = []
    plan: FaultPlan = medium.faults
    for line in lines:
        fault = parse_fault(line)
        if isinstance(fault, FrameFault):
            plan.rules.append(fault)
        elif isinstance(fault, NodeFault):
            apply_node_fault(medium, fault)
        else:
            plan.corrupt_probability = fault
        applied.append(fault)
    return applied
