"""GuRoo board set-point integration: REF is the exact integral of the VEL_SP words (< 1 Q4)."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.plant.guroo_build import build_rom

LOOP_S = {"2002": Fraction(400 * 10_050, 10**9), "2khz": Fraction(50 * 10_050, 10**9)}


def ref_after(loop: str, word: int, loops: int) -> int:
    """REF (Q4) after `loops` PI evaluations at a constant word, the joint held at 0."""
    rom = build_rom(1, loop)
    rom[g.R_IERR_MAX] = 2**31 - 1  # the anti-windup clamp out of the way
    ram = g.new_ram()
    fw.boot(ram, rom)
    ram[g.SP] = word
    for _ in range(loops):
        fw.pi_output(ram, rom, 0, 0)
    return int(ram[g.REF])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["2002", "2khz"]), st.integers(-32768, 32767), st.integers(1, 2000))
def test_ref_moves_by_the_exact_integral_of_the_setpoint(loop: str, word: int, n: int) -> None:
    exact_q4 = n * word * 16 * 16 * LOOP_S[loop]  # 16 cnt/s per LSB, 16 Q4 per count
    assert 0 <= exact_q4 - ref_after(loop, word, n) < 1  # the remainder only: no drift


def test_small_word_for_2_s_reaches_its_position() -> None:
    # 37 x 16 cnt/s for 2.01 s (500 loops of 4.02 ms, 4000 of 502.5 us) = 1189.92 counts
    assert ref_after("2khz", 37, 4000) == 19038  # Q4, the remainder carried
    assert ref_after("2002", 37, 500) == 19038
    assert ref_after("2002", -37, 500) == -19039


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["2002", "2khz"]), st.integers(-50, 50), st.integers(1, 124))
def test_a_limited_loop_keeps_ref_and_its_remainder(loop: str, word: int, rem: int) -> None:
    """Conditional integration: a loop whose output the current check limits takes back both
    REF and the carried remainder, so REF stays the exact integral of the accepted set-points;
    the next loop (a slow word: not limited) integrates from the same state."""
    rom = build_rom(1, loop)
    ram = g.new_ram()
    fw.boot(ram, rom)
    ram[g.SP], ram[g.SP_REM], ram[g.REF] = word, rem, 1000
    ram[g.REG_ADC] = 240 << 6  # motor 1 above the current limit: 240 x 17 + 152 = 4232 mA
    fw.bl_control(ram, rom)
    assert int(ram[g.REF]) == 1000 and int(ram[g.SP_REM]) == rem
    assert int(ram[g.CLIMIT_EVENTS]) == 1
    ram[g.REG_ADC] = 0
    free = ram.copy()
    fw.pi_output(free, rom, 0, 0)  # what one accepted loop adds from the held state
    fw.bl_control(ram, rom)
    assert int(ram[g.REF]) == int(free[g.REF]) and int(ram[g.SP_REM]) == int(free[g.SP_REM])
