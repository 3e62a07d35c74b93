"""The compiled engines' hand-overs use the nodes' public interfaces only: no engine reads or
writes another object's private attribute, and a node's timer reaches an engine through the
node's own hook, never through a replaced method."""

import ast
from pathlib import Path

import pytest

from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.robot_file import load as load_robot

ROBOT = Path(__file__).resolve().parents[2] / "robot"


@pytest.mark.parametrize("module", sorted(p.name for p in ROBOT.glob("*.py")))
def test_no_robot_module_touches_another_objects_private_attribute(module: str) -> None:
    """The assemblies, engines and builders reach nodes through their public interfaces."""
    tree = ast.parse((ROBOT / module).read_text())
    private = [f"{node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and node.attr.startswith("_")
               and not node.attr.startswith("__")
               and not (isinstance(node.value, ast.Name) and node.value.id == "self")]
    assert private == []


def test_the_cyclic_engine_takes_the_broadcast_timer_through_its_hook() -> None:
    robot = DescribedRobot(load_robot("guroo"), DescribedConfig(engine="compiled"))
    central: object = robot.nodes["CENTRAL"]
    assert central.on_due == robot.compiled.on_broadcast  # type: ignore[attr-defined]
    assert "broadcast" not in vars(central)  # the method itself is the class's
    robot.run(0.05)
    assert robot.compiled.counts["compiled"] > 0
    assert central.broadcasts == round(0.05 / 0.002) + 1  # type: ignore[attr-defined]
