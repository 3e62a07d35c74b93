"""The `servobus` commands end to end: JSON keys and values, plots, and clean errors."""

import json
from pathlib import Path

import pytest

from servobus.analysis.current_loop import lifted_plant
from servobus.presets.board import DEFAULT_BOARD
from servobus.tools.cli import main


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_step_json_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "step.png"
    out = _json(capsys, ["step", "--iw", "0.8", "--json", "--plot", str(png)])
    assert {"overshoot_pct", "peak_time_s", "peak_periods", "steady_state_a",
            "settling_time_s"} <= out.keys()
    assert abs(out["steady_state_a"] - 0.8) < 0.01
    assert out["peak_time_s"] == pytest.approx(out["peak_periods"] * 50e-6)
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_analyze_current_loop_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["analyze", "current-loop", "--json"])
    assert out["N"] == 6 and out["M"] == 12 and out["n"] == 0.674
    assert out["K"] == pytest.approx(0.6 / out["gs1_counts_per_pwm_count"])
    assert len(out["poles"]) == 3 and out["strictly_proper"]["pole"] == pytest.approx(0.7165, 1e-4)
    assert 0.1 < out["alias_bound_pct"] < 0.2
    assert out["sensing"] == "winding-bipolar" and out["adc_window"] == "ends-at-edge"
    zeros = sorted([complex(*z) for z in out["zeros"]], key=abs)  # the lifted plant's
    expected = sorted(lifted_plant(1.0, DEFAULT_BOARD).zpk()[0],  # zeros do not scale with k1
                      key=abs)
    assert zeros == pytest.approx(expected) and abs(zeros[-1]) == pytest.approx(1.0)
    assert abs(zeros[0]) < 1.0  # minimum phase under the default window
    assert len(out["timing"]) == 12 and out["timing"][1]["phase"] == 1


def test_step_and_analysis_agree_under_either_window(capsys: pytest.CaptureFixture[str]) -> None:
    for window in ("ends-at-edge", "previous-period"):
        sim = _json(capsys, ["step", "--plant", "averaged", "--sensing", "winding-bipolar",
                             "--rotor", "locked", "--adc-window", window, "--json"])
        lin = _json(capsys, ["analyze", "current-loop", "--adc-window", window, "--json"])
        assert abs(sim["overshoot_pct"] - lin["overshoot_pct"]) < 0.3
        assert sim["peak_periods"] == lin["peak_periods"]
    assert min(abs(complex(*z)) for z in lin["zeros"]) == pytest.approx(1.0)
    assert max(abs(complex(*z)) for z in lin["zeros"]) > 1.0  # previous period: non-minimum phase


def test_analyze_current_loop_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "current-loop"]) == 0
    out = capsys.readouterr().out
    assert "winding-bipolar sensing, ADC window ends-at-edge" in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()
            and len(line.split()) == 5]
    assert [(int(r[0]), int(r[1])) for r in rows] == [(p, d) for d in (1, 2) for p in range(6)]
    for row, window in ((rows[0], "ends-at-edge"), (rows[1], "previous-period")):
        lin = _json(capsys, ["analyze", "current-loop", "--adc-window", window, "--json"])
        assert row[2] == f"{lin['overshoot_pct']:.3f}" and row[3] == str(lin["peak_periods"])


def test_budget_cpu_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["budget", "--cpu", "--ticks", "3", "--json"])
    isr = out["interrupts"]
    assert isr["pwm_isr"]["ops_per_call"]["mul"] == 2  # the PI's two multiplies
    assert isr["adc_isr"]["calls_counted"] == 3 * 80 * 6
    total = sum(v["cpu_pct"] for v in isr.values())
    assert out["cpu_utilization_pct"] == pytest.approx(total)
    # by hand from firmware/decimator.push: 3 loads (3 cycles), 3 stores (2), 2 adds, 1 sub,
    # 1 compare-and-branch (4) = 22 cycles + 50 of IRQ entry/exit, 120 000 times a second on a
    # 60 MHz ARM7: 72 * 120e3 / 60e6 = 14.4 % of the CPU
    assert isr["adc_isr"]["cycles_per_call"] == 72 and isr["adc_isr"]["rate_hz"] == 120_000
    assert isr["adc_isr"]["cpu_pct"] == pytest.approx(14.4)
    # the PWM ISR at 20 kHz costs at least its IRQ overhead and the PI's two multiplies
    # (50 + 2 * 5 cycles: 2 %) and at most its worst path every time
    pwm = isr["pwm_isr"]
    assert 50 + 2 * 5 <= pwm["cycles_per_call"] <= pwm["worst_cycles_per_call"]
    assert pwm["cpu_pct"] == pytest.approx(pwm["cycles_per_call"] * 20e3 / 60e6 * 100)
    worst = 14.4 + pwm["worst_cycles_per_call"] * 20e3 / 60e6 * 100 + 0.2  # + 250 Hz CAN
    assert 14.4 + 2.0 < out["cpu_utilization_pct"] < worst


def test_bench_board_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["bench", "board", "--seconds", "0.2", "--json"])
    assert out["sim_s"] == pytest.approx(0.2)
    assert out["sim_s_per_wall_s"] > out["reference_sim_s_per_wall_s"]


@pytest.mark.parametrize("argv", [["step", "--iw", "3"], ["step", "--alpha", "-1"],
                                  ["step", "--periods", "5"], ["budget"],
                                  ["bench", "board", "--seconds", "0"]])
def test_bad_values_give_a_clear_error(capsys: pytest.CaptureFixture[str], argv) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
