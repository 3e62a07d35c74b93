"""The node-kind registry agrees with the code it describes: the choices and defaults of today's
`servobus run`, and the messages each node of the shipped robots sends by their DBCs."""

from typing import get_args

import cantools

from servobus.host.tunings import TUNINGS
from servobus.plant.build import PlantKind
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.node_kinds import PLANTS, sent_by
from servobus.robot.robot_file import load


def test_the_choices_are_the_codes() -> None:
    assert get_args(PlantKind) == PLANTS


def test_the_joint_defaults_are_spejbls_run_defaults() -> None:
    """The registry's joint defaults are the thesis robot's (SPEC 1, 4.2): the HSR-5995TG in
    cascade mode, the as-built supply-unipolar sensing, the switching plant, no extra inertia,
    the thesis' R2 tuning with soft anti-windup; its host a 200 us computation and 2-byte
    measurements."""
    robot = Robot(RobotConfig())
    for options in robot.joint_options:
        assert (options.preset.name, options.mode, options.sensing, options.plant,
                options.alpha, options.tuning.name, options.anti_windup) == \
            ("hsr-5995tg", "cascade", "supply-unipolar", "switching", 1.0, "R2", "soft")
    assert robot.host.compute_ns == 200_000 and robot.meas_bytes == 2
    assert robot.tuning_name == "R2" and robot.mode == "cascade"
    assert TUNINGS["R2"] == robot.joint_options[0].tuning


def test_each_node_sends_what_its_dbc_names_it_the_sender_of() -> None:
    for name in ("spejbl", "guroo", "spejbl-leg"):
        robot = load(name)
        db = cantools.database.load_file(str(robot.dbc))
        for node in robot.nodes:
            sends = set(sent_by(node, robot.nodes, len(robot.groups), 2)) | \
                set(sent_by(node, robot.nodes, len(robot.groups), 6))
            assert sends == {m.name for m in db.messages if node.name in m.senders}, node
