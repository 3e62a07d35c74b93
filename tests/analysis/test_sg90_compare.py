"""The emulator's switching plant on the article's SG90 step against RK4 (core install: no
MuJoCo; the three-way comparison is tests/analysis/test_sg90_mujoco.py)."""

import math

import numpy as np

from servobus.analysis.sg90_compare import REF_STEP_S, emulator_step, on_grid
from servobus.analysis.sg90_model import output_model, reference_step
from servobus.presets.board import BoardHardware

T_END = 0.5


def test_without_dead_time_the_emulator_lags_rk4_by_less_than_one_period_of_slew() -> None:
    model = output_model()
    reference = on_grid(reference_step(model, math.pi / 2, T_END, REF_STEP_S), REF_STEP_S,
                        1 / 20_000)
    error = emulator_step(model, math.pi / 2, T_END) - reference
    bound = model.no_load_speed(model.supply_v) / 20_000
    assert bound * 0.99 < np.max(np.abs(error)) <= bound + 1e-9  # 1e-9: RK4's own error


def test_the_boards_dead_time_is_a_dead_zone_of_the_p_loop() -> None:
    """With the board's 1 us dead time a duty of up to `dead` counts drives nothing: the shaft
    creeps to the edge of the errors whose Q12 duty fraction, round(4096 k_p e / V), the board's
    truncation (q * top) >> 12 maps to at most `dead` counts."""
    hw = BoardHardware()
    model = output_model()
    theta = emulator_step(model, math.pi / 2, T_END, dead_time_s=hw.dead_time_s)
    q_max = ((hw.dead_counts + 1) * 4096 - 1) // hw.pwm_top  # 83: 83 * 3000 >> 12 = 60
    zone = (q_max + 0.5) / 4096 * model.supply_v / model.k_p
    assert 0.0 < math.pi / 2 - theta[-1] < zone
