"""Bus load and host window under the three models, response times, and measured load."""

import pytest

from servobus.bus import frame_bits as fb
from servobus.bus.busload import busload
from servobus.bus.load_meter import LoadMeter
from servobus.bus.rta import MessageTiming, response_times
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema

SCHEMA = Schema()


def test_thesis_upper_estimate_by_hand() -> None:
    """One whole stuff bit per 5 bits of SOF..CRC: tick 34+8 = 42 -> 42 + 8 = 50, +13 = 63
    (42 is no multiple of 5: 8.4 floors to 8); measurement 34+16 = 50 -> 50 + 10 = 60, +13 = 73
    (a multiple of 5); actuation 34+64 = 98 -> 98 + 19 = 117, +13 = 130."""
    report = busload(SCHEMA)
    model = report["models"]["stretch_6_5"]
    assert [f["stretch_6_5"] for f in report["schedule"]] == [63] + [73] * 12 + [130] * 3
    assert model["frame_bits"] == 63 + 12 * 73 + 3 * 130 == 1329
    assert model["load_pct"] == pytest.approx(1329 / 4000 * 100)
    assert model["host_window_s"] == pytest.approx(4e-3 - 1329e-6)
    assert model["host_window_thesis_s"] == pytest.approx(4e-3 - 1266e-6)
    assert model["host_window_thesis_pct"] == pytest.approx(100 * (4000 - 1266) / 4000)


def test_six_byte_measurements_by_hand() -> None:
    """MEAS6: 34+48 = 82 -> 82 + 16 = 98, +13 = 111 per frame; the windows follow."""
    model = busload(SCHEMA, meas_bytes=6)["models"]["stretch_6_5"]
    assert model["frame_bits"] == 63 + 12 * 111 + 3 * 130 == 1785
    assert model["host_window_s"] == pytest.approx(4e-3 - 1785e-6)
    assert model["host_window_thesis_s"] == pytest.approx(4e-3 - 1722e-6)


@pytest.mark.parametrize("meas_bytes", [2, 6])
def test_thesis_window_exceeds_strict_by_exactly_the_tick_frame(meas_bytes: int) -> None:
    report = busload(SCHEMA, meas_bytes=meas_bytes)
    tick = dict(report["schedule"][0])
    assert tick["name"] == "TICK"
    for name, model in report["models"].items():
        extra_bits = round((model["host_window_thesis_s"] - model["host_window_s"]) * 1e6)
        assert extra_bits == tick[name]  # 1 bit = 1 us at 1 Mbit/s
    exact = report["exact"]
    tick_exact = {round((exact["host_window_thesis_s"] - exact["host_window_s"]) * 1e6)}
    assert tick_exact <= {fb.exact_frame_bits(0x010, bytes([s])) for s in range(256)}


def test_models_are_ordered_and_exact_lies_between() -> None:
    for meas_bytes in (2, 6):
        r = busload(SCHEMA, meas_bytes=meas_bytes)
        loads = {k: v["load_pct"] for k, v in r["models"].items()}
        assert loads["no_stuffing"] <= r["exact"]["load_pct"] <= loads["worst_case"]
        assert r["models"]["worst_case"]["frame_bits"] == 65 + 12 * (75 if meas_bytes == 2
                                                                      else 115) + 3 * 135


def test_window_scales_with_period_and_bitrate() -> None:
    slow = busload(SCHEMA, period_ns=4_000_000, bitrate=500_000)
    assert slow["models"]["worst_case"]["load_pct"] == pytest.approx(2 * 34.25)
    with pytest.raises(ValueError, match="bit rate"):
        busload(SCHEMA, bitrate=3_000_000)


def test_response_time_analysis_small_example_by_hand() -> None:
    msgs = [MessageTiming("A", 1, 100, 1000, 1000), MessageTiming("B", 2, 100, 1000, 1000),
            MessageTiming("C", 3, 100, 1000, 1000)]
    # A: blocked by one lower frame (100) + itself = 200; B: 100 + A 100 + 100 = 300;
    # C: no blocking, A and B once, itself: 300
    assert response_times(msgs, 1) == {"A": 200, "B": 300, "C": 300}
    overload = [MessageTiming("A", 1, 600, 1000, 1000), MessageTiming("B", 2, 600, 1000, 1000)]
    assert response_times(overload, 1)["B"] is None


def test_every_message_meets_its_deadline_on_the_default_schedule() -> None:
    rows = busload(SCHEMA, meas_bytes=6)["messages"]
    assert all(r["meets_deadline"] for r in rows)
    assert rows[0]["name"] == "TICK" and rows[0]["wcrt_s"] == pytest.approx(200e-6)


def test_measured_load_of_a_recorded_run_matches_the_exact_model(tmp_path) -> None:
    log = tmp_path / "run.log"
    ScheduleSim(SCHEMA, log_path=str(log)).run(1.024)
    from servobus.bus.log_reader import read_log

    meter = LoadMeter(window_s=0.004).add_all(read_log(log))
    report = meter.report()
    exact = busload(SCHEMA)["exact"]
    assert report["frames"] == 256 * 16
    assert report["window_load_mean_pct"] == pytest.approx(exact["load_pct_mean"], abs=0.2)
