"""GuRoo's mailbox 2 on a bus of the robot's nodes as ``servobus emulate`` builds them: a tool's
remote frame is answered by the board with the printed words, the central passes over the
request (it polls none: FEEDBACK_b is its supervision), and the period engine carries no remote
frame at all, so a run never sees one."""

import can
import pytest

from servobus.bus.controller import InvalidFrame
from servobus.bus.medium import Medium
from servobus.bus.node import attach_sim
from servobus.bus.period_engine import LeanBus
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema
from servobus.bus.sim_interface import SimBus
from servobus.robot.engine_run import NodeBus
from servobus.robot.node_build import NodeOptions, real_bus_nodes
from servobus.robot.robot_file import load


def test_a_remote_frame_gets_board_3s_mailbox_2_and_the_central_passes_over_it() -> None:
    robot = load("guroo")
    central, board = real_bus_nodes(robot, ["CENTRAL", "HP_3"], NodeOptions())
    schema = Schema(robot.dbc, required=("MBX2_3",))
    mbx2 = schema.message("MBX2_3").frame_id
    medium = Medium(Environment(), robot.bitrate)
    tool = SimBus(channel="TOOL", medium=medium)
    tool.set_filters([{"can_id": mbx2, "can_mask": 0x7FF, "extended": False}])
    for node in (central, board):
        attach_sim(node, medium)
    medium.env.call_at(10_100_000, lambda: tool.send(can.Message(
        arbitration_id=mbx2, is_extended_id=False, is_remote_frame=True, dlc=8)))
    medium.env.run(until=12_000_000)
    reply = tool.recv(0)
    assert reply is not None and not reply.is_remote_frame and tool.recv(0) is None
    assert reply.arbitration_id == 0x033 and bytes(reply.data) == bytes.fromhex(
        "23 01 67 45 AB 89 EF CD")
    assert central.report()["rx_faults"] == 0 and board.rx_faults == 0


def test_the_period_engine_carries_no_remote_frame() -> None:
    schema = Schema(load("guroo").dbc, required=("MBX2_3",))
    lean = LeanBus(Environment(), schema.bit_timing, schema.fd_ids)
    with pytest.raises(InvalidFrame, match="standard data frames"):
        NodeBus(lean, 0).send(can.Message(arbitration_id=schema.message("MBX2_3").frame_id,
                                          is_extended_id=False, is_remote_frame=True, dlc=8))
