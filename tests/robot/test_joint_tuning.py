"""`identify --write-tunings`: the tuning designed from an identification goes into a
description of the user's own (a [joint.N] table, or a new file built on the robot), loads back
as that joint's gains and runs; the installed package and shipped robots are never written."""

import json
from pathlib import Path

import pytest

from servobus.host.tunings import DEFAULT_ROBOT_KP, THESIS_TUNINGS
from servobus.robot import joint_tuning
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.joint_options import Gains
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import load, shipped_file
from servobus.tools.cli import main

F = 250.0  # spejbl-leg's 4 ms period


def _result(joint: int, kp: float, q: float) -> dict:
    """An identification result as `identify` reports it (the fields the writer reads)."""
    return {"settings": {"joint": joint, "method": "chirp", "seconds": 30.0, "seed": 0,
                         "alpha": 1.0, "sensing": "supply-unipolar"},
            "kp": kp, "q": q, "std_error": {"kp": 0.02, "q": 0.007}}


def _designed_gains(kp: float, q: float) -> Gains:
    """The gains of the design rule's tuning on P(z) = kp / (z (z - 1) (z - q)): r_P = K,
    r_I = K w_I / f, r_D = K f / w_D with K = (K K_P) / K_P (SPEC 4.2)."""
    tuning, _ = joint_tuning.designed_for(kp, q, F)
    k = tuning.k_kp / kp
    return Gains(k, k * tuning.omega_i / F, k * F / tuning.omega_d)


def _leg(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "my-leg.toml"
    path.write_text(f'base = "spejbl-leg"\nname = "my-leg"\n{extra}')
    return path


def test_the_designed_tuning_is_written_into_the_users_description_and_runs(
        tmp_path: Path) -> None:
    path = _leg(tmp_path, "\n[joint.3]  # the hip pitch\nalpha = 2.0\n")
    robot = load(str(path))
    written = joint_tuning.write(_result(3, 0.5, 0.8), robot, "", F)
    assert written == str(path)
    text = path.read_text()
    assert text.count("[joint.3]") == 1 and "# the hip pitch" in text and "alpha = 2.0" in text
    again = checked(str(path))
    expected = _designed_gains(0.5, 0.8)
    assert again.joints[2].options is not None
    assert again.joints[2].options.tuning == expected and again.joints[2].options.alpha == 2.0
    run = Robot(RobotConfig(robot=str(path), duration_s=0.2))
    run.run(0.2)
    report = run.report(0.0)
    assert report["tuning"] == "per-joint"
    detail = report["tuning_detail"]
    assert detail["JOINT_3"] == pytest.approx({"r_p": expected.r_p, "r_i": expected.r_i,
                                               "r_d": expected.r_d}, rel=1e-15)
    # the other joints keep the description's R2, scaled by the default robot's K_P
    assert detail["JOINT_1"]["r_p"] == pytest.approx(THESIS_TUNINGS["R2"].k_kp / DEFAULT_ROBOT_KP)
    # identifying again replaces the tuning and its comment, keeps the rest
    joint_tuning.write(_result(3, 0.9, 0.7), robot, "", F)
    text = path.read_text()
    assert text.count("tuning =") == 1 and text.count("# identify: joint 3") == 1
    assert "alpha = 2.0" in text
    assert checked(str(path)).joints[2].options.tuning == _designed_gains(0.9, 0.7)  # type: ignore[union-attr]


def test_a_new_file_is_a_description_built_on_the_robot(tmp_path: Path) -> None:
    robot = load("spejbl-leg")
    target = tmp_path / "sub" / "tuned.toml"
    target.parent.mkdir()
    joint_tuning.write(_result(2, 0.7, 0.75), robot, str(target), F)
    assert 'base = "spejbl-leg"' in target.read_text()
    tuned = checked(str(target))
    assert tuned.name == "spejbl-leg" and len(tuned.joints) == 6
    assert tuned.joints[1].options.tuning == _designed_gains(0.7, 0.75)  # type: ignore[union-attr]
    assert tuned.joints[0].options.tuning == THESIS_TUNINGS["R2"]  # type: ignore[union-attr]
    # a second joint goes into the same file; one built on a user's file names it relatively
    joint_tuning.write(_result(5, 0.6, 0.7), tuned, "", F)
    assert checked(str(target)).joints[4].options.tuning == _designed_gains(0.6, 0.7)  # type: ignore[union-attr]
    mine = _leg(tmp_path)
    joint_tuning.write(_result(1, 0.6, 0.7), load(str(mine)), str(target.parent / "on.toml"), F)
    assert 'base = "../my-leg.toml"' in (target.parent / "on.toml").read_text()
    assert checked(str(target.parent / "on.toml")).name == "my-leg"


def test_shipped_robots_and_the_package_are_never_written(tmp_path: Path) -> None:
    spejbl = load("spejbl")
    with pytest.raises(joint_tuning.TuningTargetError, match="spejbl is a shipped robot"):
        joint_tuning.write(_result(1, 0.5, 0.8), spejbl, "", F)
    inside = shipped_file("mine.toml")
    with pytest.raises(joint_tuning.TuningTargetError, match="inside the installed servobus"):
        joint_tuning.write(_result(1, 0.5, 0.8), spejbl, str(inside), F)
    assert not inside.exists()
    before = shipped_file("spejbl.toml").read_text()
    with pytest.raises(joint_tuning.TuningTargetError, match="inside the installed servobus"):
        joint_tuning.write(_result(1, 0.5, 0.8), spejbl, str(shipped_file("spejbl.toml")), F)
    assert shipped_file("spejbl.toml").read_text() == before


def test_a_file_that_cannot_take_the_table_is_left_as_it_was(tmp_path: Path) -> None:
    path = _leg(tmp_path, "joint.4.alpha = 3.0\n")  # joint 4 given by dotted keys
    text = path.read_text()
    with pytest.raises(joint_tuning.TuningTargetError,
                       match=r"my-leg\.toml: the tuning of joint 4 cannot be written there"):
        joint_tuning.write(_result(4, 0.5, 0.8), load(str(path)), "", F)
    assert path.read_text() == text and sorted(p.name for p in tmp_path.iterdir()) == [
        "my-leg.toml"]


def test_identify_cli_writes_the_tuning_of_the_experiment(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # winding-bipolar: the open-loop step moves the shaft far enough for a fit (0.4 s)
    path = _leg(tmp_path)
    assert main(["identify", "--robot", str(path), "--joint", "6", "--method", "step",
                 "--sensing", "winding-bipolar", "--write-tunings", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["written"] == str(path) and out["settings"]["robot"] == str(path)
    tuned = checked(str(path)).joints[5].options
    assert tuned is not None and tuned.tuning == _designed_gains(out["kp"], out["q"])
    assert main(["identify", "--joint", "1", "--write-tunings"]) == 2
    assert "spejbl is a shipped robot" in capsys.readouterr().err
    assert main(["identify", "--robot", str(path), "--joint", "7"]) == 2
    assert "--joint must be 1..6 (the joints of my-leg)" in capsys.readouterr().err


@pytest.mark.parametrize(("new", "says"), [
    (["--joints", "12", "--period", "10ms"], "its period 10 ms is not spejbl's 4 ms"),
    (["--joints", "2"], "other has no servo joint 3"),
])
def test_gains_go_only_where_they_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      new: list[str], says: str) -> None:
    """Gains are per sample and per servo: another period or a missing joint is refused
    before the experiment runs (the file stays as it was)."""
    assert main(["robot", "new", "other", *new, "--out", str(tmp_path)]) == 0
    other = tmp_path / "other.toml"
    before = other.read_text()
    capsys.readouterr()
    assert main(["identify", "--joint", "3", "--write-tunings", str(other)]) == 2
    assert says in capsys.readouterr().err and other.read_text() == before
