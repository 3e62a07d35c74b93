"""CRC-15, stuff bits and frame lengths against independent vectors and the can-utils algorithm."""

from hypothesis import given
from hypothesis import strategies as st

from servobus.bus import frame_bits as fb
from tests.bus.canutils_oracle import cfl_exact

STD = st.tuples(st.integers(0, 0x7FF), st.binary(max_size=8))
EXT = st.tuples(st.integers(0, 0x1FFFFFFF), st.binary(max_size=8))


def _bits_of(data: bytes) -> list[int]:
    return [(b >> (7 - k)) & 1 for b in data for k in range(8)]


def test_crc15_catalogue_check_value() -> None:
    """CRC-15/CAN of ASCII '123456789' is 0x059E (Greg Cook's CRC catalogue)."""
    assert fb.crc15(_bits_of(b"123456789")) == 0x059E


def test_stuff_count_examples() -> None:
    assert fb.stuff_count([0] * 5) == 1
    assert fb.stuff_count([0] * 4) == 0
    assert fb.stuff_count([0] * 9) == 1  # 00000 s 0000: the stuff bit starts a new run
    assert fb.stuff_count([0] * 10) == 2
    assert fb.stuff_count([0] * 5 + [1] * 4) == 2  # 00000 (1) 1111: the stuff 1 joins the run
    assert fb.stuff_count([0, 1] * 20) == 0


@given(STD)
def test_exact_length_equals_can_utils_standard(frame: tuple[int, bytes]) -> None:
    can_id, data = frame
    assert fb.exact_frame_bits(can_id, data) == cfl_exact(can_id, data)


@given(EXT)
def test_exact_length_equals_can_utils_extended(frame: tuple[int, bytes]) -> None:
    can_id, data = frame
    assert fb.exact_frame_bits(can_id, data, extended=True) == cfl_exact(can_id, data, True)


@given(st.one_of(STD.map(lambda f: (*f, False)), EXT.map(lambda f: (*f, True))))
def test_exact_is_between_no_stuffing_and_davis_worst_case(frame) -> None:
    can_id, data, ext = frame
    exact = fb.exact_frame_bits(can_id, data, ext)
    assert fb.no_stuffing_bits(len(data), ext) <= exact <= fb.worst_case_bits(len(data), ext)


def test_known_frame_lengths() -> None:
    assert [fb.worst_case_bits(n) for n in (0, 8)] == [55, 135]  # Davis et al. 2007, Table 1
    assert [fb.worst_case_bits(n, True) for n in (0, 8)] == [80, 160]
    assert [fb.no_stuffing_bits(n) for n in (0, 8)] == [47, 111]
    # can-utils' CFL_WORSTCASE is Davis: 55 + 10n (standard), 80 + 10n (extended)
    assert [fb.worst_case_bits(n) for n in range(9)] == [55 + 10 * n for n in range(9)]
    assert [fb.worst_case_bits(n, True) for n in range(9)] == [80 + 10 * n for n in range(9)]


def test_stretch_counts_whole_stuff_bits() -> None:
    """floor(g / 5) stuff bits on g = 34 + 8n (standard) or 54 + 8n (extended) SOF..CRC bits."""
    assert fb.stretch_6_5_bits(2) == 50 + 10 + 13  # g = 50, a multiple of 5
    assert fb.stretch_6_5_bits(1) == 42 + 8 + 13  # g = 42: 8.4 stuff bits count as 8
    assert fb.stretch_6_5_bits(8) == 98 + 19 + 13  # 19.6 -> 19, not rounded up to 20
    assert fb.stretch_6_5_bits(0, True) == 54 + 10 + 13
    for n in range(9):
        assert fb.stretch_6_5_bits(n) == (269 + 48 * n) // 5  # (34 + 8n) * 6/5 + 13, floored
