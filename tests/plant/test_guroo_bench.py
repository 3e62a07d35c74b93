"""The bench figure's shape and the feathering demonstration's exact 1/16-count duty."""

from servobus.plant.guroo_bench import bench_guroo_board, feathering_step


def test_feathering_step_windows_average_to_output_over_16() -> None:
    demo = feathering_step("2002", word=1000, step=1, loops=3)
    rows = demo["loops"]
    assert [r["phase"] for r in rows] == ["before"] * 3 + ["after"] * 3
    for row in rows:
        assert row["window_mean_compares"] == [100 + row["output_q4"] / 16]  # zero at 100
    fractions = {abs(r["output_q4"]) % 16 for r in rows}
    assert fractions - {0}  # averages between whole compare counts appear
    assert rows[-1]["setpoint_cnt_s"] == 16016


def test_bench_reports_min_median_max() -> None:
    out = bench_guroo_board(0.01, repeats=3)
    ns = out["ns_per_period"]
    assert 0 < ns["min"] <= ns["median"] <= ns["max"]
