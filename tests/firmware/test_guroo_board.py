"""GuRoo high-power board firmware: feathering, announce ID, counter unwrap, PI limits, trip."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.schema import Schema, shipped_dbc
from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.firmware.int32 import wrap32
from servobus.plant.guroo_build import build_rom

ROM = build_rom(1, "2002")


def booted(board: int = 1, loop: str = "2002") -> tuple[np.ndarray, np.ndarray]:
    rom = build_rom(board, loop)
    ram = g.new_ram()
    fw.boot(ram, rom)
    return ram, rom


def live_output(ram: np.ndarray, k: int, out: int) -> None:
    direction, low, high, counter = fw.split_output(out)
    ram[g.DIR + k], ram[g.PWM_LOW + k], ram[g.PWM_HIGH + k], ram[g.COUNTER + k] = (
        direction, low, high, counter)


def test_feathering_sum_of_16_compares_is_the_output_for_every_output() -> None:
    ram, rom = booted()
    rom[g.R_LOOP_TICKS] = 1 << 40  # no control loop in between
    for out in range(-g.U_MAX, g.U_MAX + 1):
        live_output(ram, 0, out)
        total = 0
        for _ in range(16):
            fw.timer_isr(ram)
            total += int(ram[g.CMPR])
        assert total == abs(out), out  # 16x finer than the 200 compare steps
        assert int(ram[g.DIR]) == (1 if out >= 0 else -1)


@given(st.integers(-g.U_MAX, g.U_MAX), st.integers(0, 15), st.integers(1, 40))
def test_any_16_consecutive_periods_average_exactly(out: int, phase: int, start: int) -> None:
    ram, rom = booted(loop="2khz")
    rom[g.R_LOOP_TICKS] = 1 << 40
    ram[g.FEATHER] = phase
    live_output(ram, 2, out)
    for _ in range(start):
        fw.timer_isr(ram)
    cmprs = []
    for _ in range(16):
        fw.timer_isr(ram)
        cmprs.append(int(ram[g.CMPR + 2]))
    assert sum(cmprs) == abs(out)
    assert set(cmprs) <= {abs(out) >> 4, min((abs(out) >> 4) + 1, g.PERIOD)}


def test_loop_every_400_periods_resets_feather_count_in_2002_mode() -> None:
    ram, rom = booted()
    due = [fw.timer_isr(ram) or fw.loop_due(ram, rom) for _ in range(1200)]
    assert [k for k, d in enumerate(due) if d] == [399, 799, 1199]
    assert ram[g.FEATHER] == 0 and ram[g.TIMER_COUNT] == 0
    ram, rom = booted(loop="2khz")
    due = [fw.timer_isr(ram) or fw.loop_due(ram, rom) for _ in range(150)]
    assert [k for k, d in enumerate(due) if d] == [49, 99, 149]
    assert ram[g.FEATHER] == 150 % 16  # free-running: 50 is not a multiple of 16


def test_msgidh_holds_the_announce_id_shifted_by_two() -> None:
    schema = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))
    assert fw.msgidh(3) == 0x8C and fw.msgidh(0) == 0x80 and fw.msgidh(15) == 0xBC
    for board in range(16):
        ram, _ = booted(board)
        assert ram[g.BOARD_ID] == board
        assert ram[g.MSGIDH] == (board | 0x20) << 2
        assert fw.standard_id(int(ram[g.MSGIDH])) == 0x20 | board
        if 1 <= board <= 6:
            assert schema.message(f"ANNOUNCE_{board}").frame_id == fw.standard_id(
                int(ram[g.MSGIDH]))
    ram, _ = booted(21)  # only the 4 DIP switches are read
    assert ram[g.BOARD_ID] == 5


@settings(max_examples=60)
@given(st.integers(0, 2), st.integers(-(1 << 20), 1 << 20),
       st.lists(st.integers(-32767, 32767), min_size=1, max_size=30))
def test_counter_unwrap_across_the_16_bit_wrap(k: int, start: int, moves: list[int]) -> None:
    ram, rom = booted()
    rom[g.R_LATENCY] = 0
    ram[g.REG_CNT + k] = start & 0xFFFF
    ram[g.LAST_CNT + k] = fw.read_counter(ram, k)
    true = start
    for move in moves:
        true += move
        ram[g.REG_CNT + k] = true & 0xFFFF  # QEP word (k = 0) or HCTL-2016 bytes (k = 1, 2)
        fw.bl_control(ram, rom)
        assert ram[g.POS + k] == true - start
        assert ram[g.DELTA + k] == move


def test_hctl_is_read_as_high_then_low_byte() -> None:
    ram, _ = booted()
    ram[g.REG_CNT + 1] = 0xFF01
    ram[g.REG_CNT + 2] = 0x7F80
    assert fw.read_counter(ram, 1) == -255 and fw.read_counter(ram, 2) == 0x7F80


@given(st.integers(-32768, 32767), st.integers(-32768, 32767),
       st.integers(-(1 << 31), (1 << 31) - 1), st.integers(-(1 << 27), 1 << 27),
       st.sampled_from(["2002", "2khz"]))
def test_pi_output_saturates_at_the_pwm_range(sp: int, delta: int, ref: int, pos: int,
                                              loop: str) -> None:
    ram, rom = booted(loop=loop)
    ram[g.SP], ram[g.REF], ram[g.POS] = sp, ref, pos
    out = fw.pi_output(ram, rom, 0, delta)
    assert -g.U_MAX <= out <= g.U_MAX
    assert abs(wrap32(int(ram[g.REF]) - (pos << 4))) <= rom[g.R_IERR_MAX]  # REF held near
    # the position error as the DSP computes it: the reference advanced by this loop's step
    # (no remainder carried yet), minus the position in Q4, wrapped to 32 bits
    sp_q4 = sp * int(rom[g.R_SP_NUM]) // int(rom[g.R_SP_DEN])
    if sp >= 0 and delta <= 0 and wrap32(ref + sp_q4 - (pos << 4)) >= 0:
        assert out >= 0


def test_pi_at_the_int16_edges() -> None:
    ram, rom = booted()
    ram[g.SP] = 32767
    assert fw.pi_output(ram, rom, 0, -32768) == g.U_MAX  # the velocity error saturates, no wrap
    ram, rom = booted()
    ram[g.SP] = -32768
    assert fw.pi_output(ram, rom, 0, 32767) == -g.U_MAX
    ram, rom = booted()
    assert fw.pi_output(ram, rom, 0, 0) == 0


def test_fallback_limit_is_i_r_minus_k_v_omega() -> None:
    ram, rom = booted()
    lim_ir, kv = int(rom[g.R_LIM_IR]), int(rom[g.R_KV])
    assert (lim_ir, kv) == (881, 772)  # 4.4 A x 2 ohm of 32 V in 1/3200; K_e per count/loop
    assert fw.limit_output(ram, rom, 0, g.U_MAX, 0) == (881, g.STATUS_FLIMIT)
    assert fw.limit_output(ram, rom, 0, -500, 0) == (-500, 0)
    # driving with the motion: PWM <= I*R + K_V*omega (603 = 772 * 200 >> 8)
    assert fw.limit_output(ram, rom, 0, g.U_MAX, 200) == (881 + 603, g.STATUS_FLIMIT)
    # against fast motion: PWM <= I*R - K_V*omega < 0, i.e. drive with the motion at >= 1531
    assert fw.limit_output(ram, rom, 0, -g.U_MAX, 800) == (2412 - 881, g.STATUS_FLIMIT)
    assert fw.limit_output(ram, rom, 0, -g.U_MAX, -800) == (-g.U_MAX, 0)


def test_current_check_pulls_the_drive_toward_the_back_emf() -> None:
    ram, rom = booted()
    ram[g.REG_ADC] = rom[g.R_ILIM_CODE] + 3
    kcl = int(rom[g.R_KCL])
    assert fw.limit_output(ram, rom, 0, -600, 0) == (-600 + 3 * kcl, g.STATUS_CLIMIT)
    assert fw.limit_output(ram, rom, 0, 20, 0) == (0, g.STATUS_CLIMIT)
    ram[g.REG_ADC] = rom[g.R_ILIM_CODE]
    assert fw.limit_output(ram, rom, 0, -600, 0) == (-600, 0)


def test_pdpint_latches_until_cleared_and_counts_once() -> None:
    ram, _ = booted(4)
    fw.pdpint_isr(ram)
    fw.pdpint_isr(ram)
    assert ram[g.TRIPPED] == 1 and ram[g.TRIPS] == 1 and ram[g.STATUS] & g.STATUS_TRIP
    fw.clear_trip(ram)
    assert ram[g.TRIPPED] == 0 and not ram[g.STATUS] & g.STATUS_TRIP
    assert ram[g.STATUS] >> 4 & 15 == 4


def test_outputs_land_after_the_routine_time() -> None:
    ram, rom = booted()
    ram[g.SP] = 1000
    for _ in range(400):
        fw.timer_isr(ram)
    fw.bl_control(ram, rom)
    assert ram[g.NEXT_COUNTER] != 0 or ram[g.NEXT_LOW] != 0
    for _ in range(127):
        fw.timer_isr(ram)
        assert ram[g.PWM_LOW] == 0 and ram[g.COUNTER] == 0
    fw.timer_isr(ram)  # 128 periods = 1.28 ms after the sensors were read
    assert (ram[g.PWM_LOW], ram[g.COUNTER]) == (ram[g.NEXT_LOW], ram[g.NEXT_COUNTER])


@given(st.integers(-(1 << 31), (1 << 31) - 1))
def test_sat16_clamps_a_long_into_an_int(x: int) -> None:
    assert fw.sat16(x) == max(-32768, min(32767, x))


@given(st.integers(-(1 << 31), (1 << 31) - 1), st.integers(0, 16))
def test_shl_wraps_like_a_long(x: int, n: int) -> None:
    assert fw.shl(x, n) == ((x * 2**n + 2**31) % 2**32) - 2**31


@given(st.integers(-g.U_MAX, g.U_MAX))
def test_split_output_is_exact(out: int) -> None:
    direction, low, high, counter = fw.split_output(out)
    mag = abs(out)
    assert direction == (1 if out >= 0 else -1)
    assert 16 * low + counter == mag and 0 <= counter < 16
    assert high == (low + 1 if low < g.PERIOD else g.PERIOD) and high <= g.PERIOD


@given(st.integers(0, 0xFFFF), st.integers(0, 2))
def test_every_counter_word_reads_back(word: int, k: int) -> None:
    ram, _ = booted()
    ram[g.REG_CNT + k] = word
    assert fw.read_counter(ram, k) == word - (word >> 15) * 0x10000


@given(st.integers(-32768, 32767), st.integers(-32768, 32767), st.integers(-32768, 32767),
       st.integers(0, 0xFFFF))
def test_can_rx_stores_the_mailbox_words(w0: int, w1: int, w2: int, seq: int) -> None:
    ram, _ = booted()
    fw.can_rx(ram, w0, w1, w2, seq)
    assert list(ram[g.SP:g.SP + 3]) == [w0, w1, w2] and ram[g.SP_SEQ] == seq
    assert ram[g.RX_COUNT] == 1
