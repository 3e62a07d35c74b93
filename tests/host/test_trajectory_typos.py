"""Trajectory lines with a typo are errors naming file, line and field, never comments."""

from pathlib import Path

import pytest

from servobus.host.trajectory import TrajectoryError, parse
from servobus.tools.cli import main

POSE = ["512"] * 12


@pytest.mark.parametrize(("fields", "message"), [
    (["O600", *POSE[1:], "0.05"], r"walk\.traj:2: field 1 \(joint 1 position\) 'O600' is not"),
    ([*POSE[:5], "5l2", *POSE[6:], "0.05"], r"walk\.traj:2: field 6 \(joint 6 position\) '5l2'"),
    ([*POSE, "0.O5"], r"walk\.traj:2: field 13 \(time\) '0\.O5' is not a number"),
    ([*POSE, "nan"], r"field 13 \(time\) 'nan' is not a number"),
    (["x", *POSE[1:]], r"field 1 \(joint 1 position\) 'x'"),
    ([*POSE, "0.05", "\x1b[2J"], r"field 14 \(extra\) '\\x1b\[2J' is not a number"),
])
def test_a_typo_in_a_sample_names_the_field(fields: list[str], message: str) -> None:
    with pytest.raises(TrajectoryError, match=message):
        parse("# walk\n" + " ".join(fields) + "\n" + " ".join(POSE) + " 0.05\n", "walk.traj")


def test_prose_and_hash_lines_stay_comments() -> None:
    traj = parse("# 512 512 512 512 512 512 512 512 512 512 512 512 1\n"
                 "step 2 of the gait, hold for 1 s\n" + " ".join(POSE) + " 0.05\n")
    assert traj.poses.tolist() == [[512.0] * 12] and traj.durations.tolist() == [0.05]


def test_run_with_a_typo_in_the_trajectory_is_an_error(capsys, tmp_path: Path) -> None:
    path = tmp_path / "typo.traj"
    path.write_text(" ".join(POSE) + " 0.05\nO600 " + " ".join(POSE[1:]) + " 0.05\n")
    assert main(["run", "--duration", "0.01", "--trajectory", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {path}:2: field 1 (joint 1 position) 'O600' is not a number " \
                  "(a sample is 12 positions and 1 time)\n"
