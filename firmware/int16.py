"""16-bit DSP arithmetic of the TMS320C2xx CPU (GuRoo's TMS320F243), beside int32.py's ARM.

Source: TI, *TMS320C2xx User's Guide* (SPRU127): §3.2 multiplier and product-scaling shifter
(Table 3-1, PM modes), §3.3 input shifter (0..16-bit left shift, SXM), CALU and output shifter
(SACH/SACL, 0..7-bit left shift), ch. 7 instruction pages (ADD, SUB, LACC, LACL, MPY, MPYU, PAC,
APAC, SPAC, SFL, SFR, SACH, SACL).  Plain integers in and out, ``register_jitable`` so numba
kernels can call them, checked against big-int truth in tests/firmware/test_int16.py.

Conventions: a 16-bit data word is returned as a signed int16 (C ``int`` on the C2xx is 16 bits)
and accepted as any integer, of which the low 16 bits count (so 0xFFFF and -1 are one word);
``u16`` gives its unsigned reading.  The accumulator ACC and product register P are int32.
Mode bits are plain ints/bools: ``sxm`` (sign-extension mode), ``ovm`` (overflow mode: 0 wraps,
1 saturates to 0x7FFFFFFF / 0x80000000), ``pm`` (product shift mode 0..3).  ALU operations
return ``(acc, ov)`` where ``ov`` says whether this operation overflowed; the CPU's OV bit is
latched, so the caller keeps ``ov_bit = ov_bit or ov`` (cleared by BV/BNV/LST, not modelled).
The carry bit C is not modelled.

    wrap16 / u16          a word as signed / unsigned 16 bits
    add16 / sub16 / mul16 C ``int`` arithmetic (wraps at 16 bits)
    ext16                 input shifter's widening: sign extension (SXM=1) or zero fill (SXM=0)
    lacc / lacl           load ACC from a word with a 0..16 left shift / zero-filled low word
    acc_add / acc_sub     32-bit CALU add / subtract with OVM and the OV flag
    add_shifted / sub_shifted   ADD / SUB dma,shift (input shifter then CALU)
    mpy / mpyu            16x16 -> 32 product into P, signed / unsigned
    pshift                product-scaling shifter (PM 00 none, 01 <<1, 10 <<4, 11 >>6 signed)
    pac / apac / spac     P through the product shifter into / added to / subtracted from ACC
    sfl / sfr             ACC shifted left 1 / right 1 (arithmetic if SXM=1, logical if SXM=0)
    sach / sacl           high / low word of ACC << 0..7 (output shifter)
"""

from numba.extending import register_jitable

from servobus.firmware.int32 import wrap32

INT16_MIN = -(1 << 15)
INT16_MAX = (1 << 15) - 1
UINT16_MAX = (1 << 16) - 1
ACC_MIN = -(1 << 31)
ACC_MAX = (1 << 31) - 1


@register_jitable
def wrap16(x: int) -> int:
    """Two's-complement wrap of any integer into a signed 16-bit word [-2^15, 2^15)."""
    return ((x + 0x8000) & 0xFFFF) - 0x8000


@register_jitable
def u16(x: int) -> int:
    """The unsigned reading [0, 2^16) of the word holding the low 16 bits of x."""
    return x & 0xFFFF


@register_jitable
def add16(a: int, b: int) -> int:
    """16-bit C ``int`` addition, wrapping."""
    return wrap16(a + b)


@register_jitable
def sub16(a: int, b: int) -> int:
    """16-bit C ``int`` subtraction, wrapping."""
    return wrap16(a - b)


@register_jitable
def mul16(a: int, b: int) -> int:
    """16-bit C ``int`` multiplication keeping the low word (what ``int * int`` stores)."""
    return wrap16(wrap16(a) * wrap16(b))


@register_jitable
def ext16(word: int, sxm: int) -> int:
    """A 16-bit word widened by the input shifter: sign-extended if SXM=1, zero-filled if SXM=0."""
    if sxm:
        return wrap16(word)
    return word & 0xFFFF


@register_jitable
def lacc(word: int, shift: int, sxm: int) -> int:
    """LACC dma,shift: ACC = the word widened per SXM, shifted left 0..16; high bits are lost."""
    return wrap32(ext16(word, sxm) << shift)


@register_jitable
def lacl(word: int) -> int:
    """LACL: ACC = the word in the low half, upper half zero (not affected by SXM)."""
    return word & 0xFFFF


@register_jitable
def _alu(exact: int, ovm: int) -> tuple[int, bool]:
    """The CALU result of an exact sum: OV if it left int32; OVM=1 saturates, else wraps."""
    if exact > 2147483647:
        if ovm:
            return 2147483647, True
        return wrap32(exact), True
    if exact < -2147483648:
        if ovm:
            return -2147483648, True
        return wrap32(exact), True
    return exact, False


@register_jitable
def acc_add(acc: int, x: int, ovm: int) -> tuple[int, bool]:
    """ACC + x (both int32) through the CALU; returns (ACC, overflowed)."""
    return _alu(acc + x, ovm)


@register_jitable
def acc_sub(acc: int, x: int, ovm: int) -> tuple[int, bool]:
    """ACC - x (both int32) through the CALU; returns (ACC, overflowed)."""
    return _alu(acc - x, ovm)


@register_jitable
def add_shifted(acc: int, word: int, shift: int, sxm: int, ovm: int) -> tuple[int, bool]:
    """ADD dma,shift: ACC + (word widened per SXM) << 0..16; returns (ACC, overflowed)."""
    return _alu(acc + lacc(word, shift, sxm), ovm)


@register_jitable
def sub_shifted(acc: int, word: int, shift: int, sxm: int, ovm: int) -> tuple[int, bool]:
    """SUB dma,shift: ACC - (word widened per SXM) << 0..16; returns (ACC, overflowed)."""
    return _alu(acc - lacc(word, shift, sxm), ovm)


@register_jitable
def mpy(t: int, word: int) -> int:
    """MPY: P = TREG x word, both signed 16-bit; exact (0x8000 x 0x8000 = 2^30 fits)."""
    return wrap16(t) * wrap16(word)


@register_jitable
def mpyu(t: int, word: int) -> int:
    """MPYU: P = TREG x word, both unsigned 16-bit; the 32-bit P register read as int32."""
    return wrap32((t & 0xFFFF) * (word & 0xFFFF))


@register_jitable
def pshift(p: int, pm: int) -> int:
    """Product-scaling shifter: PM=0 none, 1 left 1, 2 left 4 (high bits lost), 3 right 6 signed."""
    if pm == 0:
        return p
    if pm == 1:
        return wrap32(p << 1)
    if pm == 2:
        return wrap32(p << 4)
    return p >> 6


@register_jitable
def pac(p: int, pm: int) -> int:
    """PAC: ACC = P through the product shifter."""
    return pshift(p, pm)


@register_jitable
def apac(acc: int, p: int, pm: int, ovm: int) -> tuple[int, bool]:
    """APAC: ACC + shifted P through the CALU; returns (ACC, overflowed)."""
    return _alu(acc + pshift(p, pm), ovm)


@register_jitable
def spac(acc: int, p: int, pm: int, ovm: int) -> tuple[int, bool]:
    """SPAC: ACC - shifted P through the CALU; returns (ACC, overflowed)."""
    return _alu(acc - pshift(p, pm), ovm)


@register_jitable
def sfl(acc: int) -> int:
    """SFL: ACC shifted left one bit, bit 31 lost, 0 into bit 0 (not affected by SXM or OVM)."""
    return wrap32(acc << 1)


@register_jitable
def sfr(acc: int, sxm: int) -> int:
    """SFR: ACC shifted right one bit; SXM=1 keeps the sign bit, SXM=0 shifts a 0 into bit 31."""
    if sxm:
        return acc >> 1
    return (acc & 0xFFFFFFFF) >> 1


@register_jitable
def sach(acc: int, shift: int) -> int:
    """SACH dma,shift: the high word of ACC << 0..7 (bits lost off the top), ACC unchanged."""
    return ((((acc << shift) >> 16) + 0x8000) & 0xFFFF) - 0x8000


@register_jitable
def sacl(acc: int, shift: int) -> int:
    """SACL dma,shift: the low word of ACC << 0..7, ACC unchanged."""
    return (((acc << shift) + 0x8000) & 0xFFFF) - 0x8000


PRIMITIVES = ("wrap16", "u16", "add16", "sub16", "mul16", "ext16", "lacc", "lacl", "acc_add",
              "acc_sub", "add_shifted", "sub_shifted", "mpy", "mpyu", "pshift", "pac", "apac",
              "spac", "sfl", "sfr", "sach", "sacl")
