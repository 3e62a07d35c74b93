"""Bus load and host window under the three models, response times, and measured load."""

import pytest

from servobus.bus.busload import busload
from servobus.bus.load_meter import LoadMeter
from servobus.bus.rta import MessageTiming, response_times
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema

SCHEMA = Schema()


def test_thesis_upper_estimate_by_hand() -> None:
    """SOF..CRC stretched to 6/5: tick (34+8)*1.2 = 50.4 -> 51, +13 = 64; measurement (34+16)
    -> 60 + 13 = 73; actuation (34+64)*1.2 = 117.6 -> 118, +13 = 131."""
    report = busload(SCHEMA)
    model = report["models"]["stretch_6_5"]
    assert model["frame_bits"] == 64 + 12 * 73 + 3 * 131
    assert model["load_pct"] == pytest.approx(1333 / 4000 * 100)
    assert model["host_window_s"] == pytest.approx(4e-3 - 1333e-6)


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
    from servobus.bus.recorder import read_log

    meter = LoadMeter(window_s=0.004).add_all(read_log(log))
    report = meter.report()
    exact = busload(SCHEMA)["exact"]
    assert report["frames"] == 256 * 16
    assert report["window_load_mean_pct"] == pytest.approx(exact["load_pct_mean"], abs=0.2)
