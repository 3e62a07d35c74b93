"""PI current controller: R1(z) exactly when unsaturated, hard anti-windup invariants otherwise."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from servobus.firmware import current_loop
from servobus.firmware import memory as m

MEAS = st.integers(min_value=-12 * 1023, max_value=12 * 1023)
REFS = st.integers(min_value=-40000, max_value=40000)  # beyond int16 and the 1 A clamp


def _controller(rom: np.ndarray, iw_q12: int) -> np.ndarray:
    ram = m.new_ram()
    current_loop.set_reference(ram, rom, iw_q12)
    return ram


@given(REFS)
def test_reference_is_clamped_and_scaled(rom: np.ndarray, iw_q12: int) -> None:
    ram = _controller(rom, iw_q12)
    clamped = min(max(iw_q12, -4096), 4096)
    assert ram[m.IW_REF] == clamped
    assert ram[m.IW_COUNTS] == (clamped * int(rom[m.IREF_TO_SUM_Q15])) >> 15


@given(REFS, st.lists(MEAS, min_size=1, max_size=80))
def test_anti_windup_keeps_p_plus_i_in_range(rom: np.ndarray, iw: int, meas: list[int]) -> None:
    ram = _controller(rom, iw)
    hi = int(rom[m.U_MAX_Q15])
    for y in meas:
        e = int(ram[m.IW_COUNTS]) - y
        p = int(rom[m.K_P]) * e
        integ_before = int(ram[m.PI_INTEG])
        u = current_loop.pi_step(ram, rom, y)
        held = min(max(integ_before, -hi - p), hi - p)
        assert -hi <= p + held <= hi
        assert u == (p + held) >> 15
        assert -int(rom[m.U_MAX]) <= u <= int(rom[m.U_MAX])
        assert ram[m.PI_INTEG] == held + int(rom[m.K_I]) * e


@given(st.lists(st.integers(-600, 600), min_size=2, max_size=60))
def test_unsaturated_controller_is_exactly_r1(rom: np.ndarray, errors: list[int]) -> None:
    """u_k - u_(k-1) = K e_k - K n e_(k-1) in Q15 (before the final shift) while unsaturated."""
    ram = m.new_ram()
    kp, ki = int(rom[m.K_P]), int(rom[m.K_I])
    q15_out = []
    for e in errors:
        before = int(ram[m.PI_INTEG])
        current_loop.pi_step(ram, rom, -e)  # reference 0: e = -meas
        q15_out.append(kp * e + before)
    for k in range(1, len(errors)):
        assert q15_out[k] - q15_out[k - 1] == kp * errors[k] - (kp - ki) * errors[k - 1]


def test_sign_workaround_only_in_unipolar(rom: np.ndarray) -> None:
    ram = m.new_ram()
    ram[m.MA_SUM] = int(rom[m.ADC_ZERO_SUM]) + 1000
    ram[m.PWM_PREV] = -500
    expected = -1000 if rom[m.SIGNED_SENSE] == 0 else 1000
    assert current_loop.measured_current(ram, rom) == expected
