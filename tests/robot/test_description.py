"""The shipped descriptions agree with their schemas: every node the description builds is a node
of the DBC and every DBC node is built, every message is sent by a described node, joints 1..N
are each on one node, and each GuRoo board receives the set-points of its own joints."""

import re

import pytest

from servobus.bus.schema import Schema
from servobus.robot.robot_file import load, shipped


@pytest.mark.parametrize("name", shipped())
def test_described_nodes_are_the_schemas_nodes(name: str) -> None:
    robot = load(name)
    db = Schema(robot.dbc, required=()).db
    assert {n.name for n in robot.nodes} == {n.name for n in db.nodes}
    assert {s for m in db.messages for s in m.senders} <= {n.name for n in robot.nodes}
    joints = sorted(j for n in robot.nodes for j in n.joints)
    assert joints == list(range(1, len(robot.joints) + 1))


def test_guroo_boards_receive_the_set_points_of_their_own_joints() -> None:
    robot = load("guroo")
    db = Schema(robot.dbc, required=()).db
    for spec in robot.nodes:
        named = {int(mt.group(1)) for m in db.messages for s in m.signals
                 if spec.name in s.receivers and (mt := re.fullmatch(r"[wp]_(\d+)", s.name))}
        assert named == set(spec.joints), spec.name
