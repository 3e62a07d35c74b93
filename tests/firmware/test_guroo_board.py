"""GuRoo high-power board firmware against hand values from the printed listing (thesis App. B):
set_PWM, c_int2's feathering, read_curr, read_enc, get_ID, main's count and mailbox 2; and
bl_control (ours): counter unwrap, PI limits, current check, the loop time."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.schema import Schema, shipped_dbc
from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.firmware.int32 import wrap32
from servobus.plant.guroo_build import build_rom

ROM = build_rom(1)

def booted(board: int = 1, loop: str = "2002") -> tuple[np.ndarray, np.ndarray]:
    rom = build_rom(board, loop)
    ram = g.new_ram()
    fw.boot(ram, rom)
    return ram, rom


def set_counter(ram: np.ndarray, k: int, word: int) -> None:
    """Motor k's counter word where read_enc finds it: T2CNT, or motor 1's (2's) bytes in the
    low (high) lane of the two HCTL-2016 ports."""
    word &= 0xFFFF
    if k == 0:
        ram[g.REG_T2CNT] = word
        return
    lane = 0 if k == 1 else 8
    for reg, byte in ((g.REG_PORT0, word >> 8), (g.REG_PORT1, word & 0xFF)):
        ram[reg] = ram[reg] & ~(0xFF << lane) & 0xFFFF | byte << lane


# d -> (counter, pwm_high, pwm_low), by hand from set_PWM's three lines (>> arithmetic)
SET_PWM = {-1600: (0, 1, 0), -15: (1, 100, 99), -1: (15, 100, 99), 0: (0, 101, 100),
           1: (1, 101, 100), 15: (15, 101, 100), 16: (0, 102, 101), 1600: (0, 201, 200),
           -1601: (15, 0, -1)}  # outside the range: compare 0xFFFF (bl_control clamps)


@pytest.mark.parametrize("d", sorted(SET_PWM))
def test_set_pwm_hand_values(d: int) -> None:
    ram = g.new_ram()
    fw.set_PWM(ram, 1, d)
    assert (ram[g.COUNTER + 1], ram[g.PWM_HIGH + 1], ram[g.PWM_LOW + 1]) == SET_PWM[d]


def applied(ram: np.ndarray, rom: np.ndarray, k: int, periods: int) -> list[int]:
    """The compare values c_int2 puts into effect over `periods` periods (the reload from the
    shadow: the value written one period earlier)."""
    rom[g.R_LOOP_TICKS] = 1 << 40  # no control loop in between
    out = []
    for _ in range(periods):
        fw.timer_isr(ram)
        out.append(int(ram[g.CMPR + k]))
    return out


@pytest.mark.parametrize(("d", "sequence"), [
    (15, [101] * 15 + [100]), (-15, [100] + [99] * 15), (-1, [100] * 15 + [99]),
    (1600, [200] * 16), (-1600, [0] * 16), (0, [100] * 16)])
def test_feather_sequences_land_one_period_late(d: int, sequence: list[int]) -> None:
    ram, rom = booted()
    ram[g.FEATHER] = 0  # as main leaves it
    fw.set_PWM(ram, 0, d)
    got = applied(ram, rom, 0, 17)
    assert got[0] == 0  # init_board's CMPR1 = 0 until the first reload of a c_int2 write
    assert got[1:] == sequence


@given(st.integers(-g.U_MAX, g.U_MAX), st.integers(0, 15), st.integers(1, 40))
def test_any_16_periods_average_100_plus_d_over_16(d: int, phase: int, start: int) -> None:
    ram, rom = booted(loop="2khz")
    ram[g.FEATHER] = phase
    fw.set_PWM(ram, 2, d)
    cmprs = applied(ram, rom, 2, start + 16)[start:]
    assert sum(cmprs) == 1600 + d  # the mean compare value is exactly 100 + d/16
    assert set(cmprs) <= {100 + (d >> 4), 101 + (d >> 4)} and min(cmprs) >= 0
    assert max(cmprs) <= 200  # pwm_high = 201 only comes with counter 0: never applied


@pytest.mark.parametrize(("fifo", "ma"), [(0x0000, 152), (0x003F, 152), (0x0040, 169),
                                          (0x8000, 8856), (0xFFC0, 17543), (0xFFFF, 17543)])
def test_read_curr_scales_the_fifo_word(fifo: int, ma: int) -> None:
    ram = g.new_ram()
    ram[g.REG_ADC + 2] = fifo
    assert fw.read_curr(ram, build_rom(1), 2) == ma


def test_stale_fifo_reading_gives_each_motor_the_previous_channel() -> None:
    rom = build_rom(1, adc_fifo="stale")
    ram = g.new_ram()
    ram[g.REG_ADC:g.REG_ADC + 3] = 10 << 6, 20 << 6, 30 << 6
    assert [fw.read_curr(ram, rom, k) for k in range(3)] == [152, 322, 492]  # 0, 10, 20 codes
    assert fw.read_curr(ram, rom, 0) == 30 * 17 + 152  # the last loop's motor 2


def test_read_enc_builds_each_decoder_from_two_ports() -> None:
    ram = g.new_ram()
    ram[g.REG_PORT0], ram[g.REG_PORT1], ram[g.REG_T2CNT] = 0xAB12, 0xCD34, 0xFFFE
    assert fw.read_enc(ram, 1) == 0x1234  # qdec_ext2: the low lanes
    assert fw.read_enc(ram, 2) == 0xABCD  # qdec_ext3: the high lanes
    assert fw.read_enc(ram, 0) == 0xFFFE  # T2CNT, unsigned


@given(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))
def test_read_enc_returns_every_counter_word(w0: int, w1: int, w2: int) -> None:
    ram = g.new_ram()
    for k, w in enumerate((w0, w1, w2)):
        set_counter(ram, k, w)
    assert [fw.read_enc(ram, k) for k in range(3)] == [w0, w1, w2]


def test_get_id_lights_the_leds_in_binary_up_to_5() -> None:
    assert [booted(b)[0][g.LEDS] for b in (1, 2, 3, 4, 5, 6, 15)] == [1, 2, 3, 4, 5, 0, 0]


def test_announce_id_is_board_or_0x20_shifted_by_two() -> None:
    schema = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))
    assert fw.msgidh(3) == 0x8C and fw.msgidh(0) == 0x80 and fw.msgidh(15) == 0xBC
    for board in range(1, 16):
        ram, _ = booted(board)
        assert ram[g.BOARD_ID] == board
        assert fw.standard_id(int(ram[g.MSGIDH])) == 0x20 | board
        if board <= 6:
            assert schema.message(f"ANNOUNCE_{board}").frame_id == 0x20 | board


def test_main_counts_400_periods_and_resets_feather_count() -> None:
    ram, rom = booted()
    due = [fw.timer_isr(ram) or fw.loop_due(ram, rom) for _ in range(1200)]
    assert [k for k, d in enumerate(due) if d] == [399, 799, 1199]
    assert ram[g.FEATHER] == 0 and ram[g.TIMER_COUNT] == 0
    ram, rom = booted(loop="2khz")
    due = [fw.timer_isr(ram) or fw.loop_due(ram, rom) for _ in range(150)]
    assert [k for k, d in enumerate(due) if d] == [49, 99, 149]
    assert ram[g.FEATHER] == 150 % 16  # free-running: 50 is not a multiple of 16


def test_main_writes_the_test_pattern_into_mailbox_2() -> None:
    ram, rom = booted()
    fw.main_loop(ram, rom)
    assert [int(w) & 0xFFFF for w in ram[g.MBX2:g.MBX2 + 4]] == [0x0123, 0x4567, 0x89AB, 0xCDEF]


@settings(max_examples=60)
@given(st.integers(0, 2), st.integers(-(1 << 20), 1 << 20),
       st.lists(st.integers(-32767, 32767), min_size=1, max_size=30))
def test_counter_unwrap_across_the_16_bit_wrap(k: int, start: int, moves: list[int]) -> None:
    ram, rom = booted()
    rom[g.R_LATENCY] = 0
    set_counter(ram, k, start)
    ram[g.LAST_CNT + k] = fw.read_enc(ram, k)
    true = start
    for move in moves:
        true += move
        set_counter(ram, k, true)
        fw.bl_control(ram, rom)
        assert ram[g.POS + k] == true - start
        assert ram[g.DELTA + k] == move


@given(st.integers(-32768, 32767), st.integers(-32768, 32767),
       st.integers(-(1 << 31), (1 << 31) - 1), st.integers(-(1 << 27), 1 << 27),
       st.sampled_from(["2002", "2khz"]))
def test_pi_output_saturates_at_set_pwm_range(sp: int, delta: int, ref: int, pos: int,
                                              loop: str) -> None:
    ram, rom = booted(loop=loop)
    ram[g.SP], ram[g.REF], ram[g.POS] = sp, ref, pos
    out = fw.pi_output(ram, rom, 0, delta)
    assert -g.U_MAX <= out <= g.U_MAX
    assert abs(wrap32(int(ram[g.REF]) - (pos << 4))) <= rom[g.R_IERR_MAX]  # REF held near
    sp_q4 = sp * int(rom[g.R_SP_NUM]) // int(rom[g.R_SP_DEN])
    if sp >= 0 and delta <= 0 and wrap32(ref + sp_q4 - (pos << 4)) >= 0:
        assert out >= 0


def test_fallback_limit_is_i_r_minus_k_v_omega() -> None:
    ram, rom = booted()
    lim_ir, kv = int(rom[g.R_LIM_IR]), int(rom[g.R_KV])
    assert (lim_ir, kv) == (305, 293)  # 4 A x 2 ohm of 42 V in 1/1600; K_e per count/loop
    assert fw.limit_output(ram, rom, 0, g.U_MAX, 0) == (305, g.STATUS_FLIMIT)
    assert fw.limit_output(ram, rom, 0, -200, 0) == (-200, 0)
    # driving with the motion: PWM <= I*R + K_V*omega (228 = 293 * 200 >> 8)
    assert fw.limit_output(ram, rom, 0, g.U_MAX, 200) == (305 + 228, g.STATUS_FLIMIT)
    # against fast motion: PWM <= I*R - K_V*omega < 0 (915 = 293 * 800 >> 8)
    assert fw.limit_output(ram, rom, 0, -g.U_MAX, 800) == (915 - 305, g.STATUS_FLIMIT)
    assert fw.limit_output(ram, rom, 0, -g.U_MAX, -800) == (-916 - 305, g.STATUS_FLIMIT)


def test_current_check_acts_on_read_curr_milliamps() -> None:
    ram, rom = booted()
    assert rom[g.R_KCL] == 39  # 2 x 1 mA x 2 ohm in 1/1600 of 42 V, x 256
    ram[g.REG_ADC] = 240 << 6  # 240 x 17 + 152 = 4232 mA: 232 over, cut 232 x 39 >> 8 = 35
    assert fw.limit_output(ram, rom, 0, -200, 0) == (-165, g.STATUS_CLIMIT)
    assert fw.limit_output(ram, rom, 0, 20, 0) == (0, g.STATUS_CLIMIT)
    assert ram[g.CURRENT_MA] == 4232
    ram[g.REG_ADC] = 226 << 6  # 3994 mA
    assert fw.limit_output(ram, rom, 0, -200, 0) == (-200, 0)


def test_pdpint_latches_and_counts_once() -> None:
    ram, _ = booted(4)
    fw.pdpint_hi_z(ram)
    fw.pdpint_hi_z(ram)
    assert ram[g.TRIPPED] == 1 and ram[g.TRIPS] == 1 and ram[g.STATUS] & g.STATUS_TRIP
    fw.clear_trip(ram)
    assert ram[g.TRIPPED] == 0 and not ram[g.STATUS] & g.STATUS_TRIP
    assert ram[g.STATUS] >> 4 & 15 == 4


def test_outputs_reach_set_pwm_after_the_loop_time() -> None:
    ram, rom = booted()
    ram[g.SP] = 1000
    for _ in range(400):
        fw.timer_isr(ram)
    fw.bl_control(ram, rom)
    out = int(ram[g.OUT])
    assert out > 0
    for _ in range(127):
        fw.timer_isr(ram)
        assert (ram[g.PWM_LOW], ram[g.COUNTER]) == (100, 0)  # the boot's set_PWM(k, 0)
    fw.timer_isr(ram)  # 128 periods (1.2864 ms >= 1.28 ms) after the sensors were read
    assert (ram[g.PWM_LOW], ram[g.COUNTER]) == (100 + (out >> 4), out & 15)


@given(st.integers(-(1 << 31), (1 << 31) - 1))
def test_sat16_clamps_a_long_into_an_int(x: int) -> None:
    assert fw.sat16(x) == max(-32768, min(32767, x))


@given(st.integers(-(1 << 31), (1 << 31) - 1), st.integers(0, 16))
def test_shl_wraps_like_a_long(x: int, n: int) -> None:
    assert fw.shl(x, n) == ((x * 2**n + 2**31) % 2**32) - 2**31


@given(st.integers(-32768, 32767))
def test_set_pwm_splits_any_word_exactly(d: int) -> None:
    ram = g.new_ram()
    fw.set_PWM(ram, 0, d)
    counter, high, low = int(ram[g.COUNTER]), int(ram[g.PWM_HIGH]), int(ram[g.PWM_LOW])
    assert 0 <= counter < 16 and high == low + 1
    assert 16 * (low - 100) + counter == d  # (d >> 4) * 16 + (d & 15) == d


@given(st.integers(0, 0xFFFF))
def test_read_curr_is_the_code_times_17_plus_152(fifo: int) -> None:
    ram = g.new_ram()
    ram[g.REG_ADC] = fifo
    assert fw.read_curr(ram, ROM, 0) == (fifo >> 6) * 17 + 152


@given(st.integers(-32768, 32767), st.integers(-32768, 32767), st.integers(-32768, 32767),
       st.integers(0, 0xFFFF))
def test_can_rx_stores_the_mailbox_words(w0: int, w1: int, w2: int, seq: int) -> None:
    ram, _ = booted()
    fw.can_rx(ram, w0, w1, w2, seq)
    assert list(ram[g.SP:g.SP + 3]) == [w0, w1, w2] and ram[g.SP_SEQ] == seq
    assert ram[g.RX_COUNT] == 1
