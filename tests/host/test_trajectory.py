"""Trajectory files: parsing with file:line errors, interpolation, wrap, pause, scrub."""

from pathlib import Path

import numpy as np
import pytest

from servobus.host.trajectory import Player, TrajectoryError, default_gait, load, parse

LINE_A = " ".join(["100"] * 12) + " 1.0"
LINE_B = " ".join(["200"] * 12) + "\t0.5"


def test_comments_and_any_white_space() -> None:
    traj = parse(f"# header\n\n{LINE_A}\nnot a sample\n   {LINE_B}  \n")
    assert traj.poses.shape == (2, 12) and traj.durations.tolist() == [1.0, 0.5]


@pytest.mark.parametrize(("line", "message"), [
    (" ".join(["100"] * 12), "12 positions and 1 time"),
    (" ".join(["100"] * 11 + ["1024"]) + " 1", "joint 12 position 1024"),
    (" ".join(["-1"] + ["100"] * 11) + " 1", "joint 1 position -1"),
    (" ".join(["100.5"] + ["100"] * 11) + " 1", "not an integer"),
    (" ".join(["100"] * 12) + " 0", "must be positive"),
    (" ".join(["100"] * 12) + " 1 7", "12 positions and 1 time"),
])
def test_bad_sample_lines_name_file_and_line(line: str, message: str) -> None:
    with pytest.raises(TrajectoryError, match=rf"walk\.traj:3: .*{message}"):
        parse(f"# a\n{LINE_A}\n{line}\n", "walk.traj")


def test_empty_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(TrajectoryError, match="no sample lines"):
        parse("# nothing\n", "empty.traj")
    with pytest.raises(TrajectoryError, match="cannot read"):
        load(tmp_path / "missing.traj")


def test_interpolation_wraps_and_pauses_and_scrubs() -> None:
    player = Player(parse(f"{LINE_A}\n{LINE_B}\n"))
    player.advance_to(0.0)
    player.advance_to(0.25)
    assert player.position()[0] == pytest.approx(125.0)
    player.advance_to(1.25)  # 0.25 s into the second interval (200 -> back to 100 in 0.5 s)
    assert player.position()[0] == pytest.approx(150.0)
    player.advance_to(1.6)  # wrapped: 0.1 s into the first line again
    assert player.index() == 0 and player.position()[0] == pytest.approx(110.0)
    player.paused = True
    player.advance_to(5.0)
    assert player.position()[0] == pytest.approx(110.0)
    player.scrub(0.5)
    assert player.position()[0] == pytest.approx(150.0)
    for outside in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"fraction 0\.\.1"):
            player.scrub(outside)


def test_shipped_gait_round_trips_through_text() -> None:
    gait = default_gait()
    assert gait.poses.shape[1] == 12 and gait.period_s == pytest.approx(1.2)
    again = parse(gait.to_text())
    assert np.array_equal(again.poses, gait.poses)
