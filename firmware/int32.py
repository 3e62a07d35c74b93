"""32-bit register arithmetic of the ARM7TDMI, the only arithmetic firmware modules may use.

Every function takes and returns plain integers holding int32 values (the 64-bit multiply
returns an int64).  They run unchanged in CPython (the reference path, where results are checked
against big-int truth) and inside numba-compiled kernels (the fast path) thanks to
``register_jitable``.  Names match what the C firmware would write:

    wrap32(x)         value as a 32-bit register holds it (two's complement wrap)
    add / sub         wrapping 32-bit add / subtract (ADD, SUB)
    sat_add / sat_sub saturating add / subtract, returning (result, overflowed)  (ADDS + branch)
    mul               32x32 -> low 32 bits (MUL)
    mul64             32x32 -> 64 bits (SMULL)
    asr               arithmetic shift right, rounds toward -inf (ASR)
    div_trunc         C division, truncates toward zero (software __aeabi_idiv; no HW divide)
    diff16            signed difference of two 16-bit counter readings (wrap-aware)
    clamp             min/max against two limits (CMP + conditional MOV, twice)
    eq / ne / lt / gt / ge   compare for a branch (CMP + B<cond>)
    bit_or / bit_and  bitwise logic (ORR, AND)
"""

from numba.extending import register_jitable

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


@register_jitable
def wrap32(x: int) -> int:
    """Two's-complement wrap of any integer into [-2^31, 2^31)."""
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@register_jitable
def add(a: int, b: int) -> int:
    """Wrapping 32-bit addition."""
    return ((a + b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@register_jitable
def sub(a: int, b: int) -> int:
    """Wrapping 32-bit subtraction."""
    return ((a - b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@register_jitable
def _saturate(s: int) -> tuple[int, bool]:
    """Clip an exact (33-bit) result to int32; the flag says whether it had to."""
    if s > 2147483647:
        return 2147483647, True
    if s < -2147483648:
        return -2147483648, True
    return s, False


@register_jitable
def sat_add(a: int, b: int) -> tuple[int, bool]:
    """Saturating 32-bit addition; the flag says whether the true sum left int32."""
    return _saturate(a + b)


@register_jitable
def sat_sub(a: int, b: int) -> tuple[int, bool]:
    """Saturating 32-bit subtraction; the flag says whether the true difference left int32."""
    return _saturate(a - b)


@register_jitable
def mul(a: int, b: int) -> int:
    """32x32 multiply keeping the low 32 bits (ARM MUL)."""
    return ((a * b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@register_jitable
def mul64(a: int, b: int) -> int:
    """32x32 multiply with the full 64-bit product (ARM SMULL); exact for int32 operands."""
    return a * b


@register_jitable
def asr(a: int, n: int) -> int:
    """Arithmetic shift right by 0..31 bits; negative values round toward -inf like ASR."""
    return a >> n


@register_jitable
def div_trunc(a: int, b: int) -> int:
    """C integer division (truncating toward zero); INT32_MIN / -1 wraps as the ARM runtime does."""
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return ((q + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@register_jitable
def diff16(now: int, before: int) -> int:
    """Signed distance from one 16-bit counter reading to the next, in [-32768, 32767]."""
    return ((now - before + 0x8000) & 0xFFFF) - 0x8000


@register_jitable
def clamp(x: int, lo: int, hi: int) -> int:
    """Limit x to [lo, hi] (lo <= hi)."""
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@register_jitable
def eq(a: int, b: int) -> bool:
    """a == b, as a compare-and-branch."""
    return a == b


@register_jitable
def ne(a: int, b: int) -> bool:
    """a != b, as a compare-and-branch."""
    return a != b


@register_jitable
def lt(a: int, b: int) -> bool:
    """a < b (signed), as a compare-and-branch."""
    return a < b


@register_jitable
def gt(a: int, b: int) -> bool:
    """a > b (signed), as a compare-and-branch."""
    return a > b


@register_jitable
def ge(a: int, b: int) -> bool:
    """a >= b (signed), as a compare-and-branch."""
    return a >= b


@register_jitable
def bit_or(a: int, b: int) -> int:
    """Bitwise OR of two 32-bit values."""
    return a | b


@register_jitable
def bit_and(a: int, b: int) -> int:
    """Bitwise AND of two 32-bit values."""
    return a & b


PRIMITIVES = ("add", "sub", "sat_add", "sat_sub", "mul", "mul64", "asr", "div_trunc",
              "diff16", "clamp", "eq", "ne", "lt", "gt", "ge", "bit_or", "bit_and")
