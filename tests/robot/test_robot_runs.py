"""Whole-robot runs on the simulated bus with exact expectations (the simulator is
deterministic): silenced node, dropped tick, host overrun, bad frames, Ctrl-C, same-seed logs."""

from pathlib import Path

import can
import numpy as np
import pytest

from servobus.bus.node import attach_sim
from servobus.bus.recorder import read_log
from servobus.robot.assembly import Robot, RobotConfig


def run(duration: float, **kw) -> Robot:
    robot = Robot(RobotConfig(**kw))
    robot.run(duration)
    return robot


def test_nominal_run_tracks_the_gait_without_faults() -> None:
    robot = run(1.2)
    rep = robot.report(1.0)
    assert rep["ticks"] == 300 and rep["slips"] == 0 and rep["deadline_misses"] == 0
    assert rep["servo_faults"] == {} and rep["trips"] == {} and rep["error_frames"] == 0
    assert max(rep["tracking_rms_lsb"]) < 20 and max(rep["tracking_max_lsb"]) < 40
    window = rep["host_window_measured_s"]
    assert 0.0029 < window["min"] <= window["max"] < 0.0034
    assert abs(rep["bus_load_pct"] - rep["bus_load_predicted_pct"]) < 1.0


def test_silenced_node_is_reported_in_exactly_the_periods_after_its_silence() -> None:
    robot = run(1.5, faults=["node 5 silent at 1.0s"])
    sup = robot.host.supervisor
    assert sup.fault_periods == [(k, [5]) for k in range(250, sup.ticks - 1)]
    rep = robot.report(1.0)
    assert rep["servo_faults"] == {"JOINT_5": sup.ticks - 1 - 250}
    others = [rms for j, rms in enumerate(rep["tracking_rms_lsb"], start=1) if j != 5]
    assert max(others) < 20 and rep["deadline_misses"] == 0


def test_a_dropped_tick_is_one_slip() -> None:
    rep = run(2.5, faults=["tick drop at 2.0s"]).report(1.0)
    assert rep["slips"] == 1 and rep["servo_faults"] == {} and rep["ticks"] == 624


def test_host_overrun_gives_deadline_misses_and_slips_not_a_crash() -> None:
    # the host window is ~3.2 ms: 0.2 ms compute + 2.5 ms delay fits, + 3.5 ms does not
    fits = run(2.0, faults=["host delay 2.5ms at 1.5s"]).report(1.0)
    assert fits["deadline_misses"] == 0
    assert fits["host_window_used_max_s"] == pytest.approx(2.7e-3)
    short = run(2.0, faults=["host delay 3.5ms at 1.5s"]).report(1.0)
    assert short["deadline_misses"] == 1 and short["slips"] == 0
    # busy ~10 ms: two ticks queue up, the host jumps to the newest; one sample is lost
    long = run(2.0, faults=["host delay 10ms at 1.5s"]).report(1.0)
    assert long["deadline_misses"] == 1 and long["slips"] == 1


def test_unknown_and_wrong_dlc_frames_are_counted() -> None:
    robot = Robot(RobotConfig())

    class Rogue:
        name = "ROGUE"

        def start(self, bus: can.BusABC, clock) -> None:
            clock.call_at(10_000_000, lambda: bus.send(can.Message(
                arbitration_id=0x101, data=b"\x01\x02\x03", is_extended_id=False)))
            clock.call_at(20_000_000, lambda: bus.send(can.Message(
                arbitration_id=0x7EE, data=b"", is_extended_id=False)))

        def on_message(self, msg: can.Message) -> None:
            pass

    attach_sim(Rogue(), robot.medium)
    robot.run(0.05)
    assert robot.host.rx_faults == 2  # the host listens to everything it is sent


def test_ctrl_c_leaves_a_readable_log_and_a_report(tmp_path: Path) -> None:
    log = tmp_path / "run.blf"
    robot = Robot(RobotConfig(log_path=str(log)))

    def interrupt() -> None:
        raise KeyboardInterrupt

    robot.env.schedule(500_000_000, interrupt)
    with pytest.raises(KeyboardInterrupt):
        robot.run(2.0)
    frames = read_log(log)
    assert len(frames) > 100 * 16 and frames[-1].timestamp <= 0.5
    assert robot.report(1.0)["ticks"] == 125


def test_same_seed_gives_a_bit_identical_log(tmp_path: Path) -> None:
    def log(seed: int, name: str) -> bytes:
        path = tmp_path / name
        run(0.3, seed=seed, log_path=str(path))
        return path.read_bytes()

    assert log(3, "a.log") == log(3, "b.log")
    assert log(3, "a.log") != log(4, "c.log")


@pytest.mark.parametrize("mode", ["cascade", "local-p"])
def test_both_board_modes_follow_the_trajectory(mode: str) -> None:
    rep = run(1.2, mode=mode).report(1.0)
    assert max(rep["tracking_rms_lsb"]) < 25, rep["tracking_rms_lsb"]
    assert rep["mode"] == mode


def test_heavier_legs_change_the_tracking() -> None:
    light = np.array(run(1.2).report(1.0)["tracking_rms_lsb"])
    heavy = np.array(run(1.2, alphas=[4.0] * 12).report(1.0)["tracking_rms_lsb"])
    assert not np.allclose(light, heavy)
