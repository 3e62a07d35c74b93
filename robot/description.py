"""One node of a robot description (``robot.robot_file``): its name on the bus, its kind
(``robot.node_kinds``), its board ID and the joints it drives; and how errors show a node's or
robot's numbers."""

from dataclasses import dataclass


@dataclass(frozen=True)
class NodeSpec:
    """One node: its name on the bus (the DBC's BU_), what it is, its board ID and joints."""

    name: str
    kind: str  # a kind of robot.node_kinds.KINDS
    board: int = 0
    joints: tuple[int, ...] = ()


def spans(numbers: list[int]) -> str:
    """Sorted joint or board numbers as a reader wants them: '1..12' when consecutive, else
    '3, 4, 9'."""
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 1:
        return f"{numbers[0]}..{numbers[-1]}"
    return ", ".join(map(str, numbers))
