"""CAN FD frames against hand-counted lengths, the fixed-stuff rule, catalogue CRC check values,
a second CRC algorithm, python-can's DLC table and the bit-time limits."""

import can
import pytest
from hypothesis import given
from hypothesis import strategies as st

from servobus.bus import frame_bits_fd as fd
from servobus.bus.frame_bits_fd import FdLength

FRAMES = st.tuples(st.booleans(), st.integers(0, 0x1FFFFFFF), st.binary(max_size=64),
                   st.booleans(), st.booleans()).map(
    lambda f: (f[0], f[1] if f[0] else f[1] & 0x7FF, f[2], f[3], f[4]))
# the CRC-17 and CRC-21 generator polynomials with their x^17 and x^21 terms (ISO 11898-1:2015)
GENERATORS = {17: 0x3685B, 21: 0x302899}


def _bits_of(data: bytes) -> list[int]:
    return [(b >> (7 - k)) & 1 for b in data for k in range(8)]


def _crc_by_division(bits: list[int], width: int) -> int:
    """The ISO register (a 1 in its top bit, then the bits shifted in msb first) as polynomial
    arithmetic: (x^(width-1) * x^n + M(x) * x^width) mod G(x) over GF(2), n = len(bits)."""
    message = int("".join(map(str, bits)), 2) if bits else 0
    dividend = (1 << (width - 1 + len(bits))) ^ (message << width)
    generator = GENERATORS[width]
    while dividend.bit_length() > width:
        dividend ^= generator << (dividend.bit_length() - 1 - width)
    return dividend


# ID 0x123 = 001 0010 0011.  Base frame, BRS = 1, ESI = 0, unstuffed:
#   SOF 0 | ID 0 0 1 0 0 1 0 0 0 1 1 | RRS 0 IDE 0 FDF 1 res 0 | BRS 1 | ESI 0 | DLC (4) | data
# Runs up to BRS: 000 1 00 1 000 11 00 1 0 1: none reaches 5, so SOF..BRS is 17 nominal bits.
# Trailer, nominal: ACK slot + ACK delimiter + EOF 7 + IFS 3 = 12, so nominal = 17 + 12 = 29.
# Data rate: ESI + DLC (5) + 8n data + dynamic stuff bits + CRC field + CRC delimiter (1), the
# CRC field being stuff count 4 + CRC 17 (n <= 16) or 21, plus 1 + floor((4 + 17) / 4) = 6 or
# 1 + floor((4 + 21) / 4) = 7 fixed stuff bits: 27 or 32 bits.
# Without BRS the same bits (BRS 0 changes the runs only where said) are all nominal.
ORACLE = [
    # 0 bytes, DLC 0000: BRS 1 | ESI 0 DLC 0000 is a run of 5 zeros ending at the last bit of
    # the stuffed region, so its stuff bit is not sent (the fixed stuff bit takes its place):
    # 5 + 27 + 1 = 33.  Linux length.h's CAN FD base overhead with CRC-17: 62 = 29 + 33.
    (0x123, b"", True, FdLength(29, 33)),
    # BRS 0: res 0 BRS 0 ESI 0 DLC 0 0 is a run of 5 -> stuff 1, then 0 0: 1 stuff bit;
    # 22 + 1 + 27 + 1 + 12 = 63
    (0x123, b"", False, FdLength(63, 0)),
    # 8 x 0x00, DLC 1000: after DLC's 1, DLC 000 + data 00 is 5 zeros -> stuff after data bit 2,
    # then every 5 zeros: after bits 2, 7, ..., 62 = 13 stuff bits (67 > 64).
    # 5 + 64 + 13 + 27 + 1 = 110
    (0x123, bytes(8), True, FdLength(29, 110)),
    (0x123, bytes(8), False, FdLength(29 + 110, 0)),  # res 0 BRS 0 ESI 0 then DLC 1: run of 3
    # 8 x 0xFF: DLC 1000 ends in zeros; 64 ones -> stuff after bits 5, 10, ..., 60 = 12;
    # 5 + 64 + 12 + 27 + 1 = 109
    (0x123, b"\xff" * 8, True, FdLength(29, 109)),
    (0x123, b"\xff" * 8, False, FdLength(138, 0)),
    # 8 x 0x55: DLC 000 + data 0 is a run of 4, then 1010...: no stuff bit; 5 + 64 + 27 + 1 = 97
    (0x123, b"\x55" * 8, True, FdLength(29, 97)),
    (0x123, b"\x55" * 8, False, FdLength(126, 0)),
    # 12 x 0x00, DLC 9 = 1001: 96 zeros after DLC's final 1 -> stuff after bits 5, 10, ..., 95
    # = 19; 5 + 96 + 19 + 27 + 1 = 148
    (0x123, bytes(12), True, FdLength(29, 148)),
    (0x123, bytes(12), False, FdLength(177, 0)),
    # 12 x 0xFF: DLC's final 1 + 96 ones -> stuff after bits 4, 9, ..., 94 = 19 -> 148
    (0x123, b"\xff" * 12, True, FdLength(29, 148)),
    # 12 x 0x55: DLC 1001 then 0101...: no stuff bit; 5 + 96 + 27 + 1 = 129
    (0x123, b"\x55" * 12, True, FdLength(29, 129)),
    (0x123, b"\x55" * 12, False, FdLength(158, 0)),
    # 64 x 0x00, DLC 1111 (CRC-21): 512 zeros -> stuff after bits 5, 10, ..., 510 = 102;
    # 5 + 512 + 102 + 32 + 1 = 652
    (0x123, bytes(64), True, FdLength(29, 652)),
    (0x123, bytes(64), False, FdLength(681, 0)),
    # 64 x 0xFF: DLC 1111 + first data 1 = 5 ones -> stuff after bits 1, 6, ..., 511 = 103;
    # 5 + 512 + 103 + 32 + 1 = 653
    (0x123, b"\xff" * 64, True, FdLength(29, 653)),
    (0x123, b"\xff" * 64, False, FdLength(682, 0)),
    # 64 x 0x55: DLC 1111 then 0101...: no stuff bit; 5 + 512 + 32 + 1 = 550
    (0x123, b"\x55" * 64, True, FdLength(29, 550)),
    (0x123, b"\x55" * 64, False, FdLength(579, 0)),
    # 1 x 0x1F, DLC 0001: ESI 0 DLC 0001 | 0001 1111: the 5 ones end the data field, so no
    # stuff bit is sent (the fixed one replaces it): 5 + 8 + 27 + 1 = 41
    (0x123, b"\x1f", True, FdLength(29, 41)),
    # 10 bytes are padded to 12 (DLC 9) with zero bytes: 0x55 x 10 + 0x00 x 2: DLC 1001, 80
    # alternating bits ending in 1, then 16 zeros -> stuff after zero 5, 10, 15 = 3 stuff bits;
    # 5 + 96 + 3 + 27 + 1 = 132
    (0x123, b"\x55" * 10, True, FdLength(29, 132)),
    # ID 0x000: SOF + 11 ID bits + RRS + IDE = 14 zeros -> stuff after zero 5 and 10: 2 nominal
    # stuff bits, then 0000 FDF 1 res 0 BRS 1 ESI 0 DLC 0000 (run of 5 at the end, not sent):
    # nominal 17 + 2 + 12 = 31, data 5 + 27 + 1 = 33
    (0x000, b"", True, FdLength(31, 33)),
]


@pytest.mark.parametrize(("can_id", "data", "brs", "expected"), ORACLE)
def test_hand_counted_lengths(can_id: int, data: bytes, brs: bool, expected: FdLength) -> None:
    assert fd.fd_frame_bits(can_id, data, brs=brs) == expected


def test_hand_counted_extended_frame() -> None:
    """ID 0x15555555 = 1 0101 ... 0101 (29 bits, alternating).  Unstuffed:
    SOF 0 | ID[28..18] 10101010101 | SRR 1 IDE 1 | ID[17..0] 0101...01 | RRS 0 FDF 1 res 0 |
    BRS 1 | ESI 0 | DLC 1000 | 8 x 0x55 (0101...).  Longest runs: ID18 SRR IDE = 3 ones,
    DLC 000 + data 0 = 4 zeros: no stuff bit.  SOF..BRS = 1 + 11 + 2 + 18 + 4 = 36 nominal
    bits + 12 after the CRC; data rate 5 + 64 + 27 + 1 = 97.  Cross-check: Linux length.h's
    extended FD frame without dynamic stuffing is 86 bits with CRC-21, so 86 - 4 (CRC-17) - 1
    (6 fixed stuff bits, not 7) + 64 = 145 = 48 + 97."""
    assert fd.fd_frame_bits(0x15555555, b"\x55" * 8, extended=True) == FdLength(48, 97)


@given(FRAMES)
def test_fixed_stuff_bits(frame: tuple[bool, int, bytes, bool, bool]) -> None:
    """The CRC field starts with a fixed stuff bit and has one after every 4th bit, each the
    complement of the bit before; 1 + floor((4 + w) / 4) of them, w = 17 or 21."""
    extended, can_id, data, brs, esi = frame
    sent = fd.fd_frame(can_id, data, extended=extended, brs=brs, esi=esi)
    width = 17 if len(fd.padded(data)) <= 16 else 21
    field = sent.crc_field
    positions = range(0, len(field), 5)
    assert len(positions) == 1 + (4 + width) // 4 == len(field) - 4 - width
    previous = [sent.data_phase[-1], *(field[k - 1] for k in positions[1:])]
    assert [field[k] for k in positions] == [1 - bit for bit in previous]


def _fields(value: int, width: int) -> list[int]:
    return [(value >> (width - 1 - k)) & 1 for k in range(width)]


def _destuffed(bits: list[int]) -> list[int]:
    """A receiver's destuffing: after 5 equal bits the next one is a stuff bit, the complement,
    dropped (and the first bit of a new run)."""
    out, run, skip = [], 0, False
    for k, bit in enumerate(bits):
        if skip:
            assert bit != bits[k - 1], "a stuff bit must be the complement of the run"
            run, skip = 1, False
            continue
        run = run + 1 if k and bit == bits[k - 1] else 1
        out.append(bit)
        skip = run == 5
    return out


@given(FRAMES)
def test_dynamic_stuffing_destuffs_to_the_frame(frame: tuple[bool, int, bytes, bool, bool]
                                                ) -> None:
    """SOF..data as sent destuffs to the ISO field layout, built here field by field."""
    extended, can_id, data, brs, esi = frame
    sent = fd.fd_frame(can_id, data, extended=extended, brs=brs, esi=esi)
    payload = fd.padded(data)
    if extended:
        ident = [*_fields(can_id >> 18, 11), 1, 1, *_fields(can_id & 0x3FFFF, 18)]  # SRR IDE
    else:
        ident = [*_fields(can_id, 11), 0]  # IDE
    control = [0, 1, 0, int(brs), int(esi)]  # RRS FDF res BRS ESI
    expected = [0, *ident, *control, *_fields(can.util.len2dlc(len(payload)), 4),
                *_bits_of(payload)]
    assert _destuffed(sent.arbitration + sent.data_phase) == expected
    assert _destuffed(sent.arbitration) == expected[:len(ident) + 5]  # SOF..BRS


@given(FRAMES)
def test_stuff_count_and_crc_check_out(frame: tuple[bool, int, bytes, bool, bool]) -> None:
    """A receiver's view: without the fixed stuff bits the field is a Gray-coded stuff count
    with even parity, and the CRC (found by polynomial division) matches."""
    extended, can_id, data, brs, esi = frame
    sent = fd.fd_frame(can_id, data, extended=extended, brs=brs, esi=esi)
    payload = fd.padded(data)
    stuffed = sent.arbitration + sent.data_phase
    dynamic = len(stuffed) - (41 if extended else 22) - 8 * len(payload)
    field = [bit for k, bit in enumerate(sent.crc_field) if k % 5]
    gray = field[0] << 2 | field[1] << 1 | field[2]
    assert [gray ^ (gray >> 1) ^ (gray >> 2)] == [dynamic % 8]  # Gray to binary, 3 bits
    assert sum(field[:4]) % 2 == 0
    width = len(field) - 4
    assert int("".join(map(str, field[4:])), 2) == _crc_by_division(stuffed + field[:4], width)


def test_crc_catalogue_check_values() -> None:
    """CRC-17/CAN-FD 0x04F03 and CRC-21/CAN-FD 0x0ED841 of ASCII '123456789' (Greg Cook's CRC
    catalogue, register from 0); ISO's register starts with a 1 in its top bit."""
    bits = _bits_of(b"123456789")
    assert fd.fb.crc(bits, fd.CRC17_POLY, 17) == 0x04F03
    assert fd.fb.crc(bits, fd.CRC21_POLY, 21) == 0x0ED841
    for width in (17, 21):
        assert fd.fd_crc(bits, width) == _crc_by_division(bits, width)


def test_dlc_mapping_matches_python_can() -> None:
    assert [fd.dlc_to_length(dlc) for dlc in range(16)] == [*range(9), 12, 16, 20, 24, 32, 48, 64]
    for length in range(65):
        assert fd.length_to_dlc(length) == can.util.len2dlc(length)
        assert fd.dlc_to_length(fd.length_to_dlc(length)) >= length
    assert fd.padded(b"\x01" * 9) == b"\x01" * 9 + bytes(3)
    for bad in (-1, 65):
        with pytest.raises(ValueError, match=r"0\.\.64 bytes"):
            fd.length_to_dlc(bad)
    with pytest.raises(ValueError, match="DLC"):
        fd.dlc_to_length(16)


@given(FRAMES, st.integers(1_000, 100_000), st.integers(125, 100_000))
def test_worst_case_bounds_length_and_duration(frame: tuple[bool, int, bytes, bool, bool],
                                               nominal_ns: int, data_ns: int) -> None:
    extended, can_id, data, brs, esi = frame
    data_ns = min(data_ns, nominal_ns)
    exact = fd.fd_frame_bits(can_id, data, extended=extended, brs=brs, esi=esi)
    worst = fd.fd_worst_case_bits(len(data), extended=extended, brs=brs)
    assert exact.nominal_bits <= worst.nominal_bits
    assert exact.nominal_bits + exact.data_bits <= worst.nominal_bits + worst.data_bits
    assert exact.duration_ns(nominal_ns, data_ns) <= worst.duration_ns(nominal_ns, data_ns)
    assert fd.fd_frame_ns(can_id, data, nominal_ns, data_ns, extended=extended, brs=brs,
                          esi=esi) == exact.duration_ns(nominal_ns, data_ns)


def test_worst_case_by_hand() -> None:
    """Base, 0 bytes: 22 stuffable bits -> floor(20 / 4) = 5 stuff bits (after bits 5, 9, 13,
    17, 21), 3 of them before BRS (bit 17): nominal 17 + 3 + 12 = 32, data 5 + 2 + 27 + 1 = 35.
    Base, 64 bytes: 534 bits -> 133 stuff bits: data 517 + 130 + 32 + 1 = 680."""
    assert fd.fd_worst_case_bits(0) == FdLength(32, 35)
    assert fd.fd_worst_case_bits(64) == FdLength(32, 680)
    assert fd.fd_worst_case_bits(0, brs=False) == FdLength(67, 0)
    assert fd.fd_worst_case_bits(10) == fd.fd_worst_case_bits(12)  # padded to 12 bytes


def test_duration_in_ns() -> None:
    """8 x 0x55 (29 nominal + 97 data bits) at 500 kbit/s / 2 Mbit/s: 29 * 2000 + 97 * 500."""
    assert fd.fd_frame_ns(0x123, b"\x55" * 8, 2_000, 500) == 58_000 + 48_500
    assert fd.bit_times_ns(500_000, 2_000_000) == (2_000, 500)
    assert fd.bit_times_ns(1_000_000, 8_000_000) == (1_000, 125)
    assert fd.bit_times_ns(10_000, 10_000) == (100_000, 100_000)


@pytest.mark.parametrize(("nominal", "data", "message"), [
    (1_000_000, 3_000_000, "data bit rate 3000000 bit/s has no whole-ns bit time"),
    (0, 2_000_000, "nominal bit rate 0"),
    (2_000_000, 8_000_000, "nominal bit time 500 ns is outside"),
    (5_000, 2_000_000, "nominal bit time 200000 ns is outside"),
    (500_000, 10_000_000, "data bit time 100 ns is outside"),
    (500_000, 250_000, "data bit time 4000 ns is outside"),
])
def test_bit_rate_errors(nominal: int, data: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fd.bit_times_ns(nominal, data)


def test_bit_time_errors() -> None:
    with pytest.raises(ValueError, match="whole number of ns"):
        fd.fd_frame_ns(0x123, b"", 2_000, 333.3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nominal bit time 999 ns"):
        fd.FdLength(1, 1).duration_ns(999, 500)
