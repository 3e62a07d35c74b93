"""GuRoo's cyclic schedule (dbc/guroo.dbc): loads per slot and response times, checked by hand."""

import json
from pathlib import Path

import pytest

from servobus.bus import frame_bits as fb
from servobus.bus.busload_cyclic import busload_cyclic, typical_frame
from servobus.bus.schema import Schema, shipped_dbc
from servobus.tools.cli import main

GUROO = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))


def test_worst_case_slots_by_hand() -> None:
    """Davis: an 8-byte frame is 34 + 64 + 13 + floor(97 / 4) = 135 bits, the 2-byte
    SERVO_STATUS 34 + 16 + 13 + floor(49 / 4) = 75.  Slot 0 (t = 0): 7 set-points + 5 feedbacks
    + the status = 12 * 135 + 75 = 1695 bits, 305 us left of 2 ms; slot 1: 7 * 135 = 945."""
    report = busload_cyclic(GUROO)
    assert report["hyperperiod_s"] == 4e-3 and report["slot_s"] == 2e-3
    model = report["models"]["worst_case"]
    assert [s["frame_bits"] for s in model["slots"]] == [1695, 945]
    assert [s["frames"] for s in model["slots"]] == [13, 7]
    assert model["slots"][0]["time_left_s"] == pytest.approx(305e-6)
    assert model["slots"][1]["time_left_s"] == pytest.approx(1055e-6)
    assert model["frame_bits"] == 1695 + 945 == 2640
    assert model["load_pct"] == pytest.approx(66.0)
    assert model["slot_load_max_pct"] == pytest.approx(84.75)


def test_stretch_and_no_stuffing_by_hand() -> None:
    """6/5: 98 stuffable bits + 19 + 13 = 130 (8 bytes), 50 + 10 + 13 = 73 (2 bytes);
    no stuffing: 111 and 63."""
    models = busload_cyclic(GUROO)["models"]
    assert [s["frame_bits"] for s in models["stretch_6_5"]["slots"]] == [12 * 130 + 73, 7 * 130]
    assert [s["frame_bits"] for s in models["no_stuffing"]["slots"]] == [12 * 111 + 63, 7 * 111]


def test_exact_lies_between_and_counts_real_payloads() -> None:
    report = busload_cyclic(GUROO)
    exact, models = report["exact"], report["models"]
    for k in range(2):
        bits = exact["slots"][k]["frame_bits"]
        assert models["no_stuffing"]["slots"][k]["frame_bits"] <= bits
        assert bits <= models["worst_case"]["slots"][k]["frame_bits"]
    # round 0: every set-point frame all zero (seq 0) but its ID
    vel = GUROO.message("VEL_SP_1")
    assert typical_frame(GUROO, vel, 0).data == bytes(8)
    assert typical_frame(GUROO, GUROO.message("FEEDBACK_3"), 0).data == bytes(6) + bytes([0x30, 0])
    assert exact["slot_bits_max"] >= fb.exact_frame_bits(vel.frame_id, bytes(8)) * 7


def test_lowest_priority_wcrt_by_hand() -> None:
    """SERVO_STATUS (0x45, lowest): no blocking; all 12 higher frames once (7 set-points of
    period 2 ms and 5 feedbacks of 4 ms all fit before 2 ms): w = 12 * 135 us = 1620 us,
    R = 1620 + 75 = 1695 us.  VEL_SP_1 (highest): blocked by one 135-bit frame: 270 us."""
    rows = {r["name"]: r for r in busload_cyclic(GUROO)["messages"]}
    assert rows["SERVO_STATUS"]["wcrt_s"] == pytest.approx(1695e-6)
    assert rows["VEL_SP_1"]["wcrt_s"] == pytest.approx(270e-6)
    assert rows["SERVO_SP_2"]["wcrt_s"] == pytest.approx(135e-6 + 7 * 135e-6)
    assert all(r["meets_deadline"] for r in rows.values())


def test_cli_json_from_repo_path_and_bare_name(capsys: pytest.CaptureFixture[str]) -> None:
    repo_dbc = Path(__file__).parents[2] / "dbc" / "guroo.dbc"
    outs = []
    for dbc in (str(repo_dbc), "guroo.dbc"):
        assert main(["busload", "--dbc", dbc, "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1]
    assert outs[0]["schedule_kind"] == "cyclic" and len(outs[0]["messages"]) == 13
    assert main(["busload", "--dbc", "guroo.dbc"]) == 0
    assert "SERVO_STATUS  0x045   1695.0 us  ok" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--bitrate", "125k"], "impossible schedule"),
    (["--period", "4ms"], "--period applies to a tick schedule"),
    (["--meas-bytes", "6"], "--meas-bytes applies to a tick schedule"),
])
def test_cli_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["busload", "--dbc", "guroo.dbc", *argv]) == 2
    assert message in capsys.readouterr().err


def test_no_cyclic_message_is_an_error(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    text = shipped_dbc("guroo.dbc").read_text()
    lines = [line for line in text.splitlines() if "GenMsgCycleTime\" BO_" not in line]
    path = tmp_path / "none.dbc"
    path.write_text("\n".join(lines) + "\n")
    assert main(["busload", "--dbc", str(path)]) == 2
    assert "no message has a GenMsgCycleTime" in capsys.readouterr().err
