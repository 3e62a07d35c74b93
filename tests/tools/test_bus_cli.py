"""`servobus busload`, `bussim` and `bench bus` end to end."""

import json
from pathlib import Path

import pytest

from servobus.bus.load_meter import LoadMeter
from servobus.bus.log_reader import read_log
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.tools import cmd_busload, cmd_log
from servobus.tools.cli import main
from tests.bus.canutils_oracle import cfl_exact
from tests.processes import UNTIL_400, json_report, replay_in_thread, when_opened
from tests.socketcan_env import CHANNEL, MARKS

LIVE_BUSES = [pytest.param("virtual", id="virtual"),
              pytest.param("socketcan", marks=MARKS, id="socketcan")]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_busload_json_layout(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["busload", "--json"])
    assert set(out["models"]) == {"stretch_6_5", "worst_case", "no_stuffing"}
    for model in out["models"].values():
        assert {"load_pct", "host_window_s", "host_window_pct"} <= model.keys()
    assert {"load_pct", "host_window_s"} <= out["exact"].keys()
    assert len(out["messages"]) == 1 + 3 + 12 + 12 and len(out["schedule"]) == 16
    six = _json(capsys, ["busload", "--meas-bytes", "6", "--period", "4ms", "--bitrate", "1M",
                         "--json"])
    assert six["models"]["worst_case"]["load_pct"] > out["models"]["worst_case"]["load_pct"]


def test_busload_table_and_measured_log(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    assert main(["busload"]) == 0
    table = capsys.readouterr().out
    assert "ACTUATION_3" in table and "host_window_pct" in table and "MISS" not in table
    log = tmp_path / "run.asc"
    sim = _json(capsys, ["bussim", "--duration", "0.2", "--log", str(log), "--json"])
    assert sim["frames"] == 50 * 16 and sim["host_complete_periods"] == 50
    measured = _json(capsys, ["busload", "--log", str(log), "--window", "4ms", "--json"])
    assert measured["frames"] == 800 and 30 < measured["window_load_mean_pct"] < 33


def test_busload_of_a_log_with_a_can_fd_frame_on_a_classic_bus_is_refused_clearly(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import can

    log = tmp_path / "fd.blf"
    with can.Logger(str(log)) as write:
        write(can.Message(timestamp=1.0, arbitration_id=0x11, data=bytes(8), is_extended_id=False))
        write(can.Message(timestamp=1.001, arbitration_id=0x10, data=bytes(12), is_fd=True,
                          is_extended_id=False))
    assert main(["busload", "--log", str(log)]) == 2
    err = capsys.readouterr().err
    # the time is the one python-can's BLFReader reads back
    assert err.startswith(f"error: {log}: frame 2: a CAN FD frame (ID 0x10, at ")
    assert err.endswith(" s) on a classic CAN bus (1000 kbit/s): its load needs the bus's data "
                        "bit rate\n")


def test_bussim_with_faults(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["bussim", "--duration", "0.1", "--json",
                         "--fault", "corrupt 0x101 at 0.05s count 3",
                         "--fault", "silence JOINT_5 at 0.02s"])
    assert out["error_frames"] == 3 and out["faults_injected"] == 3
    # three errors in the 52 ms period (TEC 24), then one success in each of 12 periods
    assert out["nodes"]["JOINT_1"]["tec"] == 24 - 12
    assert out["host_complete_periods"] == 5  # JOINT_5 silent from the sixth period on


def test_bench_bus_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["bench", "bus", "--frames", "50", "--json"])
    assert out["nodes"] == 14
    sim = out["servobus"]
    assert sim["frames"] == 50 * 14 and sim["deliveries"] == 50 * 14 * 13
    # all frames queued at t = 0 keep the 1 Mbit/s bus busy back to back: the simulated time
    # is the sum of their exact lengths (can-utils' algorithm, IFS included), 1 us per bit
    bits = sum(cfl_exact(0x100 + node, k.to_bytes(8, "little"))
               for node in range(14) for k in range(50))
    assert round(sim["sim_time_s"] * 1e6) == bits
    assert sim["frames_per_s"]["min"] == pytest.approx(sim["frames"] / sim["wall_s"]["max"])
    # the full protocol: tick, 12 measurements and 3 actuations per 4 ms period, for 2 s
    assert out["servobus_schedule"]["frames"] == 500 * 16
    virtual = out["virtual"]
    assert virtual["frames"] == 700 and virtual["deliveries"] == 700 * 13
    assert virtual["lost"] == 0 and virtual["latency_lost"] == 0
    assert virtual["frames_per_s"]["max"] == pytest.approx(700 / virtual["wall_s"]["min"])
    assert 0 < virtual["latency_median_us"] <= virtual["latency_max_us"] < 2e6  # recv timeout


@pytest.mark.parametrize("argv", [["busload", "--dbc", "/no/such.dbc"],
                                  ["busload", "--bitrate", "fast"],
                                  ["busload", "--log", "/no/such.log"],
                                  ["bussim", "--fault", "explode now"],
                                  ["bussim", "--fault", "silence NOBODY at 1s"],
                                  ["bussim", "--duration", "-1"]])
def test_bad_bus_input_is_a_clear_error(capsys: pytest.CaptureFixture[str], argv) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


def _live(interface: str, name: str) -> list[str]:
    """The options of a live bus: a named virtual channel, or vcan0."""
    return ["--interface", interface, "--channel", CHANNEL if interface == "socketcan" else name]


@pytest.mark.parametrize("interface", LIVE_BUSES)
def test_record_and_replay_any_bus(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch, interface: str) -> None:
    source, copy = tmp_path / "sim.log", tmp_path / "copy.blf"
    ScheduleSim(Schema(), log_path=str(source)).run(0.1)
    bus = _live(interface, "log-cli")
    thread = replay_in_thread(source, bus, when_opened(monkeypatch, cmd_log))
    assert main(["log", "record", *bus, *UNTIL_400, "--out", str(copy), "--json"]) == 0
    thread.join()
    text = capsys.readouterr().out  # the recording's JSON and the replay's table
    assert "replayed" in text and "frames  400" in text
    assert json_report(text)["frames"] == 25 * 16
    assert [(m.arbitration_id, bytes(m.data)) for m in read_log(copy)] == [
        (m.arbitration_id, bytes(m.data)) for m in read_log(source)]


@pytest.mark.parametrize("interface", LIVE_BUSES)
def test_busload_of_a_live_bus(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch, interface: str) -> None:
    source = tmp_path / "sim.log"
    ScheduleSim(Schema(), log_path=str(source)).run(0.1)
    bus = _live(interface, "load-cli")
    thread = replay_in_thread(source, bus, when_opened(monkeypatch, cmd_busload))
    assert main(["busload", *bus, *UNTIL_400, "--json"]) == 0
    thread.join()
    text = capsys.readouterr().out
    out = json_report(text)
    offline = LoadMeter().add_all(read_log(source)).report()
    assert out["frames"] == 400 and out["bits"] == offline["bits"]
