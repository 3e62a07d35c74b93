"""Sweep files: axes, points, per-point seeds, metrics, and the errors of a bad file."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.sweep import measures
from servobus.sweep.spec import SweepError, load, parse, point_key, seconds, shipped
from servobus.sweep.task import Task, finished, is_error, metric, options, point_tuning, status
from servobus.tools.cmd_sweep import option_types

TYPES = option_types()  # the run command's option types

FILE = Path("/tmp/sweep.toml")


def spec_of(**raw: object) -> object:
    base = {"name": "t", "seed": 3, "metrics": ["slips"], "axes": {"alpha": [1.0, 2.0]}}
    return parse({**base, **raw}, FILE, TYPES)


def test_grid_log_random_and_replicate_axes() -> None:
    spec = spec_of(axes={"alpha": {"grid": [1, 100], "num": 3, "scale": "log"},
                         "omega_i": {"random": [2.0, 4.0], "count": 4},
                         "replicate": {"count": 2}})
    assert spec.axes["alpha"] == [1.0, 10.0, 100.0]
    assert len(spec.axes["omega_i"]) == 4 and all(2.0 <= v <= 4.0 for v in spec.axes["omega_i"])
    assert len(set(spec.axes["omega_i"])) == 4
    assert spec.axes["replicate"] == [0, 1]
    points = spec.points()
    assert len(points) == 3 * 4 * 2
    assert points[0] == {"alpha": 1.0, "omega_i": spec.axes["omega_i"][0], "replicate": 0}
    # random draws come from the sweep seed: the same file gives the same values
    again = spec_of(axes=dict(spec_of(axes={"omega_i": {"random": [2.0, 4.0], "count": 4}}).axes))
    assert again.axes["omega_i"] == spec.axes["omega_i"]
    other = parse({"name": "t", "seed": 4, "metrics": ["slips"],
                   "axes": {"omega_i": {"random": [2.0, 4.0], "count": 4}}}, FILE, TYPES)
    assert other.axes["omega_i"] != spec.axes["omega_i"]


@given(st.permutations([1.0, 2.0, 4.0, 8.0]), st.integers(0, 2**32 - 1))
def test_a_points_seed_depends_on_the_point_not_its_place(order: list[float], seed: int) -> None:
    ordered = spec_of(seed=seed, axes={"alpha": [1.0, 2.0, 4.0, 8.0], "tuning": ["R2", "R2b"]})
    shuffled = spec_of(seed=seed, axes={"alpha": order, "tuning": ["R2b", "R2"]})
    by_key = {point_key(p): ordered.run_seed(p) for p in ordered.points()}
    assert by_key == {point_key(p): shuffled.run_seed(p) for p in shuffled.points()}
    assert len(set(by_key.values())) == 8  # 8 points, 8 seeds
    assert all(0 <= s < 2**32 for s in by_key.values())


def test_a_seed_axis_is_the_run_seed_and_the_sweep_seed_changes_the_rest() -> None:
    assert spec_of(axes={"seed": [7, 9]}).run_seed({"seed": 9}) == 9
    assert spec_of(seed=1).run_seed({"alpha": 1.0}) != spec_of(seed=2).run_seed({"alpha": 1.0})


def test_the_fingerprint_follows_base_and_metrics_not_axes() -> None:
    one = spec_of()
    assert one.fingerprint() == spec_of(axes={"alpha": [5.0]}).fingerprint()
    assert one.fingerprint() != spec_of(base={"duration": 2}).fingerprint()
    assert one.fingerprint() != spec_of(metrics=["ticks"]).fingerprint()


@pytest.mark.parametrize("raw, message", [
    ({"axes": {}}, "at least one axis"),
    ({"axes": {"alfa": [1]}}, "axis 'alfa'"),
    ({"axes": {"fault": ["x"]}}, "axis 'fault'"),
    ({"axes": {"alpha": {"grid": [2, 1], "num": 3}}}, "lo < hi"),
    ({"axes": {"alpha": {"grid": [1, 2], "num": 0}}}, "count must be"),
    ({"axes": {"alpha": {"steps": 3}}}, "give a list"),
    ({"axes": {"alpha": []}}, "no values"),
    ({"base": {"durations": 1}}, "base option 'durations'"),
    ({"metrics": []}, "non-empty list"),
    ({"metrics": ["median:slips"]}, "reductions are"),
    ({"seed": -1}, "seed: -1: -1 is outside 0..4294967295"),
    ({"plot": {"kind": "pie"}}, "plot kind 'pie'"),
    ({"colour": "red"}, "unknown keys"),
    ({"metrics": ["slips", "wall_time_s"]}, "'wall_time_s' is wall-clock"),
    ({"metrics": ["max:rtf"]}, "'max:rtf' is wall-clock"),
    ({"metrics": ["compile_s"]}, "'compile_s' is wall-clock"),
    ({"base": {"duration": "2 minutes"}}, "base.duration: '2 minutes': bad time"),
    ({"base": {"duration": 0}}, "base.duration: 0: 0 is outside"),
    ({"axes": {"duration": ["1s", "1h"]}}, "axes.duration: '1h'"),
    ({"axes": {"duration": ["1s", "2d"]}}, "axes.duration: '2d'"),
    ({"base": {"duration": 100_000}}, "base.duration: 100000: 100000 is outside"),
    ({"base": {"mode": "local_p"}}, "base.mode: 'local_p': use cascade, local-p"),
    ({"base": {"engine": "fast"}}, "base.engine: 'fast'"),
    ({"base": {"sensing": "bipolar"}}, "base.sensing: 'bipolar'"),
    ({"base": {"anti-windup": "none"}}, "base.anti_windup: 'none'"),
    ({"axes": {"tuning": ["R2", "R3"]}}, "axes.tuning: 'R3'"),
    ({"measure": {"windows_s": 2.0}}, r"\[measure\] keys \['windows_s'\]"),
    ({"axes": {"alpha": [1, 2, 1]}}, "axes.alpha: 1: repeats the value 1"),
    ({"axes": {"alpha": {"grid": [1, 1.000001], "num": 5}}}, "repeats the value"),
    # issue 25, class 1: every value with the type and range of the run option it sets
    ({"axes": {"alpha": ["abc"]}}, "axes.alpha: 'abc': 'abc' is not a number"),
    ({"axes": {"alpha": [1000]}}, r"axes.alpha: 1000: 1000 is outside \[0.01, 100\]"),
    ({"base": {"alpha": 0}}, "base.alpha: 0: 0 is outside"),
    ({"axes": {"alpha": [[1, 2]]}}, "give one number or 12"),
    ({"axes": {"alpha": [float("nan")]}}, "axes.alpha: nan"),
    ({"axes": {"alpha": [True]}}, "axes.alpha: True"),
    ({"axes": {"seed": [-1]}}, "axes.seed: -1: -1 is outside"),
    ({"axes": {"seed": [1.5]}}, "axes.seed: 1.5: '1.5' is not a whole number"),
    ({"base": {"seed": 3}}, "base.seed: 3: each point's run seed"),
    ({"axes": {"omega_d": [0]}}, "axes.omega_d: 0: 0 is outside"),
    ({"axes": {"omega_d": [-5]}}, "axes.omega_d: -5: -5 is outside"),
    ({"axes": {"omega_i": ["fast"]}}, "axes.omega_i: 'fast'"),
    ({"axes": {"k_kp": [0.0]}}, "axes.k_kp: 0.0"),
    ({"axes": {"corrupt_rate": [-0.1]}}, r"axes.corrupt_rate: -0.1: -0.1 is outside \[0, 1\]"),
    ({"axes": {"corrupt_rate": [1.5]}}, "axes.corrupt_rate: 1.5"),
    ({"axes": {"silence_ms": [-20]}}, "axes.silence_ms: -20"),
    ({"axes": {"meas_bytes": [2, 3]}}, "axes.meas_bytes: 3: use 2, 6"),
    ({"axes": {"meas_bytes": [2.0]}}, "axes.meas_bytes: 2.0: use 2, 6"),
    ({"axes": {"mode": [["cascade"]]}}, "axes.mode: \\['cascade'\\]: give one value"),
    ({"axes": {"replicate": ["a"]}}, "axes.replicate: 'a'"),
    ({"axes": {"alpha": [1, 1.0]}}, "axes.alpha: 1.0: repeats the value 1"),
    ({"axes": {"replicate": [1, 1.0]}}, "axes.replicate: 1.0"),
    ({"base": {"fault": "tick drop at 1s"}}, "base.fault: 'tick drop at 1s': give a list"),
    ({"base": {"trajectory": 3}}, "base.trajectory: 3: give a file name"),
    # a grid or draw that cannot be built names the axis
    ({"axes": {"alpha": {"grid": [0, 10], "num": 3, "scale": "log"}}},
     r"axes.alpha.grid: \[0, 10\]: a log scale needs lo > 0"),
    ({"axes": {"alpha": {"random": [-1, 10], "count": 3, "scale": "log"}}},
     "axes.alpha.random: .*a log scale needs lo > 0"),
    ({"axes": {"alpha": {"grid": [1, 10], "num": 3, "scale": "lgo"}}},
     "axes.alpha.scale: 'lgo': use lin or log"),
    ({"axes": {"alpha": {"grid": [1, 10], "nun": 3}}}, "unknown keys \\['nun'\\]"),
    ({"axes": {"alpha": {"grid": [1, float("inf")], "num": 3}}}, "finite numbers"),
    ({"axes": {"alpha": {"grid": [False, True], "num": 3}}}, "finite numbers"),
    ({"axes": {"alpha": {"grid": [1, 1000], "num": 4}}}, "axes.alpha: 334.0: 334.0 is outside"),
    # [measure] settings, run lengths for the metrics, metrics the report cannot give
    ({"measure": {"window_s": -1}}, "measure.window_s: -1: -1 is outside"),
    ({"measure": {"joint": 13}}, "measure.joint: 13"),
    ({"measure": {"threshold_lsb": "high"}}, "measure.threshold_lsb: 'high'"),
    ({"metrics": ["oscillation"], "base": {"duration": 1.5}},
     "duration: 1.5: oscillation needs a run of at least two measure.window_s"),
    ({"metrics": ["fault_detection"], "base": {"duration": "1s"}, "measure": {"at_s": 0.99},
      "axes": {"silence_ms": [0, 20]}}, "measure.at_s: 0.99: a silence of 20 ms"),
    ({"metrics": ["slip"]}, "metrics: 'slip': the run report has no 'slip'"),
    ({"metrics": ["tracking_rms_lsb"]}, "metrics: 'tracking_rms_lsb': .* is a list: reduce"),
    ({"metrics": ["max:slips"]}, "metrics: 'max:slips': slips is a single figure"),
    ({"plot": {"kind": "heatmap"}, "axes": {"omega_d": [10, 20], "omega_i": [1, 2]},
      "measure": {"value": "rms"}}, "measure.value: 'rms'"),
    # a base fault, action or trajectory, or an engine ruled out, fails in every point
    ({"base": {"fault": ["node 13 silent at 0.5s"]}}, "cannot run: fault 'node 13 silent"),
    ({"base": {"do": ["explode 3 at 1s"]}}, "cannot run: action 'explode 3 at 1s'"),
    ({"base": {"duration": 2, "fault": ["node 5 silent at 3s"]}},
     "cannot run: fault .node 5 silent at 3s.: .*end"),
    ({"base": {"engine": "compiled"}, "axes": {"corrupt_rate": [0, 0.1]}},
     "the point {'corrupt_rate': 0.1} .*cannot run: engine compiled"),
    ({"base": {"engine": "period"}, "axes": {"alpha": [1, 2], "silence_ms": [0, 20]}},
     "the point {'alpha': 1, 'silence_ms': 20} .*cannot run: engine period"),
    ({"base": {"trajectory": "/dev/null"}}, "base.trajectory: '/dev/null'"),
    ({"name": "../x"}, "name: '../x': give a plain name"),
    ({"plot": {"kind": "alpha-scan"}}, "plot.kind: 'alpha-scan': its summary needs axis tuning, "
     "metric oscillation"),
    ({"plot": {"kind": "fault-campaign"}}, "needs metric fault_detection"),
    ({"plot": {"kind": "heatmap"}, "axes": {"omega_d": [10, 20]},
      "measure": {"value": "slips"}}, "needs axis omega_i"),
    ({"name": 5}, "name: 5: give a plain name"),
    ({"metrics": ["slips", "slips"]}, "metrics: 'slips': a second column"),
    ({"metrics": ["engine"], "axes": {"engine": ["auto", "period"]}},
     "metrics: 'engine': a second column"),
    ({"axes": {"anti-windup": ["soft"], "anti_windup": ["hard"]}},
     "axes.anti_windup: \\['hard'\\]: anti_windup is given twice"),
    # the number of points is counted before any is made
    ({"axes": {"alpha": {"grid": [1, 2], "num": 1000}, "omega_d": {"grid": [1, 2], "num": 1000},
               "omega_i": {"grid": [1, 2], "num": 1000}}},
     "1000 x 1000 x 1000 = 1000000000 points: a sweep holds at most 100000"),
])
def test_bad_sweep_files_are_errors_naming_the_problem(raw: dict, message: str) -> None:
    with pytest.raises(SweepError, match=message):
        spec_of(**raw)


def test_shipped_sweeps_load_by_name_with_their_trajectory() -> None:
    assert shipped() == ["alpha-scan", "fault-campaign", "tuning-map"]
    scan = load("alpha-scan", TYPES)
    assert scan.trajectory_text is not None and "552" in scan.trajectory_text
    assert len(scan.points()) == 64 and scan.plot == "alpha-scan"
    assert len(load("fault-campaign", TYPES).points()) == 45
    with pytest.raises(SweepError, match="no shipped sweep"):
        load("alpha-scna", TYPES)


def test_fault_axes_become_fault_lines_and_tuning_axes_a_tuning_object_unregistered() -> None:
    task = Task(0, {"corrupt_rate": 0.01, "silence_ms": 20.0, "omega_d": 40.0}, 5,
                {"fault": ["tick drop at 1s"], "tuning": "R2b"}, ["slips"],
                {"joint": 3, "at_s": 0.25}, None)
    opts = options(task)
    assert opts["fault"] == ["tick drop at 1s", "random-corrupt 0.01",
                             "node 3 silent at 0.25s for 20ms"]
    assert opts["seed"] == 5 and "corrupt_rate" not in opts
    from servobus.host.tunings import TUNINGS, Tuning

    custom = point_tuning(opts)
    assert isinstance(custom, Tuning) and (custom.omega_d, custom.omega_i) == (40.0, 3.12)
    assert custom.name not in TUNINGS and point_tuning({"tuning": "R2"}) == "R2"
    assert options(Task(0, {"silence_ms": 0, "corrupt_rate": 0.0}, 1, {}, [], {}, None))[
        "fault"] == []


def test_metrics_reduce_lists_and_dicts_and_refuse_what_is_not_a_figure() -> None:
    report = {"slips": 2, "tracking_rms_lsb": [1.0, 4.0, 2.5], "servo_faults": {"JOINT_5": 3,
                                                                                  "JOINT_2": 1}}
    assert metric(report, "slips") == 2
    assert metric(report, "max:tracking_rms_lsb") == 4.0
    assert metric(report, "mean:tracking_rms_lsb") == 2.5
    assert metric(report, "sum:servo_faults") == 4.0
    with pytest.raises(ValueError, match="reduce it"):
        metric(report, "tracking_rms_lsb")
    with pytest.raises(ValueError, match="no 'slip'"):
        metric(report, "slip")
    assert seconds("500ms") == 0.5 and seconds(2) == 2.0 and seconds("1.5s") == 1.5
    assert seconds("300us") == 0.0003 and seconds("4.5s") == 4.5
    healthy = {"servo_faults": {}, "trips": {}, "slips": 0, "deadline_misses": 0,
               "actuation_timeouts": {}}
    assert status(healthy) == "ok" and status({**healthy, "slips": 1}) == "fault"
    rows = [{"status": "ok"}, {"status": "error: KilledWorker: x"}, {"status": "fault"}, {}]
    assert [is_error(r.get("status", "error")) for r in rows] == [False, True, False, True]
    assert finished(rows) == [{"status": "ok"}, {"status": "fault"}]


def _records(error: np.ndarray) -> SimpleNamespace:
    """A robot whose host recorded `error` (periods x 2 joints) at 4 ms."""
    rows = [SimpleNamespace(tick_ns=k * 4_000_000, reference=e, measured=np.zeros(2))
            for k, e in enumerate(error)]
    return SimpleNamespace(host=SimpleNamespace(records=rows))


def test_oscillation_tells_a_sustained_swing_from_a_decaying_one() -> None:
    t = np.arange(750) * 0.004  # 3 s
    swing = np.sin(2 * np.pi * 10 * t)
    sustained = np.stack([30 * swing, 0 * t], axis=1)
    decaying = np.stack([0 * t, 60 * np.exp(-t) * swing], axis=1)
    small = np.stack([1.0 * np.sign(swing), 0 * t], axis=1)
    hot = measures.oscillation(_records(sustained), {"window_s": 1.0})
    assert hot["stable"] is False and hot["osc_ptp_lsb"] == pytest.approx(60, abs=0.5)
    assert hot["osc_growth"] == pytest.approx(1.0, abs=0.01)
    cool = measures.oscillation(_records(decaying), {"window_s": 1.0})
    assert cool["stable"] is True and cool["osc_ptp_lsb"] > 8
    assert cool["osc_growth"] == pytest.approx(np.exp(-1.0), rel=0.1)
    assert measures.oscillation(_records(small), {})["stable"] is True
    with pytest.raises(ValueError, match="shorter than two windows"):
        measures.oscillation(_records(sustained), {"window_s": 2.0})


def test_fault_detection_counts_inside_the_silence_and_false_alarms_elsewhere() -> None:
    # joint 5 silent from 0.5 s for 20 ms = periods 125..129; joint 2 missed at period 10
    periods = [(10, [2]), *((k, [5]) for k in range(125, 130)), (131, [5])]
    sup = SimpleNamespace(fault_periods=periods, fault_period_count=len(periods))
    robot = SimpleNamespace(host=SimpleNamespace(supervisor=sup),
                            schema=SimpleNamespace(tick_period_ns=4_000_000))
    got = measures.fault_detection(robot, {"joint": 5, "at_s": 0.5}, 20.0)
    assert got == {"injected_periods": 5, "detected_periods": 5, "false_alarm_periods": 2,
                   "detected": True, "recovery_s": 0.0}
    late = SimpleNamespace(fault_periods=[(k, [5]) for k in range(125, 131)],
                           fault_period_count=6)
    robot.host.supervisor = late
    assert measures.fault_detection(robot, {}, 20.0)["recovery_s"] == pytest.approx(0.004)


@pytest.mark.parametrize("argv, message", [
    (["sweep", "alpha-scan", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"],
     "--workers sizes the embedded cluster"),
    (["sweep", "no-such-sweep"], "no shipped sweep of that name"),
    (["sweep", "alpha-scan", "--workers", "0"], "outside"),
    (["sweep", "alpha-scan", "--out", "results.csv"], "must end in .parquet"),
])
def test_bad_sweep_command_lines_are_errors(argv: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from servobus.tools.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err


def test_summaries_pick_the_last_stable_alpha_and_tabulate_detection() -> None:
    from servobus.sweep.summary import alpha_scan, fault_campaign

    rows = [{"tuning": "R2", "alpha": a, "stable": s, "status": "ok"}
            for a, s in ((1.0, True), (2.0, True), (3.0, False), (4.0, True))]
    rows.append({"tuning": "R2", "alpha": 2.5, "status": "error: boom"})
    got = alpha_scan(rows)["R2"]
    assert (got["alpha_max_running"], got["first_unstable_alpha"]) == (2.0, 3.0)
    assert got["alpha_max_linear"] < got["alpha_max_linear_identified_q"]

    def run(rate: float, silence: float, detected: int, false: int) -> dict:
        return {"status": "fault", "corrupt_rate": rate, "silence_ms": silence,
                "injected_periods": round(silence / 4), "detected_periods": detected,
                "detected": detected > 0, "false_alarm_periods": false, "recovery_s": 0.004,
                "slips": 1, "deadline_misses": 0, "bus_off_events": 2}

    table = fault_campaign([run(0.1, 20, 5, 0), run(0.1, 20, 0, 3), run(0.1, 0, 0, 1)])
    quiet, silent = table
    assert (quiet["silence_ms"], quiet["detection_rate"], quiet["recovery_s_mean"]) == (
        0.0, None, None)
    assert silent["detection_rate"] == 0.5 and silent["detected_per_injected"] == 0.5
    assert silent["false_alarms_per_run"] == 1.5 and silent["runs_with_false_alarm"] == 1
    assert silent["bus_off_per_run"] == 2.0


def _run_accepts(option: str, text: str) -> bool:
    """Does `servobus run --OPTION TEXT` get past its argument check?"""
    from servobus.tools.cli import build_parser

    try:
        build_parser("run").parse_args(["run", f"--{option}", text])
    except SystemExit:
        return False
    return True


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["alpha", "seed", "duration", "mode", "meas-bytes"]),
       st.one_of(st.floats(), st.integers(-2**40, 2**40), st.sampled_from(
           ["cascade", "local-p", "2", "6", "1.5", "500ms", "2d", "abc", "1e3", "-1"])))
def test_a_sweep_value_is_refused_exactly_when_run_refuses_it(option: str,
                                                              value: float | int | str) -> None:
    accepted = _run_accepts(option, str(value))
    try:
        spec_of(axes={option: [value]})
    except SweepError as err:
        assert not accepted, err
        assert f"axes.{option.replace('-', '_')}: {value!r}: " in str(err)
    else:
        assert accepted
