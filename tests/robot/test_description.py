"""The robot descriptions agree with their schemas: every node the description builds is a node
of the DBC, every DBC node is built, every message is sent by a described node, and each board
carries the joints its messages name."""

import re

import pytest

from servobus.robot.description import GUROO, ROBOTS, SPEJBL


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_described_nodes_are_the_schemas_nodes(name: str) -> None:
    description = ROBOTS[name]
    db = description.schema().db
    assert {n.name for n in description.nodes} == {n.name for n in db.nodes}
    assert {s for m in db.messages for s in m.senders} <= {n.name for n in description.nodes}
    joints = sorted(j for n in description.nodes for j in n.joints)
    assert joints == list(range(1, description.joints + 1))


def test_guroo_boards_receive_the_set_points_of_their_own_joints() -> None:
    db = GUROO.schema().db
    for spec in GUROO.nodes:
        named = {int(mt.group(1)) for m in db.messages for s in m.signals
                 if spec.name in s.receivers and (mt := re.fullmatch(r"[wp]_(\d+)", s.name))}
        assert named == set(spec.joints), spec.name
    assert [n.board for n in GUROO.nodes if n.joints] == [1, 2, 3, 4, 5, 6]
    assert GUROO.joints == 23 and GUROO.period_ns == 2_000_000
    assert SPEJBL.node(12).name == "JOINT_12"


@pytest.mark.parametrize("board", [0, 7, -1])
def test_a_board_the_robot_does_not_have_is_an_error(board: int) -> None:
    with pytest.raises(ValueError, match=r"guroo has boards 1\.\.6"):
        GUROO.node(board)
