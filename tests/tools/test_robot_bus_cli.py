"""`busload`, `bussim` and `analyze timing` with --robot: a shipped robot or a description file
sets the DBC, period, bit rate and measurement size; a bad one is an `error:` line."""

from pathlib import Path

import pytest

from servobus.bus.dbc_generate import TimeTriggeredBus, generate
from tests.tools.cli_io import DAVIS, cli_error, cli_json

ROBOTS = Path(__file__).resolve().parents[2] / "robots"






def five_joint_robot(folder: Path) -> Path:
    """A 5-joint description at 5 ms, 500 kbit/s, 6-byte measurements, its DBC beside it
    (groups: joints 1-4, 5)."""
    boards = "".join(f'    {{ kind = "board", name = "B{j}", id = {j}, joints = [{j}] }},\n'
                     for j in range(1, 6))
    path = folder / "five.toml"
    path.write_text('name = "five"\njoints = 5\nperiod = "5ms"\nmeas_bytes = 6\nnodes = [\n'
                    '    { kind = "time-trigger", name = "T" },\n' + boards +
                    '    { kind = "host", name = "H" },\n]\n\n[bus]\nbitrate = 500000\n'
                    'dbc = "five.dbc"\n')
    (folder / "five.dbc").write_text(generate(TimeTriggeredBus(
        "five", tuple(f"B{j}" for j in range(1, 6)), ((1, 2, 3, 4), (5,)), 5, 500_000,
        "T", "H")).as_dbc_string())
    return path


def test_busload_of_the_leg_by_name_and_by_path(capsys: pytest.CaptureFixture[str]) -> None:
    by_name = cli_json(capsys, ["busload", "--robot", "spejbl-leg", "--json"])
    assert [f["name"] for f in by_name["schedule"]] == \
        ["TICK", *(f"MEAS_{j}" for j in range(1, 7)), "ACTUATION_1", "ACTUATION_2"]
    assert (by_name["period_s"], by_name["bitrate"], by_name["meas_bytes"]) == \
        (0.004, 1_000_000, 2)
    # TICK, 6 MEAS, ACTUATION_1 of joints 1-4 (8 bytes), ACTUATION_2 of joints 5-6 (4 bytes)
    bits = DAVIS[1] + 6 * DAVIS[2] + DAVIS[8] + DAVIS[4]
    assert by_name["models"]["worst_case"]["frame_bits"] == bits == 745
    assert by_name["models"]["worst_case"]["load_pct"] == pytest.approx(bits / 4000 * 100)
    assert cli_json(capsys, ["busload", "--robot", str(ROBOTS / "spejbl-leg.toml"), "--json"]) == \
        by_name


def test_busload_of_spejbl_is_the_default_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_json(capsys, ["busload", "--robot", "spejbl", "--json"]) == \
        cli_json(capsys, ["busload", "--json"])


def test_busload_takes_the_descriptions_period_bitrate_and_measurements(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = cli_json(capsys, ["busload", "--robot", str(five_joint_robot(tmp_path)), "--json"])
    assert (report["period_s"], report["bitrate"], report["meas_bytes"]) == (0.005, 500_000, 6)
    assert [f["name"] for f in report["schedule"]][1:6] == [f"MEAS6_{j}" for j in range(1, 6)]
    bits = DAVIS[1] + 5 * DAVIS[6] + DAVIS[8] + DAVIS[2]  # 850 bits of 2 us in 5 ms
    assert report["models"]["worst_case"]["load_pct"] == pytest.approx(bits * 2 / 5000 * 100)


def test_explicit_options_override_the_robots(capsys: pytest.CaptureFixture[str]) -> None:
    report = cli_json(capsys, ["busload", "--robot", "spejbl-leg", "--period", "8ms", "--bitrate",
                            "500k", "--meas-bytes", "6", "--json"])
    assert (report["period_s"], report["bitrate"], report["meas_bytes"]) == (0.008, 500_000, 6)
    bits = DAVIS[1] + 6 * DAVIS[6] + DAVIS[8] + DAVIS[4]  # 985 bits of 2 us in 8 ms
    assert report["models"]["worst_case"]["load_pct"] == pytest.approx(bits * 2 / 8000 * 100)


def test_busload_of_a_cyclic_robot_is_its_dbcs(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_json(capsys, ["busload", "--robot", "guroo", "--json"]) == \
        cli_json(capsys, ["busload", "--dbc", "guroo.dbc", "--json"])


def test_bussim_and_timing_of_the_leg(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    log = tmp_path / "leg.asc"
    sim = cli_json(capsys, ["bussim", "--robot", "spejbl-leg", "--duration", "0.1", "--log",
                         str(log), "--json"])
    assert sim["frames"] == 25 * 9 and sim["host_complete_periods"] == 25
    assert {n for n in sim["nodes"] if n.startswith("JOINT_")} == \
        {f"JOINT_{j}" for j in range(1, 7)}
    timing = cli_json(capsys, ["analyze", "timing", "--robot", "spejbl-leg", "--log", str(log),
                            "--json"])
    assert timing["ticks"] == 25 and list(timing["tick_to_meas_us"]) == \
        [f"MEAS_{j}" for j in range(1, 7)]
    assert timing["missing_meas"] == timing["missing_actuation"] == {"periods": 0, "frames": 0}


def test_bussim_and_timing_of_the_can_fd_robot(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """spejbl-fd's schedule on its 1/5 Mbit/s bus: 14 FD frames a period, every period complete,
    the TICK's bound its response time by hand (blocked by ACTUATION_1, 88 us, then itself,
    41 us); the log's FD frames read back by `analyze timing` on the DBC's bit timing."""
    log = tmp_path / "fd.blf"
    sim = cli_json(capsys, ["bussim", "--robot", "spejbl-fd", "--duration", "0.1", "--log",
                         str(log), "--json"])
    assert sim["frames"] == 25 * 14 and sim["host_complete_periods"] == 25
    assert sim["tick_latency_bound_s"] == pytest.approx(129e-6)
    assert sim["ticks_delayed"] == 0
    timing = cli_json(capsys, ["analyze", "timing", "--robot", "spejbl-fd", "--log", str(log),
                            "--json"])
    assert timing["ticks"] == 25 and "CAN FD" in timing["bit_timing"]
    assert timing["missing_meas"] == timing["missing_actuation"] == {"periods": 0, "frames": 0}


def test_timing_takes_the_descriptions_period(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    robot = str(five_joint_robot(tmp_path))
    log = tmp_path / "five.log"
    sim = cli_json(capsys, ["bussim", "--robot", robot, "--duration", "0.1", "--log", str(log),
                         "--json"])
    assert sim["host_complete_periods"] == 20  # 5 ms periods
    timing = cli_json(capsys, ["analyze", "timing", "--robot", robot, "--log", str(log), "--json"])
    assert timing["period_us"] == 5000 and timing["ticks"] == 20
    assert timing["missing_meas"] == {"periods": 0, "frames": 0}


@pytest.mark.parametrize("command", [["busload"], ["bussim", "--duration", "0.01"]])
def test_bad_robots_are_clear_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                     command: list[str]) -> None:
    assert "error: --robot: /no/such.toml: no such file and no shipped robot of that name" in \
        cli_error(capsys, [*command, "--robot", "/no/such.toml"])
    assert "--robot names its own DBC" in \
        cli_error(capsys, [*command, "--robot", "spejbl-leg", "--dbc", "guroo.dbc"])
    bad = tmp_path / "bad.toml"
    bad.write_text((ROBOTS / "spejbl-leg.toml").read_text().replace("joints = 6", "joints = 0"))
    assert f"{bad}: joints" in cli_error(capsys, [*command, "--robot", str(bad)])
    missing = tmp_path / "leg.toml"
    missing.write_text((ROBOTS / "spejbl-leg.toml").read_text().replace(
        '"spejbl-leg.dbc"', '"leg.dbc"'))  # neither beside it nor shipped
    assert f"{missing}: bus.dbc: {tmp_path / 'leg.dbc'}: no such file" in \
        cli_error(capsys, [*command, "--robot", str(missing)])


@pytest.mark.parametrize("command", [["bussim"], ["analyze", "timing", "--log", "x.log"]])
def test_a_cyclic_robot_has_no_tick_schedule(capsys: pytest.CaptureFixture[str],
                                             command: list[str]) -> None:
    assert "guroo is a cyclic robot" in cli_error(capsys, [*command, "--robot", "guroo"])
