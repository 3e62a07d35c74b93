"""One node of a robot description (``robot.robot_file``): its name on the bus, its kind
(``robot.node_kinds``), its board ID and the joints it drives."""

from dataclasses import dataclass


@dataclass(frozen=True)
class NodeSpec:
    """One node: its name on the bus (the DBC's BU_), what it is, its board ID and joints."""

    name: str
    kind: str  # a kind of robot.node_kinds.KINDS
    board: int = 0
    joints: tuple[int, ...] = ()
