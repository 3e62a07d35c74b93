"""Signals at any instant: Ctrl-C or SIGTERM while the command's modules load, in the compile
phase, between two frames of a run, or during a sweep ends with exit 130 / 143, no traceback,
and a report and log that agree; a log the disk cannot take names its file and the report so
far is still printed."""

import ctypes
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from servobus.bus.log_reader import read_log
from servobus.bus.medium import FrameRecord
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.plant.compile_speed import frame_chunks_kept
from servobus.robot.assembly import Robot, RobotConfig
from servobus.tools.cli import main
from servobus.tools.interrupts import handle_interrupts
from tests.processes import wait_for


def _loaded(pid: int, library: str) -> bool:
    """Whether process `pid` has mapped a file whose path holds `library`."""
    return library in Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_the_modules_load_is_a_clean_stop(signum: int, status: int) -> None:
    process = subprocess.Popen([sys.executable, "-m", "servobus", "run", "--duration", "5",
                                "--no-progress"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    wait_for(lambda: _loaded(process.pid, "llvmlite"), "numba loading", 30)  # `run`'s imports
    process.send_signal(signum)
    _, err = process.communicate(timeout=30)
    # a shell's $? is 130 either way: CPython sometimes ends a process whose import was cut by
    # KeyboardInterrupt by SIGINT itself after a clean exit (seen here: 'interrupted', then -2)
    assert process.returncode in (status, -signum if signum == signal.SIGINT else status)
    assert "Traceback" not in err and err.endswith("interrupted\n")


def test_ctrl_c_in_the_compile_phase_reports_that_nothing_ran(tmp_path: Path) -> None:
    log = tmp_path / "run.blf"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cold")}  # an empty cache: a phase
    process = subprocess.Popen([sys.executable, "-m", "servobus", "run", "--duration", "5",
                                "--no-progress", "--log", str(log)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    assert process.stderr.readline().startswith("compiling the kernels of this run")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in err
    assert "stopped before it started" in out and "interrupted" in out
    with pytest.warns(UserWarning, match="no frames"):
        assert read_log(log) == []  # a finished, empty log


def test_the_compile_allocator_is_restored_after_ctrl_c() -> None:
    def allocator() -> tuple[int, int]:
        words = (ctypes.c_void_p * 4)()
        ctypes.pythonapi.PyObject_GetArenaAllocator(words)
        return words[1], words[2]

    before = allocator()
    with handle_interrupts(), pytest.raises(KeyboardInterrupt), frame_chunks_kept():
        assert allocator() != before
        signal.raise_signal(signal.SIGINT)
    assert allocator() == before


def _ctrl_c_at(frames: int, count: Callable[[], int]) -> Callable[[FrameRecord], None]:
    """A medium tap (ahead of the log's) that sends this process SIGINT at the `frames`th frame."""
    def tap(record: FrameRecord) -> None:
        if count() == frames:
            signal.raise_signal(signal.SIGINT)
    return tap


def test_an_interrupted_bussim_reports_exactly_the_frames_its_log_holds(tmp_path: Path) -> None:
    log = tmp_path / "bus.log"
    sim = ScheduleSim(Schema(None), log_path=str(log), duration_s=1.0)
    sim.medium.taps.insert(0, _ctrl_c_at(100, lambda: sim.medium.frames))
    with handle_interrupts(), pytest.raises(KeyboardInterrupt):
        sim.run(1.0)
    assert sim.report()["frames"] == len(read_log(log)) == 100


def test_an_interrupted_robot_run_reports_exactly_the_frames_its_log_holds(tmp_path) -> None:
    log = tmp_path / "run.log"
    robot = Robot(RobotConfig(engine="reference", log_path=str(log), duration_s=1.0))
    assert robot.medium is not None
    medium = robot.medium
    medium.taps.insert(0, _ctrl_c_at(50, lambda: medium.frames))
    with handle_interrupts(), pytest.raises(KeyboardInterrupt):
        robot.run(1.0)
    assert robot.frames == len(read_log(log)) == 50


def test_ctrl_c_during_a_sweep_prints_no_worker_traceback(tmp_path: Path) -> None:
    out = tmp_path / "scan.parquet"
    process = subprocess.Popen([sys.executable, "-m", "servobus", "sweep", "alpha-scan",
                                "--workers", "2", "--no-progress", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # a terminal's Ctrl-C: the whole group
    parts = Path(f"{out}.parts")
    wait_for(lambda: parts.is_dir() and any(parts.iterdir()), "a finished point", 120)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


@pytest.mark.parametrize(("command", "suffix"), [
    (["bussim", "--duration", "5"], ".log"), (["bussim", "--duration", "5"], ".blf"),
    (["run", "--duration", "1", "--no-progress"], ".asc"),
    (["run", "--robot", "guroo", "--duration", "1", "--no-progress"], ".log"),
])
def test_a_full_disk_names_the_log_and_keeps_the_report(capsys, tmp_path: Path,
                                                        command: list[str], suffix: str) -> None:
    log = tmp_path / f"full{suffix}"
    log.symlink_to("/dev/full")  # every write: ENOSPC, as on a full disk
    assert main([*command, "--json", "--log", str(log)]) == 2
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert 0 < report["sim_time_s"] < float(command[command.index("--duration") + 1])
    assert report["log"] == str(log)  # the report so far, then what could not be written
    assert captured.err.startswith(f"error: log {log}: could not write (No space left on "
                                   "device); the run stopped at ")
    assert "Traceback" not in captured.err
