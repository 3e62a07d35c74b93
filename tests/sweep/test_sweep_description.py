"""Sweeps over robots and description keys: a `robot` option or axis (a shipped name or a file
beside the sweep file) and axes by key path (`joint.3.alpha`, `defaults.tuning`,
`nodes[8].compute`), each point's description built with them and checked before any runs."""

import dataclasses
from pathlib import Path

import pytest

from servobus.sweep.spec import SweepError, load, parse
from servobus.sweep.task import build, run_point, tasks
from servobus.tools.cmd_sweep import option_types

TYPES = option_types()


def _spec(tmp_path: Path, axes: dict, base: dict | None = None, metrics: list | None = None):
    raw = {"name": "d", "seed": 1, "metrics": metrics or ["slips"], "axes": axes,
           "base": {"robot": "spejbl-leg", **(base or {})}}
    return parse(raw, tmp_path / "sweep.toml", TYPES)


def test_an_alpha_axis_of_one_joint_changes_that_joints_tracking_only(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {"joint.3.alpha": [1.0, 20.0]})
    light, heavy = (dataclasses.replace(t, seed=7) for t in tasks(spec))
    assert heavy.point == {"joint.3.alpha": 20.0}
    reports = []
    for task in (light, heavy):
        robot, _ = build(task)
        assert [o.alpha for o in robot.joint_options] == [1.0, 1.0, task.point["joint.3.alpha"],
                                                          1.0, 1.0, 1.0]
        robot.run(1.0)
        reports.append(robot.report(0.0))
    light_rms, heavy_rms = (r["tracking_rms_lsb"] for r in reports)
    # the heavier joint 3 tracks the gait worse; its mechanically independent neighbours
    # track as before
    assert heavy_rms[2] > 1.5 * light_rms[2]
    for k in (0, 1, 3, 4, 5):
        assert heavy_rms[k] == pytest.approx(light_rms[k], rel=0.05), k


def test_robot_axis_and_node_keys(tmp_path: Path) -> None:
    (tmp_path / "slow-host.toml").write_text('base = "spejbl-leg"\nname = "slow-host"\n'
                                             '[defaults]\ntuning = "R2b"\n')
    spec = _spec(tmp_path, {"robot": ["spejbl-leg", "slow-host.toml"],
                            "nodes[8].compute": ["200us", "1ms"]}, base={"mode": "cascade"})
    assert spec.robots["slow-host.toml"] == str((tmp_path / "slow-host.toml").resolve())
    points = [t.point for t in tasks(spec)]
    assert points[3] == {"robot": "slow-host.toml", "nodes[8].compute": "1ms"}
    robot, _ = build(tasks(spec)[3])
    assert robot.description.name == "slow-host" and robot.tuning_name == "R2b"
    assert robot.description.node_keys["HOST"]["compute_ns"] == 1_000_000
    row = run_point(dataclasses.replace(tasks(spec)[0], base={**spec.base, "duration": 0.2}))
    assert row["status"] == "ok" and row["robot"] == "spejbl-leg"


def test_a_run_option_still_overrides_the_descriptions_joints(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {"defaults.tuning": ["R2", "R2b"]}, base={"tuning": "R2"})
    assert {build(t)[0].tuning_name for t in tasks(spec)} == {"R2"}
    spec = _spec(tmp_path, {"defaults.tuning": ["R2", "R2b"]})
    assert [build(t)[0].tuning_name for t in tasks(spec)] == ["R2", "R2b"]


@pytest.mark.parametrize("axes, base, message", [
    ({"joint.3.alfa": [1, 2]}, {}, r"sweep\.toml: axes\.joint\.3\.alfa: 1 \(robot 'spejbl-leg'\)"
     r": .*joint\.3\.alfa: unknown key \(did you mean alpha\?\)"),
    ({"joint.7.alpha": [1, 2]}, {}, r"sweep\.toml: axes\.joint\.7\.alpha: 1 .*joint\.7: not a "
     r"joint of this robot: 1\.\.6"),
    ({"joint.3.alpha": [1, 500]}, {}, r"sweep\.toml: axes\.joint\.3\.alpha: 500 .*500 is "
     r"outside 0\.01\.\.100"),
    ({"nodes[9].compute": ["1ms"]}, {}, r"axes\.nodes\[9\]\.compute: '1ms' .*nodes\[9\]: no "
     r"such entry: nodes has 8"),
    ({"alpha": [1, 2]}, {"defaults.preset": "hsr-9999"}, r"sweep\.toml: robot 'spejbl-leg' "
     r"with \[base\]: .*defaults\.preset: 'hsr-9999': use one of hsr-5995tg"),
    ({"alpha": [1, 2]}, {"robot": "nowhere.toml"}, r"sweep\.toml: base\.robot: 'nowhere\.toml': "
     r"no such file beside the sweep file and no shipped robot"),
    ({"robot": ["spejbl", "guroo"]}, {}, r"sweep\.toml: the point \{'robot': 'guroo'\} .*cannot "
     r"run: guroo is a cyclic robot"),
    ({"joint.3": [1]}, {}, r"axes\.joint\.3: 1 .*joint\.3: must be a table"),
])
def test_a_bad_robot_or_key_path_is_an_error_naming_the_sweep_file_and_axis(
        tmp_path: Path, axes: dict, base: dict, message: str) -> None:
    with pytest.raises(SweepError, match=message):
        _spec(tmp_path, axes, base)


def test_a_sweep_file_names_its_description_relative_to_itself(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "leg.toml").write_text('base = "spejbl-leg"\nname = "leg"\n')
    (folder / "s.toml").write_text('name = "s"\nmetrics = ["slips"]\n[base]\nrobot = "leg.toml"\n'
                                   '[axes]\n"joint.2.sensing" = ["supply-unipolar", '
                                   '"winding-bipolar"]\n')
    spec = load(str(folder / "s.toml"), TYPES)
    robots = [build(t)[0] for t in tasks(spec)]
    assert [r.joint_options[1].sensing for r in robots] == ["supply-unipolar", "winding-bipolar"]
    assert {r.description.name for r in robots} == {"leg"}


def test_an_edited_description_changes_the_sweeps_fingerprint(tmp_path: Path) -> None:
    leg = tmp_path / "leg.toml"
    leg.write_text('base = "spejbl-leg"\n')
    before = _spec(tmp_path, {"alpha": [1, 2]}, base={"robot": "leg.toml"}).fingerprint()
    leg.write_text('base = "spejbl-leg"\n[defaults]\ntuning = "R2b"\n')
    assert _spec(tmp_path, {"alpha": [1, 2]}, base={"robot": "leg.toml"}).fingerprint() != before


def test_a_preset_axis_runs_each_servo_in_its_own_mode(tmp_path: Path) -> None:
    """`defaults.preset` over the four servos: each point's joints get the preset and its mode
    (the cascade under the host's PID, the others' own local-p loops) and run without faults."""
    presets = ["hsr-5995tg", "ax-12", "nxt", "sg90"]
    spec = _spec(tmp_path, {"defaults.preset": presets}, base={"duration": 0.2},
                 metrics=["slips", "max:tracking_rms_lsb"])
    points = tasks(spec)
    assert [t.point["defaults.preset"] for t in points] == presets
    for task, mode in zip(points, ["cascade", "local-p", "local-p", "local-p"], strict=True):
        robot, _ = build(task)
        assert {(o.preset.name, o.mode) for o in robot.joint_options} == \
            {(task.point["defaults.preset"], mode)}
        row = run_point(task)
        assert row["status"] == "ok" and row["slips"] == 0, row
