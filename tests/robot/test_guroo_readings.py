"""The printed GuRoo firmware's readings as hp-board keys of a description (t1_period,
dead_band, adc_fifo, pdpint): each non-default reading loads, reaches its board's node (its
report's `readings`) and runs the same log on the compiled engine as on the reference path; a
bad value is an error naming the file and the key."""

import math
from pathlib import Path
from typing import Any

import pytest

from servobus.bus.log_reader import read_log
from servobus.firmware import guroo_memory as g
from servobus.plant import guroo_build as b
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.file_keys import RobotFileError
from servobus.robot.node_kinds import READINGS
from servobus.robot.robot_file import RobotFile, load, load_with
from servobus.sweep.spec import described

HP = range(2, 7)  # guroo.toml's hp-boards: nodes[2]..nodes[6]
OTHER = {"t1_period": "txpr", "dead_band": True, "adc_fifo": "stale",
         "pdpint": "masked-no-trip"}  # each reading the emulator did not choose


def _frames(robot_file: RobotFile, log: Path, engine: str) -> tuple[list, DescribedRobot]:
    """0.2 s of `robot_file` on `engine`: its log's frames (ns, ID, data) and the robot."""
    robot = DescribedRobot(robot_file, DescribedConfig(log_path=str(log), engine=engine, seed=3))
    robot.run(0.2)
    return [(round(m.timestamp * 1e9), m.arbitration_id, bytes(m.data))
            for m in read_log(log)], robot


def test_the_defaults_are_the_readings_the_emulator_chose() -> None:
    # docs/guroo-firmware.md's defaults: T1PR + 1 clocks, no dead band, one conversion per call,
    # PDPINT floating the outputs and latching
    chosen = {"t1_period": "txpr+1", "dead_band": False, "adc_fifo": "fresh",
              "pdpint": "hi-z-latched"}
    assert chosen == READINGS
    assert set(OTHER) == set(READINGS) and all(OTHER[k] != v for k, v in READINGS.items())
    nodes = DescribedRobot(load("guroo"), DescribedConfig(engine="period")).report(0.0)["nodes"]
    assert all(nodes[f"HP_{n}"]["readings"] == READINGS for n in range(1, 6))


@pytest.mark.parametrize("key", list(OTHER))
def test_a_non_default_reading_reaches_the_boards_and_runs_equal_on_both_engines(
        tmp_path: Path, key: str) -> None:
    robot_file = load_with("guroo", {f"nodes[{k}].{key}": OTHER[key] for k in HP})
    assert all(robot_file.node_keys[f"HP_{n}"][key] == OTHER[key] for n in range(1, 6))
    auto, robot_a = _frames(robot_file, tmp_path / "a.log", "auto")
    reference, robot_r = _frames(robot_file, tmp_path / "r.log", "reference")
    assert robot_a.engine == "compiled" and robot_r.engine == "reference"
    assert robot_a.compiled.counts["compiled"] > 50  # type: ignore[union-attr]
    report = robot_a.report(0.0)["nodes"]["HP_3"]
    assert report["readings"] == {**READINGS, key: OTHER[key]}
    rig = robot_a.nodes["HP_3"].rig  # type: ignore[attr-defined]
    # t1_period and dead_band change the walk's frames within 0.2 s; adc_fifo and pdpint not
    # (no current check, no trip in its first 0.2 s): their ROM word and trip threshold are the
    # reading's (tests/plant/test_guroo_rig.py: what they change)
    if key == "t1_period":
        assert report["pwm_period_ns"] == 10_000
    if key == "dead_band":
        assert rig.params[b.DEAD_FRAC] > 0
    if key == "adc_fifo":
        assert rig.rom[g.R_ADC_STALE] == 1
    if key == "pdpint":
        assert rig.params[b.TRIP_A] == math.inf
    assert len(auto) > 500 and auto == reference


def test_boards_of_different_timer_periods_run_period_by_period(tmp_path: Path) -> None:
    robot_file = load_with("guroo", {"nodes[2].t1_period": "txpr"})
    auto, robot_a = _frames(robot_file, tmp_path / "a.log", "auto")
    reference, _ = _frames(robot_file, tmp_path / "r.log", "reference")
    assert robot_a.engine == "period"
    assert robot_a.engine_fallback == "high-power boards whose PWM periods differ"
    nodes = robot_a.report(0.0)["nodes"]
    assert (nodes["HP_1"]["pwm_period_ns"], nodes["HP_2"]["pwm_period_ns"]) == (10_000, 10_050)
    assert auto == reference


def test_a_base_variant_with_a_sweep_key_path_runs_its_reading(tmp_path: Path) -> None:
    """A description built on guroo (`base`), a reading set by key path as a sweep's point
    sets it (sweep.spec.described: load_with, then checked against the DBC)."""
    (tmp_path / "stale.toml").write_text('base = "guroo"\nname = "guroo-stale"\n')
    robot_file = described({}, str(tmp_path / "stale.toml"), {"nodes[4].adc_fifo": "stale"})
    assert robot_file.name == "guroo-stale"
    robot = DescribedRobot(robot_file, DescribedConfig())
    robot.run(0.2)
    nodes = robot.report(0.0)["nodes"]
    assert nodes["HP_3"]["readings"]["adc_fifo"] == "stale"
    assert {nodes[f"HP_{n}"]["readings"]["adc_fifo"] for n in (1, 2, 4, 5)} == {"fresh"}
    assert nodes["HP_3"]["loops_run"] > 40


def test_readings_written_in_a_file_load(tmp_path: Path) -> None:
    path = tmp_path / "arm.toml"
    path.write_text('base = "guroo-arm"\nname = "arm"\nnodes = [\n'
                    '  { kind = "central", name = "CENTRAL" },\n'
                    '  { kind = "hp-board", name = "HP_1", id = 1, joints = [1, 2, 3], '
                    't1_period = "txpr", dead_band = true, adc_fifo = "stale", '
                    'pdpint = "masked-no-trip" },\n'
                    '  { kind = "hp-board", name = "HP_2", id = 2, joints = [4, 5, 6], '
                    'loop = "2khz" },\n'
                    '  { kind = "servo-board", name = "SERVO_BOARD", id = 3, joints = [7, 8] },\n'
                    ']\n')
    keys = load(str(path)).node_keys
    assert keys["HP_1"] == {"loop": "2002", **OTHER}
    assert keys["HP_2"] == {"loop": "2khz", **READINGS}


@pytest.mark.parametrize("key, value, message", [
    ("t1_period", "txpr+2", r"nodes\[3\]\.t1_period: 'txpr\+2': use one of txpr\+1, txpr$"),
    ("t1_period", 200, r"nodes\[3\]\.t1_period: 200: use one of txpr\+1, txpr$"),
    ("dead_band", "yes", r"nodes\[3\]\.dead_band: must be true or false, got 'yes'$"),
    ("dead_band", 1, r"nodes\[3\]\.dead_band: must be true or false, got 1$"),
    ("adc_fifo", "old", r"nodes\[3\]\.adc_fifo: 'old': use one of fresh, stale$"),
    ("pdpint", "off", r"nodes\[3\]\.pdpint: 'off': use one of hi-z-latched, masked-no-trip$"),
])
def test_a_bad_reading_is_an_error_naming_file_and_key(key: str, value: Any,
                                                        message: str) -> None:
    with pytest.raises(RobotFileError, match=r"^\S*robots/guroo\.toml: " + message):
        load_with("guroo", {f"nodes[3].{key}": value})


def test_a_reading_on_another_kind_is_refused() -> None:
    with pytest.raises(RobotFileError, match=r"nodes\[7\]\.pdpint: a servo-board takes no "
                                             r"pdpint; its keys: kind, name, id, joints$"):
        load_with("guroo", {"nodes[7].pdpint": "masked-no-trip"})
