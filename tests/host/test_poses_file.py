"""Poses files: comments and blank lines skipped, each pose line's feet and seconds read, every
malformed line an error naming the file, the line and the field."""

from pathlib import Path

import pytest

from servobus.host.poses_file import FootPose, PosesError, load, parse

LEGS = ("left", "right")
GOOD = """\
# two legs: x y z roll pitch yaw each, then seconds
0 0 -225 0 0 0   0 0 -225 0 0 0   0.05  # standing

1.5 -2 -220 0 5 -1e1   0 0 -225 0 0 0   .1
"""


def error_of(text: str) -> str:
    with pytest.raises(PosesError) as caught:
        parse(text, "f.poses", LEGS)
    return str(caught.value)


def test_pose_lines_are_read_with_their_line_numbers() -> None:
    first, second = parse(GOOD, "f.poses", LEGS)
    assert (first.line, second.line, second.seconds) == (2, 4, 0.1)
    assert second.feet[0] == FootPose((1.5, -2.0, -220.0), (0.0, 5.0, -10.0))


def test_every_malformed_line_names_the_file_line_and_field() -> None:
    line = "0 0 -225 0 0 0   0 0 -225 0 0 0   0.05"
    assert error_of(f"{line}\n{line.replace('-225', 'O225', 1)}\n") == \
        "f.poses:2: field 3 (left z) 'O225' is not a finite number"
    assert error_of(line.replace("0.05", "inf")) == \
        "f.poses:1: field 13 (seconds) 'inf' is not a finite number"
    assert error_of(f"# c\n{line} 7\n") == \
        "f.poses:2: a pose line is x y z roll pitch yaw for each leg (left, right) and the " \
        "seconds: 13 fields, got 14"
    assert error_of(line.replace("0.05", "0")) == "f.poses:1: seconds 0 must be positive"
    assert error_of("# only comments\n\n") == "f.poses: no pose lines"


def test_an_unreadable_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(PosesError, match=r"^.*none.poses: cannot read: "):
        load(tmp_path / "none.poses", LEGS)
