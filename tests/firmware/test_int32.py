"""The 32-bit primitives against Python big-int truth, with the boundary values."""

from hypothesis import example, given
from hypothesis import strategies as st

from servobus.firmware import int32 as i32

INT32 = st.integers(min_value=i32.INT32_MIN, max_value=i32.INT32_MAX)
EDGES = [i32.INT32_MIN, i32.INT32_MAX, -(1 << 15), (1 << 15), 0, -1, 1]
OPERAND = st.one_of(st.sampled_from(EDGES), INT32)
PAIRS = st.tuples(OPERAND, OPERAND)


def truth_wrap(x: int) -> int:
    """Independent two's-complement wrap: reduce mod 2^32, then shift the upper half down."""
    x %= 1 << 32
    return x - (1 << 32) if x >= 1 << 31 else x


def truth_sat(x: int) -> tuple[int, bool]:
    clipped = min(max(x, i32.INT32_MIN), i32.INT32_MAX)
    return clipped, clipped != x


@given(st.integers(min_value=-(1 << 70), max_value=1 << 70))
@example(1 << 31)
@example(-(1 << 31) - 1)
def test_wrap32(x: int) -> None:
    assert i32.wrap32(x) == truth_wrap(x)


@given(PAIRS)
def test_wrapping_add_sub_mul(ab: tuple[int, int]) -> None:
    a, b = ab
    assert i32.add(a, b) == truth_wrap(a + b)
    assert i32.sub(a, b) == truth_wrap(a - b)
    assert i32.mul(a, b) == truth_wrap(a * b)


@given(PAIRS)
def test_saturating_add_sub(ab: tuple[int, int]) -> None:
    a, b = ab
    assert i32.sat_add(a, b) == truth_sat(a + b)
    assert i32.sat_sub(a, b) == truth_sat(a - b)


def test_saturation_boundaries() -> None:
    assert i32.sat_add(i32.INT32_MAX, 1) == (i32.INT32_MAX, True)
    assert i32.sat_sub(i32.INT32_MIN, 1) == (i32.INT32_MIN, True)
    assert i32.sat_add(i32.INT32_MAX, 0) == (i32.INT32_MAX, False)
    assert i32.sat_sub(0, i32.INT32_MIN) == (i32.INT32_MAX, True)


@given(PAIRS)
def test_mul64_is_exact_and_fits_int64(ab: tuple[int, int]) -> None:
    a, b = ab
    product = i32.mul64(a, b)
    assert product == a * b
    assert -(1 << 63) <= product < (1 << 63)


@given(OPERAND, st.integers(min_value=0, max_value=31))
def test_asr_rounds_toward_minus_infinity(a: int, n: int) -> None:
    q = i32.asr(a, n)
    assert q * (1 << n) <= a < (q + 1) * (1 << n)


def test_asr_examples() -> None:
    assert i32.asr(-1, 15) == -1
    assert i32.asr(-(1 << 15), 15) == -1
    assert i32.asr(-(1 << 15) - 1, 15) == -2
    assert i32.asr(i32.INT32_MIN, 31) == -1


@given(PAIRS)
def test_div_trunc_is_c_division(ab: tuple[int, int]) -> None:
    a, b = ab
    if b == 0:
        return
    q = i32.div_trunc(a, b)
    exact = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    assert q == truth_wrap(exact)
    if not (a == i32.INT32_MIN and b == -1):
        assert q * b + (a - q * b) == a and abs(a - q * b) < abs(b)
        assert (a - q * b == 0) or ((a - q * b) > 0) == (a > 0)


def test_div_trunc_examples() -> None:
    assert i32.div_trunc(-7, 2) == -3
    assert i32.div_trunc(7, -2) == -3
    assert i32.div_trunc(i32.INT32_MIN, -1) == i32.INT32_MIN


@given(st.integers(0, 0xFFFF), st.integers(-32768, 32767))
def test_diff16_recovers_any_step_below_half_range(before: int, step: int) -> None:
    now = (before + step) & 0xFFFF
    assert i32.diff16(now, before) == step


@given(INT32, INT32, INT32)
def test_clamp(x: int, a: int, b: int) -> None:
    lo, hi = min(a, b), max(a, b)
    assert i32.clamp(x, lo, hi) == min(max(x, lo), hi)


@given(INT32, INT32)
def test_compares_and_logic(a: int, b: int) -> None:
    assert (i32.eq(a, b), i32.ne(a, b), i32.lt(a, b), i32.gt(a, b), i32.ge(a, b)) == (
        a == b, a != b, a < b, a > b, a >= b)
    assert i32.bit_or(a, b) == truth_wrap((a % (1 << 32)) | (b % (1 << 32)))
    assert i32.bit_and(a, b) == truth_wrap((a % (1 << 32)) & (b % (1 << 32)))
