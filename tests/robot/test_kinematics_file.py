"""A description's [[legs]]: SPEJBL's two legs and the leg's one as the shipped gait stands,
the pot scale from the joint's servo or the board, and every error with its key path."""

import math
from pathlib import Path

import pytest

from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import AX12, HSR_5995TG
from servobus.robot.file_keys import RobotFileError
from servobus.robot.kinematics_file import pot_lsb_per_rad
from servobus.robot.robot_file import load

LEG = """
[[legs]]
name = "left"
joints = [1, 2, 3, 4, 5, 6]
zero = [512, 512, 512, 512, 532, 512]
direction = [1, 1, 1, -1, -1, 1]
"""


def error_of(tmp_path: Path, legs: str) -> str:
    """The error of SPEJBL with `legs` in place of its own, the file's name taken off."""
    path = tmp_path / "legs.toml"
    path.write_text(f'base = "spejbl"\nname = "legs"\n{legs}')
    with pytest.raises(RobotFileError) as caught:
        load(str(path))
    return str(caught.value).removeprefix(f"{path}: ")


def test_spejbls_legs_stand_where_its_gait_starts() -> None:
    left, right = load("spejbl").legs
    assert (left.name, left.joints, right.joints) == ("left", (1, 2, 3, 4, 5, 6),
                                                      (7, 8, 9, 10, 11, 12))
    first = [512, 512, 512, 512, 532, 512, 512, 512, 512, 512, 492, 512]  # gait.traj line 1
    assert [*left.zero, *right.zero] == first
    assert left.direction == right.direction == (1, 1, 1, -1, -1, 1)
    assert left.limits == ((0, 1023),) * 6
    assert load("spejbl-leg").legs == (left,)
    assert load("guroo").legs == ()


def test_the_pot_scale_is_the_servos_else_the_boards() -> None:
    assert pot_lsb_per_rad(HSR_5995TG) == pot_lsb_per_rad(None) == \
        DEFAULT_BOARD.pot_lsb_per_pi / math.pi
    assert pot_lsb_per_rad(AX12) == pytest.approx(1023 / 300 * 180 / math.pi)  # its own pot


def test_limits_are_read(tmp_path: Path) -> None:
    path = tmp_path / "legs.toml"
    path.write_text(f'base = "spejbl-leg"\nname = "legs"\n{LEG}limits = [[0, 1023], [0, 1023], '
                    "[0, 1023], [400, 900], [0, 1023], [0, 1023]]\n")
    assert load(str(path)).legs[0].limits[3] == (400, 900)


@pytest.mark.parametrize(("legs", "error"), [
    ("legs = 3", "legs: must be an array of tables ([[legs]] entries), one per leg"),
    (LEG.replace("name", "nam"), "legs[1].nam: unknown key (did you mean name?); use name, "
                                 "joints, zero, direction, limits"),
    (LEG.replace("zero = [512, 512, 512, 512, 532, 512]\n", ""),
     "legs[1].zero: missing (a leg gives joints, zero, direction; name and limits optional)"),
    (LEG.replace("[1, 2, 3, 4, 5, 6]", "[1, 2, 3, 4, 5]"),
     "legs[1].joints: must be an array of 6 values (q1..q6: hip yaw, hip roll, hip pitch, knee, "
     "ankle pitch, ankle roll), got [1, 2, 3, 4, 5]"),
    (LEG.replace("[1, 2, 3, 4, 5, 6]", "[1, 2, 3, 4, 5, 13]"),
     "legs[1].joints[6]: 13 is outside 1..12"),
    (LEG.replace("[1, 2, 3, 4, 5, 6]", "[1, 2, 3, 4, 5, 5]"),
     "legs[1].joints: [1, 2, 3, 4, 5, 5] names joint 5 twice"),
    (LEG + LEG.replace('"left"', '"right"').replace("[1, 2, 3, 4, 5, 6]", "[7, 8, 9, 10, 11, 1]"),
     "legs[2].joints: joint 1 is already in leg left"),
    (LEG + LEG, "legs[2].name: left is also an earlier leg's"),
    (LEG.replace("532", "1024"), "legs[1].zero[5]: 1024 is outside 0..1023"),
    (LEG.replace("-1, -1, 1]", "-1, 0, 1]"), "legs[1].direction[5]: 0: a direction is 1 or -1"),
    (LEG + "limits = [[0, 1023], [0, 1023], [0, 1023], [600, 900], [0, 1023], [0, 1023]]",
     "legs[1].limits[4]: [600, 900] leaves out the standing pose's 512 (zero[4])"),
    (LEG + "limits = [[0, 1023], [0, 1023], [0, 1023], [900, 600], [0, 1023], [0, 1023]]",
     "legs[1].limits[4]: [900, 600]: the lowest must be below the highest"),
    (LEG + "limits = [[0, 1023], [0, 1023], [0, 1023], 5, [0, 1023], [0, 1023]]",
     "legs[1].limits[4]: must be [lowest, highest] pot LSB, got 5"),
])
def test_every_bad_leg_names_its_key(tmp_path: Path, legs: str, error: str) -> None:
    assert error_of(tmp_path, legs) == error
