"""`servobus run`, `identify`, `analyze position-loop`, `record` and the real-bus node commands."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from servobus.bus.remote_server import serve_in_thread
from servobus.firmware import memory as m
from servobus.host.trajectory import load
from servobus.host.tunings import DEFAULT_ROBOT_KP, TUNINGS
from servobus.robot.assembly import Robot, RobotConfig
from servobus.tools.cli import main


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_run_json_has_the_report_keys(capsys, tmp_path: Path) -> None:
    png, log = tmp_path / "run.png", tmp_path / "run.log"
    out = _json(capsys, ["run", "--duration", "0.4", "--json", "--plot", str(png), "--log",
                         str(log), "--alpha", "2", "--fault", "node 5 silent at 0.2s"])
    assert {"sim_time_s", "wall_time_s", "rtf", "ticks", "slips", "servo_faults",
            "bus_load_pct", "bus_load_predicted_pct", "host_window_measured_s", "deadline_misses",
            "tracking_rms_lsb", "tracking_max_lsb", "current_limit_events", "trips"} <= out.keys()
    assert len(out["tracking_rms_lsb"]) == 12 and out["ticks"] == 100
    # the default is the thesis' R2, scaled by the identified K_P of the default joint
    assert out["tuning"] == "R2" and out["tuning_detail"]["omega_d"] == 63.5
    assert out["tuning_detail"]["r_p"] == pytest.approx(41.1e-3 / DEFAULT_ROBOT_KP)
    assert set(out["host_window_measured_s"]) == {"min", "median", "max"}
    tick_us = round((out["host_window_thesis_predicted_s"] - out["host_window_predicted_s"]) * 1e6)
    assert 55 <= tick_us <= 65  # the thesis' window leaves out exactly one tick frame
    # the prediction subtracts the actuations too
    assert out["host_window_predicted_s"] < out["host_window_measured_s"]["min"]
    assert out["servo_faults"] == {"JOINT_5": 49}
    assert png.read_bytes()[:4] == b"\x89PNG" and log.stat().st_size > 0


@pytest.mark.parametrize("argv", [["run", "--alpha", "1,2"], ["run", "--duration", "0"],
                                  ["run", "--trajectory", "/no/such.traj"],
                                  ["run", "--fault", "node 13 silent at 1s"],
                                  ["run", "--plot-joints", "0"],
                                  ["identify", "--joint", "13"],
                                  ["identify", "--joint", "1", "--method", "step",
                                   "--seconds", "0.01"],
                                  ["identify", "--joint", "1", "--method", "step"],
                                  ["board", "--node", "0"],
                                  ["board", "--node", "1", "--interface", "socketcan",
                                   "--channel", "can0"],
                                  ["analyze", "position-loop", "--q", "1.5"]])
def test_bad_robot_input_is_a_clear_error(capsys, argv) -> None:
    if argv[2:4] == ["--interface", "socketcan"]:
        from servobus.bus.factory import socketcan_available

        if socketcan_available():
            argv = [*argv[:-1], "servobus_no_such_if0"]
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_bad_trajectory_file_names_file_and_line(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.traj"
    bad.write_text("# poses\n" + " ".join(["512"] * 12) + " 0.1\n" + " ".join(["2000"] * 12)
                   + " 0.1\n")
    assert main(["run", "--trajectory", str(bad), "--duration", "0.1"]) == 2
    assert f"{bad}:3: joint 1 position 2000" in capsys.readouterr().err


def test_analyze_position_loop_json(capsys) -> None:
    out = _json(capsys, ["analyze", "position-loop", "--json"])
    assert out["critical_hz"] == pytest.approx(12.44, abs=0.01)
    r2, r2b = out["tunings"]["R2"], out["tunings"]["R2b"]
    assert r2["alpha_max"] < r2b["alpha_max"]
    assert {"overshoot_pct", "settling_s", "alpha_max"} <= r2.keys()
    assert out["default_tuning"] == "R2" and out["identified"]["kp"] == DEFAULT_ROBOT_KP


def test_run_names_the_tuning_it_was_given(capsys) -> None:
    out = _json(capsys, ["run", "--duration", "0.2", "--json", "--tuning", "designed"])
    assert out["tuning"] == "designed"
    assert out["tuning_detail"]["omega_d"] == TUNINGS["designed"].omega_d
    main(["run", "--duration", "0.1", "--no-progress"])
    assert re.search(r"^tuning +R2$", capsys.readouterr().out, re.MULTILINE)


def test_record_writes_a_playable_trajectory(capsys, tmp_path: Path) -> None:
    out = tmp_path / "anim.traj"
    rep = _json(capsys, ["record", "--duration", "1.2", "--every", "0.25", "--out", str(out),
                         "--json"])
    traj = load(out)
    assert rep["lines"] == len(traj.poses) == 4
    assert traj.poses.max() - traj.poses.min() > 5  # the hand moved the floating joints


def test_operator_actions_from_the_command_line(capsys) -> None:
    out = _json(capsys, ["run", "--duration", "0.6", "--json", "--do", "release 3 at 0.2s",
                         "--do", "freeze 3 at 0.3s", "--do", "pause at 0.4s",
                         "--do", "scrub 0.5 at 0.45s"])
    assert out["servo_faults"] == {} and out["ticks"] == 150
    assert main(["run", "--duration", "0.1", "--do", "dance at 1s"]) == 2


def test_release_and_freeze_reach_the_boards() -> None:
    robot = Robot(RobotConfig())
    robot.run(0.1)
    robot.host.release(3)
    robot.run(0.02)
    assert robot.bank.rigs[2].ram[m.MODE] == m.MODE_FLOAT
    assert robot.bank.rigs[3].ram[m.MODE] == m.MODE_CURRENT
    x_at_freeze = robot.host.measured[2]
    robot.host.freeze(3)
    robot.run(0.02)
    assert robot.bank.rigs[2].ram[m.MODE] == m.MODE_CURRENT
    assert robot.host.hold[2] == x_at_freeze  # x_w := x, the joint holds where it was
    assert np.isnan(robot.host.hold[3])  # the others still follow the trajectory
    robot.host.release(0)
    robot.run(0.02)
    assert all(r.ram[m.MODE] == m.MODE_FLOAT for r in robot.bank.rigs)


def test_tick_board_and_host_as_separate_processes_over_remote() -> None:
    server = serve_in_thread("127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.server_port}/"
    common = ["--interface", "remote", "--channel", url, "--json"]
    try:
        board = subprocess.Popen([sys.executable, "-m", "servobus", "board", "--node", "1",
                                  "--duration", "4", *common], stdout=subprocess.PIPE, text=True)
        host = subprocess.Popen([sys.executable, "-m", "servobus", "host", "--joints", "1",
                                 "--duration", "4", *common], stdout=subprocess.PIPE, text=True)
        tick = subprocess.run([sys.executable, "-m", "servobus", "tick", "--period", "20ms",
                               "--duration", "3", *common], capture_output=True, text=True,
                              check=True, timeout=60)
        host_out = json.loads(host.communicate(timeout=60)[0])
        board_out = json.loads(board.communicate(timeout=60)[0])
    finally:
        server.shutdown()
        server.server_close()
    sent = json.loads(tick.stdout)["ticks_sent"]
    # the three processes start within a second or so of each other: allow the first ticks
    assert 140 <= sent <= 151 and host_out["slips"] == 0
    assert host_out["ticks"] >= sent - 25
    assert host_out["servo_faults"].get("JOINT_1", 0) < 0.2 * sent
    assert board_out["frames_received"] >= sent - 25 and board_out["rx_faults"] == 0
