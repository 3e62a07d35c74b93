"""The hold at rest on one joint, and `servobus analyze limit-cycle` end to end."""

import json
from pathlib import Path

import pytest

from servobus.host.position_loop import voltage_plant
from servobus.robot.limit_cycle import HoldConfig, analyze, controller, held_joint
from servobus.tools.cli import main


def test_voltage_plant_has_the_presets_time_constant() -> None:
    plant = voltage_plant()
    assert plant.tm_s == pytest.approx(4.75e-3 * 2.43 / (0.834 ** 2 + 2.43 * 0.046))
    assert 0.75 < plant.q < 0.77


def test_as_built_offset_kicks_the_rest_and_the_remedies() -> None:
    """-20 mA (the default) with the integral: the joint never rests, ±1 LSB excursions (2 LSB
    peak to peak) a few times a second with ~0.5 A D-term pulses of i_w; without the offset or
    bipolar it rests (at most a 1-LSB flicker); without the I term the excursions halve to a
    1-LSB flicker but do not stop; voltage PID: exact rest throughout."""
    as_built, _, _ = analyze(HoldConfig(seconds=20))
    assert as_built["share"]["rest"] < 0.25
    assert as_built["amplitude_lsb"] == 2.0 and 0.4 < as_built["iw_swing_a"] < 0.7
    assert 1.0 <= as_built["frequency_hz"] <= 8.0
    for cfg in (HoldConfig(seconds=10, zero_offset_a=0.0),
                HoldConfig(seconds=10, sensing="winding-bipolar")):
        quiet, _, _ = analyze(cfg)
        assert quiet["share"]["rest"] >= 0.75, cfg
        assert quiet["amplitude_lsb"] in (None, 1.0), cfg
    no_integral, _, _ = analyze(HoldConfig(seconds=10, integral=False))
    assert no_integral["amplitude_lsb"] == 1.0
    voltage, _, _ = analyze(HoldConfig(seconds=10, mode="voltage-pid"))
    assert voltage["share"]["rest"] == 1.0 and voltage["duty_swing"] is None


def test_a_load_torque_does_not_bring_rest() -> None:
    """Against the thesis: 0.3 N m on the shaft, the joint never rests; the reading flickers
    by 1 LSB and the D term swings i_w by ~0.5 A."""
    out, _, _ = analyze(HoldConfig(seconds=10, load_torque=0.3))
    assert out["share"]["rest"] == 0.0
    assert out["amplitude_lsb"] == 1.0
    assert 0.4 < out["iw_swing_a"] < 0.7


def test_cli_json_plot_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "lc.png"
    assert main(["analyze", "limit-cycle", "--seconds", "8", "--sensing", "winding-bipolar",
                 "--json", "--plot", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["zero_offset_a"] == 0.0 and out["windows"] == 3
    assert out["share"]["rest"] == 1.0 and out["iw_swing_a"] is None
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["analyze", "limit-cycle", "--seconds", "2"]) == 2
    assert "--seconds" in capsys.readouterr().err
    assert main(["analyze", "limit-cycle", "--sensing", "winding-bipolar", "--zero-offset",
                 "-0.02"]) == 2
    assert "bipolar one has none" in capsys.readouterr().err


def test_a_described_joint_is_held_with_its_own_options(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Joint 4 of a leg whose description gives it the corrected sensing holds as SPEJBL's joint
    1 does with --sensing winding-bipolar (same preset, period and tuning); --sensing overrides
    the description's and gives the default hold again."""
    path = tmp_path / "leg.toml"
    path.write_text('base = "spejbl-leg"\n[joint.4]\nsensing = "winding-bipolar"\n')
    described, _, _ = analyze(HoldConfig(robot=str(path), joint=4, seconds=10))
    assert described.pop("robot") == str(path) and described.pop("joint") == 4
    assert described == analyze(HoldConfig(seconds=10, sensing="winding-bipolar"))[0]
    assert described["sensing"] == "winding-bipolar" and described["share"]["rest"] >= 0.75
    overridden, _, _ = analyze(HoldConfig(robot=str(path), joint=4, seconds=10,
                                          sensing="supply-unipolar"))
    del overridden["robot"], overridden["joint"]
    assert overridden == analyze(HoldConfig(seconds=10))[0]
    assert main(["analyze", "limit-cycle", "--robot", str(path), "--joint", "7"]) == 2
    assert "--joint must be 1..6 (the joints of spejbl-leg)" in capsys.readouterr().err
    assert main(["analyze", "limit-cycle", "--robot", str(path), "--joint", "4",
                 "--zero-offset", "-0.02"]) == 2
    assert "bipolar one has none" in capsys.readouterr().err


def test_explicit_gains_hold_in_amperes_only(tmp_path: Path) -> None:
    """A joint tuned by explicit gains (A per LSB) holds with exactly those gains in cascade;
    the duty-driven voltage-pid hold refuses them rather than reading amperes as duty."""
    path = tmp_path / "gains.toml"
    path.write_text('base = "spejbl-leg"\n[joint.2]\ntuning = { r_p = 0.05, r_i = 0.002, '
                    'r_d = 0.2 }\n')
    cfg = HoldConfig(robot=str(path), joint=2, seconds=6)
    bank = controller(cfg, held_joint(cfg))
    assert (bank.r_p[0], bank.r_i[0], bank.r_d[0]) == (0.05, 0.002, 0.2)
    assert analyze(cfg)[0]["tuning"] == "gains"
    with pytest.raises(ValueError, match="--mode voltage-pid: the joint's tuning is explicit"):
        analyze(HoldConfig(robot=str(path), joint=2, seconds=6, mode="voltage-pid"))
