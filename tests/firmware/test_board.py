"""Board interrupts: PWM range, no int32 wrap, trips, CAN timing, sensors, local P mode."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.analysis.op_counter import OpCounter
from servobus.firmware import board, encoder, local_p, position, protection
from servobus.firmware import memory as m

CODE = st.integers(0, 1023)
PERIOD = st.tuples(st.lists(CODE, min_size=6, max_size=6), CODE, st.integers(0, 0xFFFF),
                   st.integers(0, 1), st.integers(0, 400))
MODES = st.sampled_from([m.MODE_FLOAT, m.MODE_CURRENT, m.MODE_LOCAL_P])


def _period(ram: np.ndarray, rom: np.ndarray, period: tuple) -> None:
    adc, pot, enc, index, temp = period
    board.pwm_isr(ram, rom, pot, enc, index, temp)
    for code in adc:
        board.adc_isr(ram, code)


@settings(max_examples=60)
@given(MODES, st.integers(-40000, 40000), CODE, st.lists(PERIOD, min_size=1, max_size=40))
def test_pwm_command_always_inside_counter_range(rom, mode, iw, xw, periods) -> None:
    ram = m.new_ram()
    board.reset(ram, rom, mode)
    board.can_actuation(ram, iw)
    board.can_tick(ram, rom)
    ram[m.XW_REF] = xw
    for period in periods:
        _period(ram, rom, period)
        assert -rom[m.U_MAX] <= ram[m.PWM_SHADOW] <= rom[m.U_MAX]
        assert ram[m.BRIDGE_SHADOW] in (m.BRIDGE_PWM, m.BRIDGE_FLOAT)


@settings(max_examples=40)
@given(MODES, st.integers(-40000, 40000), CODE, st.lists(PERIOD, min_size=1, max_size=30))
def test_no_intermediate_leaves_int32(rom, mode, iw, xw, periods) -> None:
    """Every wrapping add/sub/mul of every interrupt gets its exact big-int result."""
    ram = m.new_ram()
    board.reset(ram, rom, mode)
    ram[m.XW_REF] = xw
    with OpCounter() as counter:
        board.can_actuation(ram, iw)
        board.can_tick(ram, rom)
        for period in periods:
            _period(ram, rom, period)
    assert counter.calls["pwm_isr"] == len(periods)
    assert counter.wraps == []


def test_op_counter_sees_a_wrap() -> None:
    """The wrap detector itself works: a deliberately overflowing add is reported."""
    from servobus.firmware import int32 as i32

    with OpCounter() as counter:
        i32.add(2**31 - 1, 1)
    assert counter.wraps == [("add", 2**31 - 1, 1)]


def test_over_current_trips_after_the_set_number_of_periods(rom) -> None:
    ram = m.new_ram()
    board.reset(ram, rom, m.MODE_CURRENT)
    periods = int(rom[m.OC_PERIODS])
    for k in range(periods + 2):
        board.pwm_isr(ram, rom, 512, 0, 0, 100)
        if k < periods + 1:
            assert ram[m.STATUS] == 0, k  # the window is over the limit from period 2 on
        for _ in range(6):
            board.adc_isr(ram, 1023)
    assert ram[m.STATUS] == m.STATUS_OVER_CURRENT
    assert ram[m.BRIDGE_SHADOW] == m.BRIDGE_FLOAT and ram[m.PWM_SHADOW] == 0
    board.pwm_isr(ram, rom, 512, 0, 0, 100)  # latched: stays tripped
    assert ram[m.STATUS] == m.STATUS_OVER_CURRENT
    protection.clear_faults(ram)
    assert ram[m.STATUS] == 0


def test_over_temperature_trips_at_the_limit(rom) -> None:
    ram = m.new_ram()
    board.reset(ram, rom, m.MODE_CURRENT)
    board.pwm_isr(ram, rom, 512, 0, 0, int(rom[m.OT_LIMIT]))
    assert ram[m.STATUS] == 0
    board.pwm_isr(ram, rom, 512, 0, 0, int(rom[m.OT_LIMIT]) + 1)
    assert ram[m.STATUS] == m.STATUS_OVER_TEMPERATURE
    assert ram[m.BRIDGE_SHADOW] == m.BRIDGE_FLOAT


def test_actuation_applies_only_at_the_next_tick(rom) -> None:
    ram = m.new_ram()
    board.reset(ram, rom, m.MODE_CURRENT)
    board.can_actuation(ram, 2048)
    assert ram[m.IW_REF] == 0
    board.can_tick(ram, rom)
    assert ram[m.IW_REF] == 2048 and ram[m.TICKS] == 1


@given(st.integers(0, 0xFFFF), st.lists(st.integers(-32768, 32767), max_size=200))
def test_encoder_unwrap_is_exact_below_half_range(start: int, moves: list[int]) -> None:
    ram = m.new_ram()
    ram[m.ENC_LAST] = start
    position_true = 0
    counter = start
    for step in moves:
        position_true += step
        counter = (counter + step) & 0xFFFF
        encoder.encoder_read(ram, counter, 0)
        assert ram[m.ENC_POS] == position_true


def test_encoder_index_latches_position() -> None:
    ram = m.new_ram()
    encoder.encoder_read(ram, 100, 0)
    encoder.encoder_read(ram, 65500, 1)
    assert ram[m.ENC_INDEX_POS] == 100 - 136 and ram[m.ENC_INDEX_COUNT] == 1


@given(st.lists(CODE, min_size=80, max_size=240))
def test_pot_block_mean_is_rounded_mean_of_each_block(rom, codes: list[int]) -> None:
    ram = m.new_ram()
    for k, code in enumerate(codes):
        position.pot_sample(ram, rom, code)
        if (k + 1) % 80 == 0:
            block = codes[k - 79:k + 1]
            assert ram[m.POS_OUT] == (sum(block) + 40) // 80
            assert ram[m.POS_SEQ] == (k + 1) // 80


@given(CODE, CODE)
def test_local_p_is_fifteen_over_pi_duty_per_radian(rom, xw: int, x: int) -> None:
    ram = m.new_ram()
    ram[m.XW_REF] = xw
    due = [local_p.p_sample(ram, rom, x) for _ in range(20)]
    assert due == [False] * 19 + [True]
    u = local_p.p_step(ram, rom)
    ideal = 3000 * 15 / np.pi * (xw - x) * np.pi / 832  # duty counts for the error in rad
    assert abs(u) <= 3000
    if abs(ideal) < 2900:
        assert abs(u - ideal) <= 0.01 * abs(ideal) + 1
    assert ram[m.P_COUNT] == 0 and ram[m.P_SUM] == 0


@given(CODE, st.integers(0, 1000), st.integers(-30, 30))
def test_local_p_state_feedback_is_the_ax12_law(xw: int, x: int, step: int) -> None:
    """The AX-12's U = 30 (theta_ref - theta) - 1.2 (w_ref - w) at w_ref = 0, in volts of its
    12 V supply, by hand: a block at x, then a block at x + step one millisecond later."""
    from servobus.presets.board import DEFAULT_BOARD
    from servobus.presets.firmware_image import build_rom
    from servobus.presets.servos import AX12

    rom = build_rom(AX12, DEFAULT_BOARD, "supply-unipolar")
    ram = m.new_ram()
    board.set_mode(ram, m.MODE_LOCAL_P)
    ram[m.XW_REF] = xw
    lsb_per_rad = 1023 / 300 * 180 / np.pi
    counts = 3000 / 12  # PWM counts per volt
    for code, prev in ((x, None), (x + step, x)):
        due = [local_p.p_sample(ram, rom, code) for _ in range(20)]
        assert due == [False] * 19 + [True]
        u = local_p.p_step(ram, rom)
        # each gain rounded to Q8 (relative error <= 0.5 / |gain|), the shift truncates (1)
        held = 30 * (xw - code) / lsb_per_rad * counts
        speed = 0.0 if prev is None else -1.2 * (0 - (code - prev) / lsb_per_rad * 1000) * counts
        bound = abs(held) * 0.5 / rom[m.P_GAIN_Q8] + abs(speed) * 0.5 / abs(rom[m.P_VEL_Q8]) + 1
        if abs(held + speed) < 3000 - bound:
            assert abs(u - (held + speed)) <= bound
        elif abs(held + speed) > 3000 + bound:
            assert u == (3000 if held + speed > 0 else -3000)
