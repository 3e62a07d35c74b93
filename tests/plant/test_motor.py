"""Motor and shaft against the SPEC 3 measurements: static gain 2.30 pi rad/s, T_m = 14.3 ms."""

import math

import numpy as np

from servobus.plant import hbridge, motor
from servobus.plant import layout as p
from servobus.plant.build import PlantOptions, build_params, build_state, build_tables
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import HSR_5995TG

TOP = DEFAULT_BOARD.pwm_top


def _shaft(duty: int, periods: int, alpha: float = 1.0, seg: int = hbridge.AVERAGED,
           omega0: float = 0.0) -> tuple[np.ndarray, np.ndarray, list[float]]:
    opt = PlantOptions(plant="averaged", alpha=alpha)
    params = build_params(HSR_5995TG, DEFAULT_BOARD, opt)
    tables = build_tables(HSR_5995TG, DEFAULT_BOARD, opt)
    state, _ = build_state(DEFAULT_BOARD, opt)
    state[p.OMEGA] = omega0
    speeds = []
    for _ in range(periods):
        motor.advance(params, tables, state, seg, duty, TOP)
        speeds.append(state[p.OMEGA])
    return params, state, speeds


def test_static_velocity_gain_matches_measurement() -> None:
    _, _, speeds = _shaft(TOP, 4000)  # 200 ms >> T_m
    friction_drop = HSR_5995TG.coulomb / (HSR_5995TG.kt**2 / HSR_5995TG.r_a + HSR_5995TG.b)
    assert math.isclose(speeds[-1] + friction_drop, 2.30 * math.pi, rel_tol=0.005)


def test_mechanical_time_constant_is_14_3_ms_and_scales_with_alpha() -> None:
    for alpha in (1.0, 4.0):
        _, _, speeds = _shaft(TOP, int(0.3 * alpha * 20000), alpha)
        final = speeds[-1]
        k63 = next(k for k, w in enumerate(speeds) if w >= (1 - math.exp(-1)) * final)
        assert abs((k63 + 1) / 20000 - alpha * 14.3e-3) < 1e-4


def test_coulomb_friction_holds_a_small_torque() -> None:
    duty = 5  # 7 V * 5/3000 / 2.43 ohm * 0.834 N m/A = 4 mN m < 10 mN m
    _, state, speeds = _shaft(duty, 100)
    assert speeds[-1] == 0.0 and state[p.THETA] == 0.0


def test_open_winding_coasts_on_viscous_friction_only() -> None:
    _, _, speeds = _shaft(0, 200, seg=hbridge.OPEN, omega0=5.0)
    rate = HSR_5995TG.b / HSR_5995TG.j
    t = 200 / 20000
    w_inf = -HSR_5995TG.coulomb / HSR_5995TG.b
    assert math.isclose(speeds[-1], w_inf + (5.0 - w_inf) * math.exp(-rate * t), rel_tol=1e-9)


def test_braking_current_flows_against_the_motion() -> None:
    opt = PlantOptions()
    params = build_params(HSR_5995TG, DEFAULT_BOARD, opt)
    tables = build_tables(HSR_5995TG, DEFAULT_BOARD, opt)
    state, _ = build_state(DEFAULT_BOARD, opt)
    state[p.OMEGA] = 3.0
    i = motor.advance(params, tables, state, hbridge.BRAKE, 0, 100)
    assert math.isclose(i, -HSR_5995TG.kt * 3.0 / HSR_5995TG.r_a, rel_tol=1e-3)
