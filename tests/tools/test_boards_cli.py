"""`servobus node` with several boards (one compiled bank) as one real-time process on a real
bus, driven tick by tick by the test, on `virtual` (in this process) and over `remote` (a
process)."""

import json
import threading
import time
from pathlib import Path

import can
import pytest

from servobus.bus.remote_server import serve_in_thread
from servobus.bus.schema import TICK, Schema
from servobus.tools.cli import main
from tests.processes import kill, servobus, stop


@pytest.mark.parametrize("nodes, says", [
    (["JOINT_0"], "JOINT_0: spejbl has no such node or kind (its nodes: TIME_TRIGGER, JOINT_1,"),
    (["JOINT_1", "JOINT_13"], "JOINT_13: spejbl has no such node or kind"),
    (["board", "host"], "JOINT_1, JOINT_2, JOINT_3, JOINT_4, JOINT_5, JOINT_6, JOINT_7, "
                        "JOINT_8, JOINT_9, JOINT_10, JOINT_11, JOINT_12, HOST: one node per "
                        "process, or a time-triggered robot's boards together"),
    (["time-trigger", "JOINT_2"], "TIME_TRIGGER, JOINT_2: one node per process"),
])
def test_boards_with_another_node_or_unknown_are_a_clear_error(
        capsys: pytest.CaptureFixture[str], nodes: list[str], says: str) -> None:
    assert main(["node", *nodes, "--duration", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and says in err


def _tick_and_collect(bus: can.BusABC, ticks: int, want: int, gap_s: float = 0.05,
                      schema: Schema | None = None) -> list[list[str]]:
    """Send `ticks` ticks over `gap_s` apart; the measurement names each drew (waiting for
    `want`); `schema`: the robot's (default: SPEJBL's)."""
    schema, periods = schema or Schema(), []
    for seq in range(ticks):
        bus.send(schema.encode(TICK, {"seq": seq}))
        names: list[str] = []
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and len(names) < want:
            msg = bus.recv(0.05)
            if msg is not None and schema.decode(msg).name.startswith("MEAS"):
                names.append(schema.decode(msg).name)
        periods.append(sorted(names))
        time.sleep(gap_s)
    return periods


def _wait_for_announces(bus: can.BusABC, count: int, schema: Schema | None = None) -> None:
    """Until `count` boards have sent ANNOUNCE: they are up and listening (their run's clock
    started; a tick before that is simply not heard)."""
    schema, announced = schema or Schema(), set()
    deadline = time.monotonic() + 120
    while len(announced) < count and time.monotonic() < deadline:
        msg = bus.recv(0.1)
        if msg is not None and schema.decode(msg).name.startswith("ANNOUNCE"):
            announced.add(schema.decode(msg).name)
    assert len(announced) == count


def test_twelve_boards_answer_every_tick_on_virtual(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    """`node board`: every board of a 12-joint 50 ms robot (made with `robot new`)."""
    assert main(["robot", "new", "slow", "--joints", "12", "--period", "50ms", "--out",
                 str(tmp_path)]) == 0
    capsys.readouterr()
    schema = Schema(tmp_path / "slow.dbc", required=())
    tester = can.Bus(interface="virtual", channel="boards-test")
    argv = ["node", "board", "--robot", str(tmp_path / "slow.toml"), "--interface", "virtual",
            "--channel", "boards-test", "--duration", "3", "--json"]
    process = threading.Thread(target=main, args=(argv,))
    process.start()
    try:  # ANNOUNCE_1..12 say the bank is up; --duration counts from then
        _wait_for_announces(tester, 12, schema)
        # five ticks 0.15 s apart (0.75 s) within the 3 s run: room for a loaded machine's stalls
        periods = _tick_and_collect(tester, 5, 12, gap_s=0.15, schema=schema)
    finally:
        process.join(timeout=90)
        tester.shutdown()
    out = json.loads(capsys.readouterr().out)
    boards = out["nodes"]
    assert periods == [sorted(f"MEAS_{j}" for j in range(1, 13))] * 5
    assert list(boards) == [f"JOINT_{j}" for j in range(1, 13)] and out["frames_received"] == 5
    assert all(b["rx_faults"] == 0 and b["tx_faults"] == 0 for b in boards.values())
    # booted (4 ms: 80 PWM periods at 20 kHz), idle until the first tick; the ticks came over
    # 0.15 s apart (3000 PWM periods) but a catch-up is one period, 50 ms = 1000 PWM periods,
    # plus the few ms the process took to hand the tick to the boards after the first
    assert all(80 + 4000 <= b["pwm_periods"] < 80 + 4 * 2000 for b in boards.values()), out
    assert all(b["skipped_s"] > 4 * 0.1 for b in boards.values())


def test_some_boards_as_one_process_over_remote() -> None:
    server = serve_in_thread("127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.server_port}/"
    tester = can.Bus(interface="remote", channel=url)
    process = servobus("node", "JOINT_1", "JOINT_3", "JOINT_5", "JOINT_6", "JOINT_7",
                       "--interface", "remote", "--channel", url, "--json")
    try:
        _wait_for_announces(tester, 5)
        periods = _tick_and_collect(tester, 8, 5)
        (out,) = stop([process])
    finally:
        kill([process])
        tester.shutdown()
        server.shutdown()
        server.server_close()
    assert process.returncode == 130
    expected = ["MEAS_1", "MEAS_3", "MEAS_5", "MEAS_6", "MEAS_7"]
    assert periods == [expected] * 8  # up (announced) before the first tick: every one answered
    assert list(out["nodes"]) == ["JOINT_1", "JOINT_3", "JOINT_5", "JOINT_6", "JOINT_7"]
    assert out["frames_received"] == 8
    assert all(board["rx_faults"] == 0 for board in out["nodes"].values())
