"""The kernel's CAN stack as the witness: replay, record and live busload on vcan0 against a
python-can reader and can-utils' candump, and the interface going down under a recording."""

import subprocess
import sys
import time
from pathlib import Path

import can
import pytest

from servobus.bus.load_meter import LoadMeter
from servobus.bus.log_reader import read_log
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.tools import cmd_busload, cmd_log
from servobus.tools.cli import main
from tests.processes import UNTIL_400, json_report, replay_in_thread, wait_until_read, when_opened
from tests.socketcan_env import CHANNEL, MARKS, Candump

pytestmark = MARKS
VCAN = ["--interface", "socketcan", "--channel", CHANNEL]


def _frames(messages: list[can.Message]) -> list[tuple[int, bool, bytes]]:
    return [(m.arbitration_id, m.is_extended_id, bytes(m.data)) for m in messages]


def _recorded_run(tmp_path: Path, seconds: float = 0.1) -> Path:
    """A log of the full protocol (tick, 12 measurements, 3 actuations per 4 ms period)."""
    log = tmp_path / "sim.log"
    ScheduleSim(Schema(), log_path=str(log)).run(seconds)
    return log


def test_replay_onto_vcan0_reads_back_frame_for_frame(tmp_path: Path) -> None:
    log = _recorded_run(tmp_path)
    sent = read_log(log)
    reader = can.Bus(interface="socketcan", channel=CHANNEL)
    try:
        thread = replay_in_thread(log, VCAN)
        got = [reader.recv(timeout=5.0) for _ in sent]
        thread.join()
        assert reader.recv(timeout=0.3) is None  # and nothing more
    finally:
        reader.shutdown()
    assert len(sent) == 25 * 16
    assert _frames([m for m in got if m is not None]) == _frames(sent)
    # replayed in real time: the 100 ms run takes at least 100 ms on the bus too (not sent in a
    # burst); no upper bound, as the slow one-CPU guest has taken over 1.2 s
    stamps = [m.timestamp for m in got if m is not None]
    assert stamps[-1] - stamps[0] > 0.09


def test_log_record_equals_candump(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log, copy = _recorded_run(tmp_path), tmp_path / "copy.blf"
    with Candump() as dump:
        thread = replay_in_thread(log, VCAN, when_opened(monkeypatch, cmd_log))
        assert main(["log", "record", *VCAN, *UNTIL_400, "--out", str(copy), "--json"]) == 0
        thread.join()
        dump.wait_for_frames(400)
    assert json_report(capsys.readouterr().out)["frames"] == 400
    assert _frames(read_log(copy)) == _frames(dump.messages()) == _frames(read_log(log))


def test_live_busload_equals_candump(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    log = _recorded_run(tmp_path)
    with Candump() as dump:
        thread = replay_in_thread(log, VCAN, when_opened(monkeypatch, cmd_busload))
        assert main(["busload", *VCAN, *UNTIL_400, "--json"]) == 0
        thread.join()
        dump.wait_for_frames(400)
    live = json_report(capsys.readouterr().out)
    seen = LoadMeter().add_all(dump.messages()).report()
    assert len(dump.messages()) == live["frames"] == 400
    assert live["bits"] == seen["bits"] == LoadMeter().add_all(read_log(log)).report()["bits"]


def test_interface_down_under_a_recording(tmp_path: Path) -> None:
    """`ip link set vcan0 down` mid-run: a clear error naming the interface, and the frames
    recorded until then are in a readable log."""
    log, copy = _recorded_run(tmp_path), tmp_path / "copy.asc"
    record = subprocess.Popen([sys.executable, "-m", "servobus", "log", "record", *VCAN,
                               "--duration", "20", "--out", str(copy), "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not copy.exists() and time.monotonic() < deadline:
            time.sleep(0.1)  # the recorder is up once its file exists
        time.sleep(0.5)
        assert main(["log", "replay", str(log), *VCAN]) == 0
        time.sleep(0.1)  # the kernel has queued them to the recorder (vcan's loopback)
        wait_until_read(record)  # and the recorder has read them, however slow the guest
        subprocess.run(["ip", "link", "set", CHANNEL, "down"], check=True)
        out, err = record.communicate(timeout=30)
    finally:
        subprocess.run(["ip", "link", "set", CHANNEL, "up"], check=True)
        if record.poll() is None:
            record.kill()
    assert record.returncode == 2, (out, err)
    assert err.startswith("error: ") and CHANNEL in err and "Traceback" not in err
    assert "400 frames" in err and str(copy) in err
    assert _frames(read_log(copy)) == _frames(read_log(log))


def _fd_mtu() -> None:
    """vcan0 with the CAN FD MTU (72 bytes: it then carries classic and FD frames); vcan
    changes its MTU only while down."""
    for step in (["down"], ["mtu", "72"], ["up"]):
        subprocess.run(["ip", "link", "set", CHANNEL, *step], check=True)


def test_fd_frames_replayed_and_recorded_on_vcan0(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`log replay` sends and `log record` keeps CAN FD frames (every FD length, BRS and ESI,
    base and extended IDs) and classic ones, fields intact, as the kernel carries them."""
    _fd_mtu()
    sizes = (0, 1, 7, 8, 12, 16, 20, 24, 32, 48, 64)
    frames = [can.Message(timestamp=1.0 + k * 0.001, arbitration_id=0x100 + k if k % 3 else
                          0x1ABC_0000 + k, is_extended_id=not k % 3, is_fd=True,
                          bitrate_switch=bool(k & 1), error_state_indicator=bool(k & 2),
                          data=bytes(range(size))) for k, size in enumerate(sizes)]
    frames.append(can.Message(timestamp=1.1, arbitration_id=0x7F0, is_extended_id=False,
                              data=b"\x01\x02"))
    log, copy = tmp_path / "fd.blf", tmp_path / "copy.log"
    with can.Logger(str(log)) as writer:
        for msg in frames:
            writer.on_message_received(msg)
    thread = replay_in_thread(log, VCAN, when_opened(monkeypatch, cmd_log))
    assert main(["log", "record", *VCAN, "--frames", str(len(frames)), "--duration", "120",
                 "--out", str(copy), "--json"]) == 0
    thread.join()
    assert json_report(capsys.readouterr().out)["frames"] == len(frames)

    def fields(m: can.Message) -> tuple:
        return (m.arbitration_id, m.is_extended_id, m.is_fd, m.bitrate_switch,
                m.error_state_indicator, bytes(m.data))

    assert [fields(m) for m in read_log(copy)] == [fields(m) for m in frames]
