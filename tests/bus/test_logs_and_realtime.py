"""Logs in every format round-trip, `cantools decode` reads a recorded run, replay reproduces
it; nodes run unchanged on a real python-can bus in wall-clock time."""

import subprocess
import sys
import time
from pathlib import Path

import can
import pytest

from servobus.bus.factory import open_bus
from servobus.bus.log_reader import read_log
from servobus.bus.medium import Medium
from servobus.bus.realtime import RealtimeRunner
from servobus.bus.recorder import open_writer, replay_realtime, replay_sim
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema, default_dbc
from servobus.bus.sim_interface import SimBus
from servobus.bus.tick_node import TickNode
from servobus.tools import cmd_busload, cmd_log
from servobus.tools.cli import main
from tests.processes import json_report, replay_in_thread, when_opened

SCHEMA = Schema()


@pytest.mark.parametrize("suffix", [".log", ".asc", ".blf"])
def test_recorded_run_reads_back_identically(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"run{suffix}"
    sim = ScheduleSim(SCHEMA, log_path=str(path))
    sim.run(0.1)
    frames = read_log(path)
    assert len(frames) == sim.medium.frames == 25 * 16
    assert [f.arbitration_id for f in frames[:3]] == [0x010, 0x101, 0x102]
    assert frames[1].timestamp - frames[0].timestamp == pytest.approx(68e-6, abs=1e-6)
    assert [SCHEMA.decode(f).name for f in frames[-3:]] == ["ACTUATION_1", "ACTUATION_2",
                                                            "ACTUATION_3"]


def test_cantools_decode_reads_a_recorded_candump_log(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    ScheduleSim(SCHEMA, log_path=str(path)).run(0.01)
    out = subprocess.run([sys.executable, "-m", "cantools", "decode", str(default_dbc())],
                         input=path.read_text(), capture_output=True, text=True, check=True)
    assert "TICK(" in out.stdout and "position_12: 512 LSB" in out.stdout
    assert "iw_4: 0.0 A" in out.stdout


def test_replay_on_the_simulated_bus_reproduces_the_frames(tmp_path: Path) -> None:
    path = tmp_path / "run.blf"
    ScheduleSim(SCHEMA, log_path=str(path)).run(0.02)
    recorded = read_log(path)
    medium = Medium(Environment())
    listener = SimBus(channel="L", medium=medium)
    replay_sim(medium, recorded)
    medium.env.run()
    replayed = []
    while (m := listener.recv(0)) is not None:
        replayed.append(m)
    assert [(m.arbitration_id, bytes(m.data)) for m in replayed] == [
        (m.arbitration_id, bytes(m.data)) for m in recorded]


def test_replay_to_a_real_bus_and_writer_rejects_unknown_suffix(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    ScheduleSim(SCHEMA, log_path=str(path)).run(0.008)
    tx, rx = open_bus("virtual", "replay"), open_bus("virtual", "replay")
    try:
        assert replay_realtime(tx, read_log(path)) == 32
        assert sum(1 for _ in iter(lambda: rx.recv(0.2), None)) == 32
    finally:
        tx.shutdown()
        rx.shutdown()
    with pytest.raises(ValueError, match=r"\.log, \.asc, \.blf"):
        open_writer(tmp_path / "run.txt")
    with pytest.raises(FileNotFoundError):
        read_log(tmp_path / "nope.log")


def test_tick_node_runs_unchanged_on_a_real_bus_in_wall_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Invariants that no scheduling can break (a loaded machine only makes ticks later): each
    tick sent is tick k of the absolute 10 ms grid, the newest one due at the instant it fired,
    never on the wire before its due time, and the ticks due by the end are all accounted for,
    no more; the exact schedule is checked in simulated time (test_realtime_schedule.py)."""
    bus, listener = open_bus("virtual", "rt-ticks"), open_bus("virtual", "rt-ticks")
    try:
        node = TickNode(SCHEMA, period_ns=10_000_000)
        before = time.time()
        runner = RealtimeRunner(bus, [node])
        reads: list[int] = []  # the node's clock readings; the last one before a send is its
        fired: list[int] = []  # tick's firing instant
        now_ns, send = runner.clock.now_ns, bus.send

        def read() -> int:
            reads.append(now_ns())
            return reads[-1]

        def send_fired(msg: can.Message, timeout: float | None = None) -> None:
            fired.append(reads[-1])
            send(msg, timeout)

        monkeypatch.setattr(runner.clock, "now_ns", read)
        monkeypatch.setattr(bus, "send", send_fired)
        runner.run(duration_s=0.205)
        got = list(iter(lambda: listener.recv(0.05), None))
    finally:
        bus.shutdown()
        listener.shutdown()
    seqs = [SCHEMA.decode(m).values["seq"] for m in got]
    # ticks at 0, 10, ..., 200 ms are due by the end; one the loaded machine made later than
    # the next is skipped (counted), never sent in a burst
    assert seqs == sorted(set(seqs)) and seqs[-1] == 20 and len(seqs) == node.sent == len(fired)
    assert node.sent + node.ticks_skipped == 21
    for k, at in zip(seqs, fired, strict=True):  # the newest tick due when it fired (the
        assert 10_000_000 * k <= at < 10_000_000 * (k + 1) or k == 20  # end, 205 ms, is tick 20's)
    assert fired[-1] <= 205_000_000  # the node never sees a time past the end
    late = [m.timestamp - before - 0.010 * k for k, m in zip(seqs, got, strict=True)]
    assert min(late) > -0.001, late  # never before its due time (1 ms for the two clocks)


@pytest.mark.parametrize("factor", [0.5, 1.0, 4.0])
def test_realtime_pacing_of_the_simulated_bus(factor: float) -> None:
    sim = ScheduleSim(SCHEMA, realtime_factor=factor)
    start = time.perf_counter()
    sim.run(0.1)
    wall = time.perf_counter() - start
    # the last events (tick 24 at 96 ms and its period's frames) run no earlier than their
    # simulated time divided by the factor; a loaded machine only adds to it
    assert wall >= 0.096 / factor, wall
    assert wall < 0.1 / factor + 2.0  # and pacing adds no sleep beyond the schedule
    assert isinstance(sim.buses[0], can.BusABC)


@pytest.mark.parametrize("command", [["log", "record", "--out", "copy.blf"], ["busload"]])
def test_a_live_capture_ends_at_its_frame_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               command: list[str]) -> None:
    """--frames N stops a recording or a live load measurement at the Nth frame (as candump -n
    does): the replay sends 400 frames, 10 more would be the next period's."""
    monkeypatch.chdir(tmp_path)
    ScheduleSim(SCHEMA, log_path="sim.log").run(0.1)
    bus = ["--interface", "virtual", "--channel", f"frames-{command[0]}"]
    command_module = cmd_log if command[0] == "log" else cmd_busload
    thread = replay_in_thread(tmp_path / "sim.log", bus, when_opened(monkeypatch, command_module))
    started = time.monotonic()
    assert main([*command, *bus, "--frames", "390", "--duration", "120", "--json"]) == 0
    thread.join()
    assert time.monotonic() - started < 60  # the count ended it, not the 120 s
    assert json_report(capsys.readouterr().out)["frames"] == 390
    if command[0] == "log":
        assert [m.arbitration_id for m in read_log("copy.blf")] == [
            m.arbitration_id for m in read_log("sim.log")[:390]]
