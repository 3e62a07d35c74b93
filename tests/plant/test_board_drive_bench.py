"""`bench board`'s workload: both kernels' drivers run the same boards through the same
reversing references (a fair comparison), and the bench reports every figure it documents."""

import numpy as np

from servobus.firmware import memory as m
from servobus.plant import bench
from servobus.presets.firmware_image import Q12_AMP


def test_both_drivers_get_identical_banks_through_the_reversing_reference() -> None:
    banks = {name: bench._Bank(3) for name in bench.DRIVERS}
    for name, driver in bench.DRIVERS.items():
        banks[name].run(driver, 30)  # ticks 0..29: the reference reversed at tick 25
    today, lean = (banks[name].args for name in ("today", "lean"))
    for a, b in zip(today, lean, strict=True):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))
    assert list(lean[0][:, m.IW_REF]) == [-round(0.8 * Q12_AMP)] * 3
    assert list(lean[0][:, m.TICKS]) == [30] * 3


def test_calls_cover_the_ticks_in_one_second_chunks() -> None:
    calls = bench._calls(600, start=10)
    assert [len(c) for c in calls] == [250, 250, 100]
    assert calls[0][0] == 10 and calls[-1][-1] == 609


def test_bench_board_reports_its_figures() -> None:
    out = bench.bench_board(seconds=0.2, reference_seconds=0.004)
    assert out["sim_s"] == 0.2 and out["ticks_per_call"] == 250
    for key in ("python_per_tick_sim_s_per_wall_s", "kernel_ns_per_pwm_period_today",
                "kernel_ns_per_pwm_period_lean", "bank12_ns_per_board_period_lean"):
        assert 0.0 < out[key] < float("inf")
