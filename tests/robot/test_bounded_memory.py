"""Bounded memory (issue 11 item 5): the run's stores stop growing, the report stays exact.

The expected figures are computed the way report() computed them before the stores were
bounded (numpy over every period's record, every window, the old load meter)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.load_meter import LoadMeter
from servobus.host import supervisor as supervisor_module
from servobus.host.supervisor import Supervisor
from servobus.robot.assembly import Robot, RobotConfig

ALL = frozenset(range(1, 13))  # a SPEJBL host's joints


class OldMeter:
    """The load meter before streaming: every window's busy time in a dict."""

    def __init__(self, window_ns: int) -> None:
        self.w, self.windows, self.first, self.last = window_ns, {}, None, None

    def charge(self, start: int, end: int) -> None:
        if self.first is None:
            self.first = start
        if self.last is not None and start < self.last:
            start = min(self.last, end)
        self.last = end if self.last is None else max(self.last, end)
        k = (start - self.first) // self.w
        while True:
            hi = min(end, self.first + (k + 1) * self.w)
            self.windows[k] = self.windows.get(k, 0) + hi - max(start, self.first + k * self.w)
            if hi >= end:
                return
            k += 1

    def report(self) -> dict:
        lo, hi = min(self.windows), max(self.windows)
        per_window = [100.0 * self.windows.get(k, 0) / self.w for k in range(lo, hi + 1)]
        span = max(self.last - self.first, self.w)
        return {"load_pct": 100.0 * sum(self.windows.values()) / span,
                "window_load_max_pct": max(per_window),
                "window_load_mean_pct": sum(per_window) / len(per_window), "windows": per_window}


def old_figures(robot: Robot, meter: OldMeter) -> dict:
    """report()'s figures as computed from unbounded stores."""
    recs, sup = robot.host.records, robot.host.supervisor
    err = np.array([r.reference - r.measured for r in recs])
    w = np.array(sup.windows_ns) / 1e9
    return {"tracking_rms_lsb": np.sqrt(np.mean(err**2, axis=0)).round(3).tolist(),
            "tracking_max_lsb": np.abs(err).max(axis=0).round(3).tolist(),
            "host_window_measured_s": {"min": float(w.min()), "median": float(np.median(w)),
                                       "max": float(w.max())},
            "host_window_used_max_s": max(sup.used_ns) / 1e9,
            "bus_load_pct": meter.report()["load_pct"]}


SCENARIOS = [dict(seed=3), dict(seed=5, faults=["babble 0x001 at 0.3s for 40ms"]),
             dict(seed=7, mode="local-p", faults=["node 5 silent at 0.2s for 0.3s",
                                                  "host delay 3ms at 0.5s"])]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_bounded_report_equals_the_unbounded_computation_bit_for_bit(scenario) -> None:
    kept = Robot(RobotConfig(keep_records=True, engine="reference", **scenario))  # taps
    old = OldMeter(kept.meter._window_ns)
    assert kept.medium is not None
    kept.medium.taps.append(lambda rec: old.charge(rec.start_ns, rec.busy_until_ns))
    bounded = Robot(RobotConfig(engine="reference", **scenario))
    kept.run(0.9)
    bounded.run(0.9)
    want, got = kept.report(1.0), bounded.report(1.0)
    assert len(kept.host.records) == kept.host.records.count > 200
    assert kept.host.supervisor.ticks == 225
    assert got == want
    assert {k: got[k] for k in old_figures(kept, old)} == old_figures(kept, old)
    assert kept.meter.report()["windows"] == old.report()["windows"]


def stores(robot: Robot) -> dict[str, int]:
    """The size of every store that used to grow with simulated time."""
    sup, meter = robot.host.supervisor, robot.meter
    return {"records": len(robot.host.records), "windows": len(sup.windows_ns),
            "used": len(sup.used_ns), "window_counts": len(sup.window_counts),
            "fault_periods": len(sup.fault_periods), "meter_open": len(meter._open)}


def test_a_long_run_stores_stop_growing(monkeypatch) -> None:
    monkeypatch.setattr(supervisor_module, "FAULT_PERIODS", 200)
    robot = Robot(RobotConfig(faults=["node 3 silent at 0.1s"]))
    robot.run(2.2)
    at_2s = stores(robot)
    distinct = at_2s.pop("window_counts")
    closed_2s = robot.meter._done
    robot.run(3.8)
    at_6s = stores(robot)
    assert distinct <= at_6s.pop("window_counts") < 64  # a few new lengths, not one a period
    assert at_6s == at_2s
    assert at_2s["records"] == at_2s["windows"] == 500 and at_2s["meter_open"] <= 2
    # the meter kept streaming: every 4 ms window but the current one folded into its summary
    assert (closed_2s, robot.meter._done) == (549, 1499)
    assert "windows" not in robot.meter.report()
    sup = robot.host.supervisor
    assert sup.fault_period_count == sup.servo_faults[3] == sup.ticks - 1 - 25
    assert at_2s["fault_periods"] == 200 < sup.fault_period_count
    assert robot.host.records.count == sup.ticks == 1500


windows = st.lists(st.integers(0, 4_000_000), min_size=1, max_size=60)


@given(windows)
def test_window_stats_are_numpys_over_every_window(values) -> None:
    sup = Supervisor(expected=ALL, history=None)
    for v in values:
        sup._add_window(v)
    w = np.array(values) / 1e9
    assert sup.window_stats() == {"min": float(w.min()), "median": float(np.median(w)),
                                  "max": float(w.max())}


def test_past_max_distinct_lengths_the_median_is_quantised_and_min_max_stay_exact(
        monkeypatch) -> None:
    monkeypatch.setattr(supervisor_module, "MAX_DISTINCT", 4)
    sup = Supervisor(expected=ALL)
    for v in [3_000_001, 3_000_017, 3_000_029, 3_000_043, 3_000_051]:
        sup._add_window(v)
    assert sup.window_quantum_ns == 100 and dict(sup.window_counts) == {3_000_000: 5}
    assert sup.window_stats() == {"min": 3_000_001 / 1e9, "median": 3_000_000 / 1e9,
                                  "max": 3_000_051 / 1e9}



@settings(max_examples=200)
@given(st.lists(st.integers(0, 5_000), min_size=1, max_size=80), st.data())
def test_windows_counted_in_batches_equal_one_by_one(values, data) -> None:
    """The compiled engine hands a batch's windows at once: the counts, quantum, range and
    kept windows are those of one window at a time, coarsening included."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=6)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(supervisor_module, "MAX_DISTINCT", 5)
        one, batched = (Supervisor(expected=ALL, history=7) for _ in range(2))
        for v in values:
            one._add_window(v)
        for lo, hi in zip([0, *cuts], [*cuts, len(values)], strict=True):
            if hi > lo:
                batched._add_window_array(np.array(values[lo:hi], dtype=np.int64))
    assert (batched.window_counts, batched.window_quantum_ns, batched.window_range_ns,
            list(batched.windows_ns)) == (one.window_counts, one.window_quantum_ns,
                                          one.window_range_ns, list(one.windows_ns))
    assert one.window_quantum_ns > 1 or len(set(values)) <= 5

charges = st.lists(st.tuples(st.integers(-300, 3000), st.integers(0, 400)), min_size=1,
                   max_size=40)


@settings(max_examples=300)
@given(charges, st.sampled_from([7, 50, 100, 1000]))
def test_the_streaming_meter_reports_what_the_old_meter_did(intervals, window_ns) -> None:
    """Frames in and out of order (overlapping, before the first): same figures."""
    meters = [LoadMeter(1_000_000_000, window_ns / 1e9, keep_windows=k) for k in (True, False)]
    old = OldMeter(window_ns)
    t = 0
    for step, length in intervals:
        t += step
        old.charge(t, t + length)
        for meter in meters:
            meter.charge(t, t + length, length)
    want = old.report()
    kept, streamed = (m.report() for m in meters)
    for key in ("load_pct", "window_load_max_pct", "window_load_mean_pct"):
        assert kept[key] == streamed[key] == want[key], key
    assert kept["windows"] == want["windows"] and "windows" not in streamed
    assert len(meters[1]._open) <= 400 // window_ns + 3  # the last busy window + this frame


def test_the_plot_keeps_every_record() -> None:
    robot = Robot(RobotConfig(keep_records=True))
    robot.run(2.1)  # past the 500 periods kept without a plot
    assert len(robot.host.records) == len(robot.host.supervisor.windows_ns) + 1 == 525
    assert len(robot.meter.report()["windows"]) == 525
