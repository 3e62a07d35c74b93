"""Front end (both sensing variants, RC, ADC) and the position/temperature sensors."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from servobus.plant import frontend, hbridge, sensors
from servobus.plant import layout as p
from servobus.plant.build import PlantOptions, build_params, build_state, build_tables
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import HSR_5995TG


def _plant(**kw):
    opt = PlantOptions(**kw)
    return (build_params(HSR_5995TG, DEFAULT_BOARD, opt),
            build_tables(HSR_5995TG, DEFAULT_BOARD, opt), *build_state(DEFAULT_BOARD, opt))


def test_unipolar_is_blind_to_braking_and_sign() -> None:
    params, *_ = _plant(sensing="supply-unipolar")
    assert frontend.sensed_current(params, hbridge.BRAKE, -1.2) == 0.0
    assert frontend.sensed_current(params, hbridge.DRIVE_NEG, -0.7) == 0.7
    assert frontend.sensed_current(params, hbridge.DRIVE_POS, -0.3) == 0.3  # regeneration
    bipolar, *_ = _plant(sensing="winding-bipolar")
    assert frontend.sensed_current(bipolar, hbridge.BRAKE, -1.2) == -1.2


def test_rc_update_is_the_exact_exponential() -> None:
    _, tables, state, _ = _plant()
    state[p.VC] = 0.2
    frontend.rc_update(state, tables, 450, 1.0)
    expected = 1.0 + (0.2 - 1.0) * math.exp(-450 / 60e6 / 150e-6)
    assert math.isclose(state[p.VC], expected, rel_tol=1e-12)


@pytest.mark.parametrize(("sensing", "amps", "code"), [
    ("supply-unipolar", 0.0, 0), ("supply-unipolar", 1.5, 512), ("supply-unipolar", 9.0, 1023),
    ("winding-bipolar", 0.0, 512), ("winding-bipolar", -3.0, 0), ("winding-bipolar", 1.5, 768),
    ("supply-unipolar", -0.5, 0),
])
def test_adc_scale_offset_and_clipping(sensing: str, amps: float, code: int) -> None:
    params, *_ = _plant(sensing=sensing, zero_offset_a=0.0)
    assert frontend.adc_code(params, amps) == code


@pytest.mark.parametrize(("stage", "seg", "amps", "sensed", "code"), [
    ("after-rc", hbridge.BRAKE, 0.05, 0.0, 10),  # (0.05 - 0.02) A * 1024/3 = 10.2
    ("after-rc", hbridge.DRIVE_POS, 0.01, 0.01, 0),  # the dead band clips at code 0
    ("before-rc", hbridge.DRIVE_POS, 0.01, 0.0, 3),  # the pulse is clipped, not the mean
    ("before-rc", hbridge.DRIVE_POS, 2.0, 1.98, 683),
])
def test_as_built_offset_stages(stage: str, seg: int, amps: float, sensed: float,
                                code: int) -> None:
    params, *_ = _plant(sensing="supply-unipolar", zero_offset_a=-0.02, offset_stage=stage)
    assert math.isclose(frontend.sensed_current(params, seg, amps), sensed, abs_tol=1e-12)
    assert frontend.adc_code(params, amps) == code
    bipolar, *_ = _plant(sensing="winding-bipolar", zero_offset_a=-0.02, offset_stage=stage)
    assert frontend.adc_code(bipolar, 0.0) == 512  # the corrected design has none


@given(st.floats(-1.8, 1.8), st.integers(0, 2**32))
def test_pot_reads_832_lsb_per_pi_within_noise_and_bow(theta: float, seed: int) -> None:
    params, _, state, istate = _plant(seed=seed)
    state[p.THETA] = theta
    ideal = 512 + theta * 832 / math.pi
    code = sensors.pot_code(params, state, istate)
    assert abs(code - ideal) <= 1.0 + DEFAULT_BOARD.pot_bow_lsb


def test_pot_noise_is_seeded() -> None:
    def codes(seed: int) -> list[int]:
        params, _, state, istate = _plant(seed=seed)
        state[p.THETA] = 0.3
        return [sensors.pot_code(params, state, istate) for _ in range(200)]

    assert codes(1) == codes(1)
    assert codes(1) != codes(2)
    assert max(codes(1)) - min(codes(1)) <= 2


def test_encoder_counter_wraps_and_index_fires_once_per_motor_rev() -> None:
    params, _, state, istate = _plant()
    counts_per_joint_rad = 2000 * 156 / (2 * math.pi)
    state[p.THETA] = 1.0
    assert sensors.encoder_counter(params, state) == math.floor(counts_per_joint_rad) & 0xFFFF
    fired = []
    for k in range(1, 200):
        state[p.THETA] = k * 1e-3  # 0.2 rad of joint = 4.97 motor revolutions
        fired.append(sensors.encoder_index(params, state, istate))
    assert sum(fired) == math.floor(0.199 * 156 / (2 * math.pi))


def test_thermal_model_settles_at_i2r_times_r_th() -> None:
    params, _, state, _ = _plant()
    for _ in range(8000):
        sensors.thermal_update(params, state, 4.0, 0.1)  # 2 A rms for 800 s = 10 tau
    rise = 4.0 * DEFAULT_BOARD.bridge_ohm * DEFAULT_BOARD.thermal_r_k_per_w
    assert abs(state[p.TEMP_C] - (25.0 + rise)) < 0.02 * rise
    assert sensors.thermometer_code(params, state) == DEFAULT_BOARD.thermometer_code(
        float(state[p.TEMP_C]))
    assert np.isfinite(state).all()
