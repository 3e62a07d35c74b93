"""The node-kind registry agrees with the code it describes: the choices and defaults of today's
`servobus run`, and the messages each node of the shipped robots sends by their DBCs."""

from typing import get_args

import cantools

from servobus.plant.build import PlantKind
from servobus.presets.servos import SERVOS
from servobus.robot.assembly import BOARD_MODES, RobotConfig
from servobus.robot.node_kinds import JOINT_OPTIONS, MODES, PLANTS, sent_by
from servobus.robot.robot_file import load


def test_the_choices_are_the_codes() -> None:
    assert tuple(BOARD_MODES) == MODES
    assert get_args(PlantKind) == PLANTS


def test_the_joint_defaults_are_todays_run_defaults() -> None:
    config = RobotConfig()
    assert {key: JOINT_OPTIONS[key] for key in ("mode", "sensing", "plant", "tuning",
                                                "anti_windup")} == \
        {"mode": config.mode, "sensing": config.sensing, "plant": config.plant,
         "tuning": config.tuning, "anti_windup": config.anti_windup}
    assert JOINT_OPTIONS["alpha"] == config.alphas[0] and JOINT_OPTIONS["preset"] in SERVOS
    spejbl = load("spejbl")
    assert spejbl.node_keys["HOST"]["compute_ns"] == config.compute_ns
    assert spejbl.meas_bytes == config.meas_bytes


def test_each_node_sends_what_its_dbc_names_it_the_sender_of() -> None:
    for name in ("spejbl", "guroo", "spejbl-leg"):
        robot = load(name)
        db = cantools.database.load_file(str(robot.dbc))
        for node in robot.nodes:
            sends = set(sent_by(node, robot.nodes, len(robot.groups), 2)) | \
                set(sent_by(node, robot.nodes, len(robot.groups), 6))
            assert sends == {m.name for m in db.messages if node.name in m.senders}, node
