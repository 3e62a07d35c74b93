"""The TMS320C2xx 16-bit primitives against Python big-int truth, with the boundary values."""

import numba
from hypothesis import example, given
from hypothesis import strategies as st

from servobus.firmware import int16 as i16

WORD_EDGES = [0, -1, 1, 0x7FFF, 0x8000, 0xFFFF, -(1 << 15), (1 << 15) - 1, 0x10000, 0x1FFFF]
WORD = st.one_of(st.sampled_from(WORD_EDGES), st.integers(-(1 << 17), 1 << 17))
ACC_EDGES = [i16.ACC_MIN, i16.ACC_MAX, i16.ACC_MIN + 1, i16.ACC_MAX - 1, -(1 << 15), 1 << 15,
             0, -1, 1, 0xFFFF, 0x7FFF, 0x8000, 1 << 30, -(1 << 30)]
ACC = st.one_of(st.sampled_from(ACC_EDGES), st.integers(i16.ACC_MIN, i16.ACC_MAX))
FLAG = st.sampled_from([0, 1])
IN_SHIFT = st.integers(0, 16)
OUT_SHIFT = st.integers(0, 7)
PM = st.integers(0, 3)


def s16(x: int) -> int:
    """Independent signed 16-bit reading: reduce mod 2^16, then move the upper half down."""
    x %= 1 << 16
    return x - (1 << 16) if x >= 1 << 15 else x


def s32(x: int) -> int:
    """Independent signed 32-bit reading: reduce mod 2^32, then move the upper half down."""
    x %= 1 << 32
    return x - (1 << 32) if x >= 1 << 31 else x


def alu(exact: int, ovm: int) -> tuple[int, bool]:
    """What the CALU leaves for an exact result: saturated (OVM=1) or wrapped, and the OV flag."""
    ov = not (-(1 << 31) <= exact < (1 << 31))
    if ovm:
        return min(max(exact, -(1 << 31)), (1 << 31) - 1), ov
    return s32(exact), ov


def widened(word: int, sxm: int) -> int:
    """The input shifter's 16-bit operand as a 32-bit number: signed under SXM=1, else unsigned."""
    return s16(word) if sxm else word % (1 << 16)


def shifted(p: int, pm: int) -> int:
    """Table 3-1 of SPRU127 in arithmetic: x1, x2, x16 (mod 2^32), floor(p / 64)."""
    if pm == 3:
        return p // 64
    return s32(p * (1, 2, 16)[pm])


@given(st.integers(-(1 << 40), 1 << 40))
@example(0x8000)
@example(0xFFFF)
@example(-(1 << 15) - 1)
def test_word_readings(x: int) -> None:
    assert i16.wrap16(x) == s16(x)
    assert i16.u16(x) == x % (1 << 16)
    assert i16.wrap16(i16.u16(x)) == i16.wrap16(x)


def test_word_boundaries() -> None:
    assert (i16.wrap16(0x7FFF), i16.wrap16(0x8000), i16.wrap16(0xFFFF)) == (32767, -32768, -1)
    assert (i16.u16(-1), i16.u16(-32768), i16.u16(0x10000)) == (0xFFFF, 0x8000, 0)


@given(WORD, WORD)
def test_c_int_arithmetic_wraps_at_16_bits(a: int, b: int) -> None:
    assert i16.add16(a, b) == s16(a + b)
    assert i16.sub16(a, b) == s16(a - b)
    assert i16.mul16(a, b) == s16(s16(a) * s16(b))


def test_c_int_boundaries() -> None:
    assert i16.add16(0x7FFF, 1) == -32768
    assert i16.sub16(-32768, 1) == 32767
    assert i16.mul16(-32768, -1) == -32768


@given(WORD, IN_SHIFT, FLAG)
@example(0xAF11, 8, 0)
@example(0x8000, 16, 0)
@example(0x8000, 16, 1)
def test_lacc_input_shifter(word: int, shift: int, sxm: int) -> None:
    assert i16.ext16(word, sxm) == widened(word, sxm)
    assert i16.lacc(word, shift, sxm) == s32(widened(word, sxm) * (1 << shift))
    assert i16.lacl(word) == word % (1 << 16)


def test_input_shifter_figures_of_the_guide() -> None:
    assert i16.lacc(0xAF11, 8, 0) == 0x00AF1100
    assert i16.lacc(0xAF11, 8, 1) == s32(0xFFAF1100)
    assert i16.lacc(0xFFFF, 15, 0) == 0x7FFF8000
    assert i16.lacc(0x8000, 15, 1) == -(1 << 30)
    assert i16.lacc(0x8000, 16, 0) == i16.ACC_MIN
    assert i16.lacc(-1, 0, 1) == -1 and i16.lacl(-1) == 0xFFFF


@given(ACC, ACC, FLAG)
@example(i16.ACC_MAX, 1, 0)
@example(i16.ACC_MIN, -1, 1)
def test_accumulator_add_sub(acc: int, x: int, ovm: int) -> None:
    assert i16.acc_add(acc, x, ovm) == alu(acc + x, ovm)
    assert i16.acc_sub(acc, x, ovm) == alu(acc - x, ovm)


def test_overflow_mode_boundaries() -> None:
    assert i16.acc_add(i16.ACC_MAX, 1, 0) == (i16.ACC_MIN, True)
    assert i16.acc_add(i16.ACC_MAX, 1, 1) == (i16.ACC_MAX, True)
    assert i16.acc_sub(i16.ACC_MIN, 1, 0) == (i16.ACC_MAX, True)
    assert i16.acc_sub(i16.ACC_MIN, 1, 1) == (i16.ACC_MIN, True)
    assert i16.acc_sub(0, i16.ACC_MIN, 1) == (i16.ACC_MAX, True)
    assert i16.acc_add(i16.ACC_MAX, 0, 1) == (i16.ACC_MAX, False)
    assert i16.acc_add(i16.ACC_MIN, -1, 0) == (i16.ACC_MAX, True)


@given(ACC, WORD, IN_SHIFT, FLAG, FLAG)
def test_add_sub_with_shift(acc: int, word: int, shift: int, sxm: int, ovm: int) -> None:
    operand = s32(widened(word, sxm) * (1 << shift))
    assert i16.add_shifted(acc, word, shift, sxm, ovm) == alu(acc + operand, ovm)
    assert i16.sub_shifted(acc, word, shift, sxm, ovm) == alu(acc - operand, ovm)


def test_add_shifted_boundaries() -> None:
    assert i16.add_shifted(i16.ACC_MAX, 0x7FFF, 15, 1, 1) == (i16.ACC_MAX, True)
    assert i16.add_shifted(0, 0xFFFF, 16, 0, 0) == (s32(0xFFFF0000), False)
    assert i16.add_shifted(0, 0xFFFF, 0, 0, 0) == (0xFFFF, False)
    assert i16.add_shifted(0, 0xFFFF, 0, 1, 0) == (-1, False)
    assert i16.sub_shifted(i16.ACC_MIN, 1, 0, 1, 1) == (i16.ACC_MIN, True)


@given(WORD, WORD)
@example(0x8000, 0x8000)
@example(0xFFFF, 0xFFFF)
def test_multiply_into_p(t: int, word: int) -> None:
    assert i16.mpy(t, word) == s16(t) * s16(word)
    assert i16.mpyu(t, word) == s32((t % (1 << 16)) * (word % (1 << 16)))


def test_multiply_boundaries() -> None:
    assert i16.mpy(0x8000, 0x8000) == 0x40000000
    assert i16.mpy(0x7FFF, 0x8000) == -0x3FFF8000
    assert i16.mpy(-1, -1) == 1
    assert i16.mpyu(0xFFFF, 0xFFFF) == s32(0xFFFE0001)


@given(ACC, PM, ACC, FLAG)
def test_product_shifter_and_accumulate(p: int, pm: int, acc: int, ovm: int) -> None:
    assert i16.pshift(p, pm) == shifted(p, pm)
    assert i16.pac(p, pm) == shifted(p, pm)
    assert i16.apac(acc, p, pm, ovm) == alu(acc + shifted(p, pm), ovm)
    assert i16.spac(acc, p, pm, ovm) == alu(acc - shifted(p, pm), ovm)


def test_product_shifter_boundaries() -> None:
    q31 = i16.mpy(0x8000, 0x8000)
    assert i16.pshift(q31, 1) == i16.ACC_MIN
    assert i16.pshift(i16.mpy(0x4000, 0x4000), 1) == 1 << 29
    assert i16.pshift(i16.mpy(0x1000, 0x7FFF), 2) == 0x7FFF << 16
    assert i16.pshift(-1, 3) == -1 and i16.pshift(-64, 3) == -1 and i16.pshift(-65, 3) == -2
    assert i16.pshift(i16.ACC_MIN, 3) == -(1 << 25) and i16.pshift(i16.ACC_MAX, 3) == (1 << 25) - 1


@given(ACC, FLAG)
@example(i16.ACC_MIN, 0)
@example(-1, 1)
def test_sfl_sfr(acc: int, sxm: int) -> None:
    assert i16.sfl(acc) == s32(acc * 2)
    assert i16.sfr(acc, sxm) == (acc // 2 if sxm else (acc % (1 << 32)) // 2)


def test_sfl_sfr_boundaries() -> None:
    assert i16.sfl(1 << 30) == i16.ACC_MIN and i16.sfl(i16.ACC_MIN) == 0
    assert i16.sfr(i16.ACC_MIN, 0) == 1 << 30 and i16.sfr(i16.ACC_MIN, 1) == -(1 << 30)
    assert i16.sfr(-1, 0) == i16.ACC_MAX and i16.sfr(-1, 1) == -1


@given(ACC, OUT_SHIFT)
def test_store_high_low_word(acc: int, shift: int) -> None:
    moved = (acc % (1 << 32)) * (1 << shift) % (1 << 32)
    assert i16.sach(acc, shift) == s16(moved // (1 << 16))
    assert i16.sacl(acc, shift) == s16(moved)


def test_output_shifter_figures_of_the_guide() -> None:
    assert i16.sach(0x00F0F0A1, 4) == 0x0F0F
    assert i16.sacl(0x00F0F0A1, 6) == 0x2840
    assert i16.sach(i16.ACC_MIN, 0) == -32768 and i16.sach(i16.ACC_MIN, 1) == 0
    assert i16.sach(-1, 7) == -1 and i16.sacl(-1, 7) == s16(0xFF80)
    assert i16.sach(0x7FFF8000, 0) == 0x7FFF and i16.sacl(0x7FFF8000, 0) == -32768


@numba.njit(cache=False)
def _compiled(a: int, w: int, s: int, m: int, pm: int) -> tuple[int, ...]:
    """Every primitive called from a numba kernel (flags from tuples folded to 0/1)."""
    r1, o1 = i16.acc_add(a, w, m)
    r2, o2 = i16.acc_sub(a, w, m)
    r3, o3 = i16.add_shifted(a, w, s, m, m)
    r4, o4 = i16.sub_shifted(a, w, s, 1 - m, m)
    r5, o5 = i16.apac(a, i16.mpy(w, a), pm, m)
    r6, o6 = i16.spac(a, i16.mpyu(w, a), pm, m)
    return (i16.wrap16(a), i16.u16(a), i16.add16(a, w), i16.sub16(a, w), i16.mul16(a, w),
            i16.ext16(w, m), i16.lacc(w, s, m), i16.lacl(w), r1, int(o1), r2, int(o2), r3,
            int(o3), r4, int(o4), r5, int(o5), r6, int(o6), i16.pshift(a, pm), i16.pac(a, pm),
            i16.sfl(a), i16.sfr(a, m), i16.sach(a, s % 8), i16.sacl(a, s % 8))


def _python(a: int, w: int, s: int, m: int, pm: int) -> tuple[int, ...]:
    """The same calls on Python ints."""
    r = [i16.acc_add(a, w, m), i16.acc_sub(a, w, m), i16.add_shifted(a, w, s, m, m),
         i16.sub_shifted(a, w, s, 1 - m, m), i16.apac(a, i16.mpy(w, a), pm, m),
         i16.spac(a, i16.mpyu(w, a), pm, m)]
    flat = [v for acc, ov in r for v in (acc, int(ov))]
    return (i16.wrap16(a), i16.u16(a), i16.add16(a, w), i16.sub16(a, w), i16.mul16(a, w),
            i16.ext16(w, m), i16.lacc(w, s, m), i16.lacl(w), *flat, i16.pshift(a, pm),
            i16.pac(a, pm), i16.sfl(a), i16.sfr(a, m), i16.sach(a, s % 8), i16.sacl(a, s % 8))


@given(ACC, WORD, IN_SHIFT, FLAG, PM)
@example(i16.ACC_MAX, 0x7FFF, 16, 0, 1)
@example(i16.ACC_MIN, 0x8000, 16, 1, 3)
def test_numba_kernels_compute_the_same(a: int, w: int, s: int, m: int, pm: int) -> None:
    assert _compiled(a, w, s, m, pm) == _python(a, w, s, m, pm)
