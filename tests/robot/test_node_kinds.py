"""The node-kind registry agrees with the code it describes: the choices and defaults of today's
`servobus run`, and the messages each node of the shipped robots sends by their DBCs."""

from typing import get_args

import cantools

from servobus.host.tunings import TUNINGS
from servobus.plant.build import PlantKind
from servobus.presets.servos import SERVOS
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.joint_setup import BOARD_MODES
from servobus.robot.node_kinds import JOINT_OPTIONS, MODES, PLANTS, sent_by
from servobus.robot.robot_file import load


def test_the_choices_are_the_codes() -> None:
    assert tuple(BOARD_MODES) == MODES
    assert get_args(PlantKind) == PLANTS


def test_the_joint_defaults_are_spejbls_run_defaults() -> None:
    """The registry's joint defaults are the options `servobus run` gives SPEJBL's joints (the
    thesis robot: cascade, supply-unipolar sensing, switching plant, R2, soft anti-windup),
    its host a 200 us computation and 2-byte measurements."""
    robot = Robot(RobotConfig())
    for options in robot.joint_options:
        assert {key: getattr(options, key) for key in ("mode", "sensing", "plant",
                                                       "anti_windup", "alpha")} == \
            {key: JOINT_OPTIONS[key] for key in ("mode", "sensing", "plant", "anti_windup",
                                                 "alpha")}
        assert options.tuning == TUNINGS[JOINT_OPTIONS["tuning"]]
        assert options.preset == SERVOS[JOINT_OPTIONS["preset"]]
    assert robot.host.compute_ns == 200_000 and robot.meas_bytes == 2
    assert robot.tuning_name == "R2" and robot.mode == "cascade"


def test_each_node_sends_what_its_dbc_names_it_the_sender_of() -> None:
    for name in ("spejbl", "guroo", "spejbl-leg"):
        robot = load(name)
        db = cantools.database.load_file(str(robot.dbc))
        for node in robot.nodes:
            sends = set(sent_by(node, robot.nodes, len(robot.groups), 2)) | \
                set(sent_by(node, robot.nodes, len(robot.groups), 6))
            assert sends == {m.name for m in db.messages if node.name in m.senders}, node
