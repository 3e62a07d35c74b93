"""Issue 9's bad command-line inputs, one by one: each is `error: ...` with exit status 2 (no
traceback, no hang, nothing silently accepted), and output paths are checked before running."""

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from servobus.bus.factory import socketcan_available
from servobus.bus.log_reader import read_log
from servobus.bus.realtime import RealtimeClock, RealtimeRunner
from servobus.bus.schedule_sim import ScheduleSim
from servobus.robot import plots
from servobus.robot.compile_phase import COMPILING
from servobus.tools.cli import main

ROBOT = ["run", "--duration", "0.05", "--no-progress"]


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run the command in-process; it must fail cleanly; return its error line."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    while err.startswith(COMPILING):  # `run`'s compile phase on a fresh machine
        err = err[err.index("\n") + 1:]  # (numba's cache empty: this test run first)
    assert err.startswith("error: ") and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "--duration", "inf"], "not a finite duration"),  # was OverflowError
    (["run", "--duration", "nan"], "not a finite duration"),
    (["run", "--alpha", "inf"], "not a finite number"),  # was ZeroDivisionError
    (["run", "--alpha", "nan"], "not a finite number"),
    (["run", "--alpha", "1,1"], "one number or 12"),
    ([*ROBOT, "--do", "scrub nan at 0.5s"], "fraction 0..1"),  # was IndexError
    ([*ROBOT, "--do", "scrub 1.5 at 0.5s"], "fraction 0..1"),  # was clamped to 1
    ([*ROBOT, "--do", "scrub -0.5 at 0.5s"], "fraction 0..1"),  # was clamped to 0
    ([*ROBOT, "--do", "scrub at 0.5s"], "fraction 0..1"),  # was scrub 0
    ([*ROBOT, "--do", "pause 3 at 1s"], "pause takes no argument"),  # the 3 was ignored
    ([*ROBOT, "--do", "release 13 at 1s"], "joints are 1..12"),
    ([*ROBOT, "--do", "release 0 at 1s"], "joints are 1..12"),  # 0 silently meant all
    (["run", "--plot", "adir"], "must end in .png"),  # wrote adir.png, reported adir
    (["run", "--plot", "/no/such/dir/run.png"], "does not exist"),  # failed after the run
    (["run", "--log", "/no/such/dir/run.blf"], "does not exist"),
    (["run", "--log", "run.txt"], "must end in .log or .asc or .blf"),
    (["run", "--plot-joints", "1,,3"], "an empty joint number"),
    (["run", "--realtime", "0"], "outside"),
    (["busload", "--log", "run.blf", "--window", "0"], "outside"),  # was ZeroDivisionError
    (["busload", "--log", "run.blf", "--window", "1ns"], "outside"),  # hung
    (["busload", "--period", "0"], "outside"),  # silently 4 ms
    (["busload", "--period", "1ms"], "cannot hold its own frames"),
    (["busload", "--bitrate", "1"], "outside classic CAN's 10k .. 1M"),
    (["busload", "--bitrate", "2M"], "outside classic CAN's 10k .. 1M"),
    (["busload", "--bitrate", "300k"], "whole nanoseconds"),
    (["busload", "--log", "x.blf", "--interface", "virtual"], "give one"),  # ignored --interface
    (["busload", "--window", "4ms"], "needs --log or --interface"),
    (["busload", "--duration", "2"], "needs --interface"),
    (["busload", "--frames", "400"], "needs --interface"),
    (["busload", "--interface", "virtual", "--frames", "0"], "outside"),
    (["remote-server", "--port", "99999"], "outside 0..65535"),  # was OverflowError
    (["node", "time-trigger", "--duration", "-1"], "outside"),
    (["node", "time-trigger", "--seed", "-1"], "outside"),
    (["node", "JOINT_13"], "JOINT_13: spejbl has no such node or kind (its nodes: TIME_TRIGGER, "
                           "JOINT_1, JOINT_2,"),
    (["node", "hp-board"], "hp-board: spejbl has no such node or kind"),  # guroo's kind
    (["node", "central", "--robot", "spejbl-leg"], "central: spejbl-leg has no such node"),
    (["node", "host", "time-trigger"], "TIME_TRIGGER, HOST: one node per process, or a time-"),
    (["node", "JOINT_1", "HOST"], "JOINT_1, HOST: one node per process, or a time-triggered "
                                  "robot's boards together"),
    (["node", "JOINT_1", "--trajectory", "x.traj"], "--trajectory is the host's or the central's"),
    (["node", "CENTRAL", "HP_1", "--robot", "guroo"], "CENTRAL, HP_1: one node per process"),
    (["node", "host", "--robot", "/no/such.toml"], "no such file and no shipped robot"),
    (["step", "--alpha", "nan"], "not a finite number"),
    (["step", "--iw", "nan"], "not a finite number"),
    (["identify", "--joint", "1", "--alpha", "nan"], "not a finite number"),
    (["record", "--out", "x.traj", "--torque", "nan"], "not a finite number"),
    (["record", "--out", "x.traj", "--torque", "1e6"], "outside (0, 0.12]"),
    (["record", "--out", "/no/such/dir/x.traj"], "does not exist"),
    (["analyze", "limit-cycle", "--load-torque", "nan"], "not a finite number"),
    (["analyze", "position-loop", "--q", "1"], "outside (0, 1)"),
    (["bussim", "--log", "/no/such/dir/a.log"], "does not exist"),
    (["log", "record", "--out", "rec.csv"], "must end in"),
    (["log", "record", "--out", "rec.log", "--frames", "-3"], "outside"),
])
def test_bad_value_is_a_clear_error(capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    assert message in _error(capsys, argv)


@pytest.mark.parametrize(("text", "message"), [
    ('name = \n', "line 1: invalid value (column 8): not TOML"),
    # a real-time node cannot keep a sub-millisecond period: the description refuses one
    ('base = "spejbl"\nname = "fast"\nperiod = "1us"\n', "period: '1us': whole milliseconds"),
    ('base = "spejbl"\nname = "slow"\nperiod = "20ms"\n',
     "period: 20 ms, but TICK's GenMsgCycleTime in servobus.dbc is 4 ms"),
])
def test_a_bad_robot_file_is_an_error_naming_it(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, text: str, message: str) -> None:
    robot = tmp_path / "robot.toml"
    robot.write_text(text)
    err = _error(capsys, ["node", "time-trigger", "--robot", str(robot), "--duration", "0.01"])
    assert err.startswith(f"error: {robot}: {message}") and err.count("\n") == 1, err


@pytest.mark.skipif(socketcan_available(), reason="this kernel has AF_CAN")
def test_remote_server_without_af_can_fails_before_serving(
        capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    assert "no AF_CAN" in _error(capsys, ["remote-server", "--interface", "socketcan",
                                          "--port", "0"])
    assert time.monotonic() - started < 5  # it did not serve first
    assert "serving" not in capsys.readouterr().out


def test_a_failing_plot_keeps_the_report(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(plots, "plot_run", broken)
    assert main([*ROBOT, "--json", "--plot", str(tmp_path / "run.png")]) == 2
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["ticks"] == 13 and "plot" not in report  # ticks at 0, 4, ..., 48 ms
    assert err == f"error: plot {tmp_path / 'run.png'}: disk full\n"


class _Rearming:
    """A node whose timer re-arms itself in the past every time it fires (it can never catch
    up): the old fire_due looped forever on it."""

    name = "REARM"

    def __init__(self) -> None:
        self.fired = 0

    def start(self, bus: object, clock: RealtimeClock) -> None:
        self.clock = clock
        clock.call_at(0, self.fire)

    def fire(self) -> None:
        self.fired += 1
        self.clock.call_at(self.clock.now_ns() - 1_000_000, self.fire)

    def on_message(self, msg: object) -> None:
        """No traffic."""


class _SilentBus:
    def recv(self, timeout: float | None = None) -> None:
        return None


def test_realtime_loop_stops_at_its_duration_when_a_timer_falls_behind() -> None:
    node = _Rearming()
    runner = RealtimeRunner(_SilentBus(), [node])  # type: ignore[arg-type, list-item]
    done = threading.Event()
    thread = threading.Thread(target=lambda: (runner.run(0.2), done.set()), daemon=True)
    started = time.monotonic()
    thread.start()
    assert done.wait(10), "the real-time loop did not stop at its duration"
    assert time.monotonic() - started < 5
    assert node.fired > 10 and runner.late >= node.fired - 2  # fired late, counted as such


def test_realtime_run_refuses_a_non_finite_duration() -> None:
    with pytest.raises(ValueError, match="positive and finite"):
        RealtimeRunner(_SilentBus(), []).run(float("inf"))  # type: ignore[arg-type]


def test_interrupted_bussim_exits_130_with_its_report(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    log = tmp_path / "bus.log"
    real_run = ScheduleSim.run

    def interrupted(self: ScheduleSim, duration_s: float) -> dict:
        self.env.schedule(50_000_000, _ctrl_c)
        return real_run(self, duration_s)

    monkeypatch.setattr(ScheduleSim, "run", interrupted)
    assert main(["bussim", "--duration", "1", "--log", str(log), "--json"]) == 130
    report = json.loads(capsys.readouterr().out)
    assert report["interrupted"] and report["sim_time_s"] == pytest.approx(0.05, abs=0.005)
    assert len(read_log(log)) == report["frames"] > 0


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, through the command's handler
