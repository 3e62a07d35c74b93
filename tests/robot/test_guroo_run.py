"""`servobus run --robot guroo` as a library: the period engine's LeanBus and the reference
medium give the same log frame by frame and the same node reports; a 23-joint run is clean and
tracks; a silent board is detected; a run is deterministic."""

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.faults import FaultScriptError
from servobus.bus.log_reader import read_log
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.robot_file import load as load_robot

GUROO_FILE = load_robot("guroo")


def _run(tmp: Path, name: str, seconds: float, **config) -> tuple[dict, list]:
    log = tmp / f"{name}.log"
    robot = DescribedRobot(GUROO_FILE, DescribedConfig(log_path=str(log), **config))
    robot.run(seconds)
    frames = [(round(m.timestamp * 1e9), m.arbitration_id, bytes(m.data)) for m in read_log(log)]
    return robot.report(1.0), frames


@settings(max_examples=4)
@given(seed=st.integers(0, 2**16), loop=st.sampled_from(["2002", "2khz"]))
def test_period_engine_equals_reference_frame_by_frame(tmp_path_factory, seed: int,
                                                       loop: str) -> None:
    tmp = tmp_path_factory.mktemp("eq")
    period, frames_p = _run(tmp, "p", 0.3, seed=seed, loop=loop, engine="period")
    reference, frames_r = _run(tmp, "r", 0.3, seed=seed, loop=loop, engine="reference")
    assert period["engine"] == "period" and reference["engine"] == "reference"
    assert len(frames_p) == 75 * 20 and frames_p == frames_r  # 20 frames per 4 ms
    assert period["nodes"] == reference["nodes"]
    assert period["bus_load_pct"] == pytest.approx(reference["bus_load_pct"], abs=1e-9)


def test_a_23_joint_walk_runs_clean_and_tracks(tmp_path: Path) -> None:
    report, _ = _run(tmp_path, "walk", 2.0)
    central = report["nodes"]["CENTRAL"]
    assert central["broadcasts"] == 1001 and central["boards_announced"] == [1, 2, 3, 4, 5, 6]
    assert set(central["servo_faults"].values()) == {0} and report["rx_faults"] == 0
    assert set(central["trips_seen"].values()) == {0} and report["tx_faults"] == 0
    # the DC joints follow the walking pattern within 1 degree (hand-tuned PI, 2002 loop)
    worst = [m for m in central["tracking"]["max_deg"] if m is not None]
    assert len(worst) == 15 and max(worst) < 1.0
    # the measured load is the analysis' at-rest prediction within 3 points (moving payloads)
    assert abs(report["bus_load_pct"] - report["bus_load_predicted_pct"]) < 3.0
    servo = report["nodes"]["SERVO_BOARD"]
    assert servo["max_tracking_error_rad"] < 0.05 and servo["updates"] > 0


def test_a_silent_board_is_detected_and_runs_on_the_reference_path(tmp_path: Path) -> None:
    report, _ = _run(tmp_path, "silent", 1.0, faults=["node 3 silent at 0.5s for 100ms"])
    assert report["engine"] == "reference" and "bus-level faults" in report["engine_fallback"]
    faults = report["nodes"]["CENTRAL"]["servo_faults"]
    assert faults == {"HP_1": 0, "HP_2": 0, "HP_3": 1, "HP_4": 0, "HP_5": 0, "SERVO_BOARD": 0}
    quiet, _ = _run(tmp_path, "short", 1.0, faults=["node 3 silent at 0.5s for 8ms"])
    assert set(quiet["nodes"]["CENTRAL"]["servo_faults"].values()) == {0}  # < 3 feedbacks


def test_same_seed_same_log_and_a_bad_board_is_an_error(tmp_path: Path) -> None:
    first, frames = _run(tmp_path, "a", 0.2, seed=7)
    again, frames_again = _run(tmp_path, "b", 0.2, seed=7)
    assert frames == frames_again and first["nodes"] == again["nodes"]
    with pytest.raises(FaultScriptError, match=r"guroo has boards 1\.\.6, not 9"):
        DescribedRobot(GUROO_FILE, DescribedConfig(faults=["node 9 silent at 1s"]))
    with pytest.raises(ValueError, match="engine compiled: bus-level faults"):
        DescribedRobot(GUROO_FILE, DescribedConfig(engine="compiled",
                                                   faults=["node 3 silent at 1s"]))
    with pytest.raises(ValueError, match="loop"):
        DescribedRobot(GUROO_FILE, DescribedConfig(loop="1khz"))


def test_seeds_change_the_high_power_boards_frames_and_readings(tmp_path: Path) -> None:
    """The seed drives each board's power-up phase and analog noise: two seeds give different
    FEEDBACK_1..5 frames (not only the servo board's), and different bus-voltage readings."""
    five, frames_five = _run(tmp_path, "five", 0.2, seed=5)
    six, frames_six = _run(tmp_path, "six", 0.2, seed=6)
    feedback = range(64, 69)  # FEEDBACK_1..5
    assert [f for f in frames_five if f[1] in feedback] != [f for f in frames_six
                                                             if f[1] in feedback]
    readings = [[run["nodes"][f"HP_{b}"]["bus_voltage_mv"] for b in range(1, 6)]
                for run in (five, six)]
    assert readings[0] != readings[1]


def test_realtime_paces_the_run_to_wall_time(tmp_path: Path) -> None:
    """--realtime 4: 0.2 simulated s take at least 50 ms of wall time (a loaded machine can only
    make it later), with the same frames as an unpaced run."""
    start = time.perf_counter()
    paced, frames = _run(tmp_path, "paced", 0.2, realtime_factor=4.0)
    assert time.perf_counter() - start >= 0.2 / 4 - 0.002
    unpaced, frames_unpaced = _run(tmp_path, "unpaced", 0.2)
    assert len(frames) == 50 * 20 and frames == frames_unpaced
    assert paced["nodes"] == unpaced["nodes"]
