"""`identify`: the stored default identification is what the command produces, the design step
reproduces `designed` exactly, the step method is refused when the shaft barely moves, and the
reported uncertainty covers the preset's physics where the model is exact."""

import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from servobus.host import tunings
from servobus.host.tunings import (
    DEFAULT_ROBOT_KP,
    DEFAULT_ROBOT_Q,
    DESIGN_MET,
    DESIGNED,
    IDENTIFICATION,
)
from servobus.robot.identification import Settings, identify_settings
from servobus.robot.robot_dbc import dbc_text
from servobus.robot.robot_file import load
from servobus.robot.tunings_file import BEGIN, END, designed_for, render, write_tunings

NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _stored_block() -> str:
    text = Path(tunings.__file__).read_text()
    body = text.split(BEGIN, 1)[1].split("\n", 1)[1]
    return body.split(END, 1)[0]


def test_design_step_reproduces_the_stored_designed_tuning_exactly() -> None:
    assert designed_for(DEFAULT_ROBOT_KP, DEFAULT_ROBOT_Q) == (DESIGNED, DESIGN_MET)


def test_stored_identification_is_what_the_command_produces() -> None:
    # the full identification with the stored settings (~10 s): deterministic, so the block
    # `identify --write-tunings` would write must be the one in host/tunings.py, digit for digit
    # but for the last bits: the standard errors go through LAPACK, and OpenBLAS' kernels for
    # different CPUs (OPENBLAS_CORETYPE=Haswell on an AVX-512 host) differ there by an ulp
    result = identify_settings(Settings(**IDENTIFICATION))
    produced, stored = render(result), _stored_block()
    assert NUMBER.sub("#", produced) == NUMBER.sub("#", stored)
    assert [float(x) for x in NUMBER.findall(produced)] == pytest.approx(
        [float(x) for x in NUMBER.findall(stored)], rel=1e-12, abs=0)
    lo, hi = result["fit_band_hz"]
    assert 1.0 <= lo < 3.0 and 20.0 < hi <= 30.0 and result["points"] >= 30
    assert set(result["known_delays"]) == {"bus", "zoh", "averaging"}
    se = result["std_error"]
    assert 0 < se["q"] < 0.05 and 0 < se["kp"] < 0.1 * result["kp"]
    # the as-built sensing brakes the motor: T_m near the SPEC's 14.3 ms, far from J/B
    assert 0.009 < result["tm_s"] < 0.016 and result["physics"]["tm_s"] > 0.1


def test_write_tunings_replaces_only_the_generated_block(tmp_path: Path) -> None:
    copy = tmp_path / "tunings.py"
    shutil.copy(tunings.__file__, copy)
    result = {"settings": {"joint": 2}, "kp": 0.5, "q": 0.8,
              "std_error": {"kp": 0.01, "q": 0.002}}
    write_tunings(result, copy)
    text = copy.read_text()
    assert "DEFAULT_ROBOT_KP = 0.5\n" in text and "'joint': 2," in text
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert text.split(BEGIN)[0] == Path(tunings.__file__).read_text().split(BEGIN)[0]
    copy.write_text("x = 1\n")
    with pytest.raises(ValueError, match="no '# BEGIN GENERATED'"):
        write_tunings(result, copy)


def test_the_developer_regeneration_names_the_source_file_it_rewrites() -> None:
    # `python -m servobus.robot.tunings_file PATH`: never a default target (the installed copy)
    result = subprocess.run([sys.executable, "-m", "servobus.robot.tunings_file"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1 and "usage: python -m servobus.robot.tunings_file" in \
        result.stderr


def test_step_is_refused_when_the_shaft_moves_less_than_a_few_lsb_per_period() -> None:
    # as built, 0.2 A moves the shaft ~0.5 LSB per period: d is pot quantisation
    with pytest.raises(ValueError, match=r"moves 0\.\d+ LSB per period"):
        identify_settings(Settings(1, "step"))


def test_step_under_ideal_current_control_brackets_the_physics() -> None:
    # winding-bipolar sensing is a near-ideal current source: P(z) is then the preset's physics
    # (q = exp(-T B / J)), and its 95 % interval must contain it
    r = identify_settings(Settings(1, "step", sensing="winding-bipolar"))
    assert r["final_speed_lsb_per_period"] > 3.0 and r["warnings"] == []
    for key in ("q", "kp", "tm_s"):
        lo, hi = r["ci95"][key]
        assert lo < r["physics"][key] < hi, key
        assert hi - lo < 0.4 * r[key], key
    assert r["tm_s"] == pytest.approx(-1 / (250 * math.log(r["q"])))


@pytest.mark.parametrize("kw, message", [
    ({"method": "step", "seconds": 0.01}, "too short for the step method"),
    ({"method": "chirp", "seconds": 1.0}, "too short for the chirp method"),
    ({"amplitude": 0.0}, r"--amplitude must be in \(0, 1\]"),
    ({"joint": 13}, "--joint must be 1..12"),
    ({"hold": "designed"}, "--hold must be one of R2, R2b"),
    ({"joint": 7, "robot": "spejbl-leg"}, r"--joint must be 1\.\.6 \(the joints of spejbl-leg\)"),
    ({"robot": "guroo"}, "--robot guroo: a cyclic robot"),
    ({"robot": "no-such"}, "no such file and no shipped robot"),
])
def test_nonsense_settings_are_refused_before_running(kw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings(**kw).validated()


def test_a_described_joint_is_identified_with_its_own_preset(tmp_path: Path) -> None:
    # joint 2 of a leg carries a lighter rotor (J 3.0e-3 instead of 4.75e-3 kg m^2): the
    # physics printed beside the fit is that preset's T_m = J / B, and the fit's 95 % interval
    # (near-ideal current control) contains it
    path = tmp_path / "light.toml"
    path.write_text('base = "spejbl-leg"\n[joint.2]\npreset = { supply_v = 7.0, kt = 0.834, '
                    'r_a = 2.43, b = 0.046, j = 3.0e-3 }\n')
    r = identify_settings(Settings(2, "step", sensing="winding-bipolar", robot=str(path)))
    assert r["settings"]["robot"] == str(path) and r["samples"] == 100  # 0.4 s at 250 Hz
    assert r["physics"]["tm_s"] == pytest.approx(3.0e-3 / 0.046)
    lo, hi = r["ci95"]["tm_s"]
    assert lo < 3.0e-3 / 0.046 < hi


def test_the_experiment_runs_at_the_robots_own_period(tmp_path: Path) -> None:
    # a leg on a 10 ms tick (its DBC generated): 0.4 s is 40 samples, and the physics the fit
    # brackets is the preset's pole at 100 Hz, q = exp(-T B / J)
    path = tmp_path / "leg10.toml"
    path.write_text('base = "spejbl-leg"\nname = "leg10"\nperiod = "10ms"\n[bus]\n'
                    'dbc = "leg10.dbc"\n')
    (tmp_path / "leg10.dbc").write_text(dbc_text(load(str(path))))
    r = identify_settings(Settings(1, "step", sensing="winding-bipolar", robot=str(path)))
    assert r["samples"] == 40
    assert r["physics"]["q"] == pytest.approx(math.exp(-0.01 * 0.046 / 4.75e-3))
    lo, hi = r["ci95"]["q"]
    assert lo < r["physics"]["q"] < hi
    assert r["tm_s"] == pytest.approx(-1 / (100 * math.log(r["q"])))


def test_too_little_motion_in_the_band_is_refused() -> None:
    with pytest.raises(ValueError, match=re.escape("frequency points move the joint")):
        identify_settings(Settings(1, "chirp", seconds=5.0, amplitude=0.002))
