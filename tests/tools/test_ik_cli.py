"""`servobus ik`: a foot pose in, every joint solution out, each checked by forward kinematics;
the angles a pose was made from are among them; a pose beyond reach is an `error:`."""

import json
import math

import numpy as np
import pytest

from servobus.host.leg_kinematics import forward
from servobus.tools.cli import main


def _solutions(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    assert main(["ik", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["solutions"]


def test_the_angles_a_pose_came_from_are_a_solution(capsys: pytest.CaptureFixture[str]) -> None:
    q = (0.4, -1.1, 0.6, 1.3, -0.5, 0.9)
    pose = forward(q)
    r, p = pose[:3, :3], pose[:3, 3] * 1e3
    rpy = (math.atan2(r[2, 1], r[2, 2]), math.asin(-r[2, 0]), math.atan2(r[1, 0], r[0, 0]))
    rows = _solutions(capsys, *(repr(float(x)) for x in p), "--rpy",
                      *(repr(math.degrees(a)) for a in rpy))
    assert len(rows) == 8
    assert all(row["residual_mm"] < 1e-9 and row["residual_rotation"] < 1e-9 for row in rows)
    found = [[row[f"q{k}_deg"] for k in range(1, 7)] for row in rows]
    assert min(np.abs(np.array(f) - np.degrees(q)).max() for f in found) < 1e-5


def test_the_straight_leg(capsys: pytest.CaptureFixture[str]) -> None:
    """Every angle 0 stretches the leg 240 mm along x with the foot frame Rx(-90 deg) of the
    pelvis (worked by hand from the D-H table); the hip is upright there: its free angle is 0."""
    rows = _solutions(capsys, "240", "0", "0", "--rpy", "-90", "0", "0")
    assert [0.0] * 6 in [[row[f"q{k}_deg"] for k in range(1, 7)] for row in rows]


def test_a_foot_beyond_reach_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ik", "200", "150", "0"]) == 2
    assert capsys.readouterr().err == "error: the foot is 250.0 mm from the hip, beyond the " \
                                      "leg's 240.0 mm\n"
