"""Bit-level model of a CAN FD data frame (ISO 11898-1:2015): DLC, stuff count, CRC-17/21,
fixed stuff bits, and the frame's length split between the nominal and the data bit rate.

Base format (FBFF), n data bytes, before stuffing (extended: SOF ID[28..18] SRR IDE ID[17..0]
RRS FDF res ..., 41 + 8n dynamically stuffed bits):

    SOF ID(11) RRS IDE FDF res BRS | ESI DLC DATA(8n) | SC(3) P CRC | del | ACK del EOF(7) IFS(3)
    <--- dynamic stuffing: 22 + 8n bits ---------------> <fixed stuff>
    <---------- nominal -----------> <---- data rate when BRS = 1 ---------> <---- nominal ---->

* Dynamic stuffing (a complement bit after 5 equal bits, ``frame_bits.stuff_step``) covers SOF
  to the end of the data field.  A stuff bit due after the last data bit is not sent: the
  fixed stuff bit takes its place ("there shall not be two consecutive stuff bits", §10.5),
  and it is not counted in the stuff count.
* Stuff count: the dynamic stuff bits mod 8 as a 3-bit Gray code, then an even parity bit
  (§10.4.2.6).  CRC-17 (x^17 polynomial 0x3685B) for up to 16 data bytes, else CRC-21
  (0x302899), its register starting with a 1 in the top bit; it covers SOF..data with the
  dynamic stuff bits, then the stuff count and parity, not the fixed stuff bits.
* Fixed stuff bits, each the complement of the bit before it: one before the stuff count and
  one after every 4th bit of stuff count + parity + CRC: 1 + (4 + 17) // 4 = 6 or 1 + (4 +
  21) // 4 = 7 (§10.5; Linux ``include/linux/can/length.h``, "can: length: fix bitstuffing
  count", 2023).
* Bit rates: the rate switches at the sample point of BRS and back at the sample point of the
  CRC delimiter.  BRS thus lasts the nominal bit up to its sample point plus the data bit's
  phase segment 2, the CRC delimiter the data bit up to its sample point plus the nominal
  phase segment 2: together one nominal and one data bit whatever the sample points.  So BRS
  counts as a nominal bit and the CRC delimiter as a data bit, and the frame's duration is
  exact.  No dynamic stuff bit can follow BRS (after recessive FDF and dominant res, a run
  ends at BRS at most 2 bits long), so the stuff bits of SOF..res are nominal and those of
  ESI..data are at the data rate.
* A payload whose length is no FD length is padded with zero bytes to the next one, as
  SocketCAN's ``can_fd_len2dlc`` and python-can's socketcan ``build_can_frame`` do.

Lengths include the 3-bit interframe space, as ``frame_bits``' do.  The Bosch CAN FD 1.0
frame (CRC register from 0, no stuff count) is not modelled.  Also read: libsigrokdecode's
``can`` decoder (BRS and CRC delimiter durations, Gray code and even parity, one stuff bit
where a dynamic and the first fixed one meet); Greg Cook's CRC catalogue (CRC-17/CAN-FD,
CRC-21/CAN-FD: the polynomials and check values the tests use).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from servobus.bus import frame_bits as fb
from servobus.bus.scheduler import NS_PER_S

FD_LENGTHS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64)  # index = DLC
CRC17_POLY = 0x1685B  # x^17 term omitted, as frame_bits.CRC15_POLY
CRC21_POLY = 0x102899
NOMINAL_BIT_NS = (1_000, 100_000)  # 1 Mbit/s .. 10 kbit/s
DATA_BIT_NS_MIN = 125  # 8 Mbit/s
AFTER_CRC_NOMINAL = fb.TRAILER_BITS - 1 + fb.IFS_BITS  # ACK slot, ACK delimiter, EOF, IFS


def length_to_dlc(length: int) -> int:
    """The DLC of a payload of `length` bytes, rounded up to the next FD length."""
    if not 0 <= length <= FD_LENGTHS[-1]:
        raise ValueError(f"a CAN FD payload holds 0..64 bytes, got {length}")
    return next(dlc for dlc, size in enumerate(FD_LENGTHS) if size >= length)


def dlc_to_length(dlc: int) -> int:
    """Data bytes of an FD frame with this DLC (0..8 direct, 9..15 -> 12..64)."""
    if not 0 <= dlc <= 15:
        raise ValueError(f"a DLC is 4 bits (0..15), got {dlc}")
    return FD_LENGTHS[dlc]


def padded(data: bytes) -> bytes:
    """The payload as sent: zero bytes appended up to the next FD length."""
    return data.ljust(dlc_to_length(length_to_dlc(len(data))), b"\x00")


def crc_width(length: int) -> int:
    """CRC-17 for up to 16 data bytes, CRC-21 above."""
    return 17 if length <= 16 else 21


def fd_crc(bits: Sequence[int], width: int) -> int:
    """ISO CAN FD CRC-17 or CRC-21: the register starts with a 1 in its top bit."""
    poly = CRC17_POLY if width == 17 else CRC21_POLY
    return fb.crc(bits, poly, width, init=1 << (width - 1))


def header_bits(can_id: int, dlc: int, extended: bool, brs: bool, esi: bool) -> list[int]:
    """SOF through the DLC, unstuffed (RRS, res dominant; FDF recessive)."""
    if extended:
        ident = [*fb.field_bits(can_id >> 18, 11), 1, 1, *fb.field_bits(can_id & 0x3FFFF, 18)]
    else:
        ident = [*fb.field_bits(can_id, 11), 0]  # IDE dominant
    return [0, *ident, 0, 1, 0, int(brs), int(esi), *fb.field_bits(dlc, 4)]


def dynamic_stuff(bits: Sequence[int]) -> list[int]:
    """The bits with their dynamic stuff bits, but none after the last bit (the fixed stuff
    bit takes that place)."""
    out: list[int] = []
    run, last, count, stuffed_last = 0, -1, 0, False
    for bit in bits:
        run, last, after = fb.stuff_step(bit, run, last, count)
        stuffed_last = after > count
        out += [bit, 1 - bit] if stuffed_last else [bit]
        count = after
    return out[:-1] if stuffed_last else out


def stuff_count_bits(stuff_bits: int) -> list[int]:
    """The stuff count field: stuff bits mod 8, Gray-coded, then an even parity bit."""
    gray = (stuff_bits % 8) ^ ((stuff_bits % 8) >> 1)
    return [*fb.field_bits(gray, 3), gray.bit_count() & 1]


def fixed_stuff(field: Sequence[int], before: int) -> list[int]:
    """The CRC field on the wire: a fixed stuff bit first and after every 4th bit, each the
    complement of the bit before it (`before`: the last bit of the data field)."""
    out = [1 - before]
    for k, bit in enumerate(field, 1):
        out += [bit, 1 - bit] if k % 4 == 0 else [bit]
    return out


@dataclass(frozen=True)
class FdFrame:
    """An FD data frame on the wire up to its CRC delimiter, split where the bit rate changes."""

    arbitration: list[int]  # SOF..BRS with its stuff bits (nominal rate)
    data_phase: list[int]  # ESI..last data bit with its stuff bits
    crc_field: list[int]  # stuff count, parity and CRC with the fixed stuff bits


def fd_frame(can_id: int, data: bytes, *, extended: bool = False, brs: bool = True,
             esi: bool = False) -> FdFrame:
    """The frame's bits as the transmitter sends them (payload padded to an FD length)."""
    payload = padded(data)
    head = header_bits(can_id, length_to_dlc(len(payload)), extended, brs, esi)
    unstuffed = head + [b for byte in payload for b in fb.field_bits(byte, 8)]
    stuffed = dynamic_stuff(unstuffed)
    arbitration = dynamic_stuff(unstuffed[:len(head) - 5])  # SOF..BRS: ESI and DLC follow
    width = crc_width(len(payload))
    count = stuff_count_bits(len(stuffed) - len(unstuffed))
    crc = fb.field_bits(fd_crc(stuffed + count, width), width)
    return FdFrame(arbitration, stuffed[len(arbitration):],
                   fixed_stuff(count + crc, stuffed[-1]))


@dataclass(frozen=True)
class FdLength:
    """Bits of a frame sent at the nominal and at the data bit rate (BRS counts as nominal,
    the CRC delimiter as data; without BRS every bit is nominal)."""

    nominal_bits: int
    data_bits: int

    def duration_ns(self, nominal_bit_ns: int, data_bit_ns: int) -> int:
        """The frame's time on the bus for these bit times (checked by ``check_bit_times``)."""
        check_bit_times(nominal_bit_ns, data_bit_ns)
        return self.nominal_bits * nominal_bit_ns + self.data_bits * data_bit_ns


def _split(arbitration: int, fast: int, brs: bool) -> FdLength:
    """Nominal and data bits from SOF..BRS and ESI..CRC delimiter (`fast`)."""
    if brs:
        return FdLength(arbitration + AFTER_CRC_NOMINAL, fast)
    return FdLength(arbitration + fast + AFTER_CRC_NOMINAL, 0)


def fd_frame_bits(can_id: int, data: bytes, *, extended: bool = False, brs: bool = True,
                  esi: bool = False) -> FdLength:
    """Exact length on the wire, stuff bits and the 3-bit interframe space included."""
    frame = fd_frame(can_id, data, extended=extended, brs=brs, esi=esi)
    fast = len(frame.data_phase) + len(frame.crc_field) + 1  # + CRC delimiter
    return _split(len(frame.arbitration), fast, brs)


def fd_frame_ns(can_id: int, data: bytes, nominal_bit_ns: int, data_bit_ns: int, *,
                extended: bool = False, brs: bool = True, esi: bool = False) -> int:
    """The frame's exact time on the bus in ns, interframe space included."""
    length = fd_frame_bits(can_id, data, extended=extended, brs=brs, esi=esi)
    return length.duration_ns(nominal_bit_ns, data_bit_ns)


def fd_model_bits(length: int, stuff: Callable[[int], int], *, extended: bool = False,
                  brs: bool = True) -> FdLength:
    """A frame of `length` data bytes (padded to an FD length) whose first m bits of SOF..data
    carry stuff(m) dynamic stuff bits, its fixed fields as sent (the stuff count, CRC-17/21,
    the fixed stuff bits): the load models of ``busload`` (none, one per 5 bits, the worst)."""
    size = dlc_to_length(length_to_dlc(length))
    arbitration = 36 if extended else 17  # SOF..BRS
    stuffable = arbitration + 5 + 8 * size  # + ESI, DLC, data
    nominal = arbitration + stuff(arbitration)
    width = crc_width(size)
    crc_field = 4 + width + 1 + (4 + width) // 4  # stuff count, parity, CRC, fixed stuff bits
    fast = stuffable + stuff(stuffable) - nominal + crc_field + 1  # .. CRC delimiter
    return _split(nominal, fast, brs)


def fd_worst_case_bits(length: int, *, extended: bool = False, brs: bool = True) -> FdLength:
    """An upper bound for any frame of `length` data bytes (padded to an FD length), for RTA.

    The first dynamic stuff bit can follow bit 5 of SOF..data, each next one 4 bits later,
    none the last bit: floor((m - 2) / 4) in m bits, for SOF..data and for SOF..BRS at once
    (the fixed values of SOF, RRS, IDE, FDF and res are ignored, as Davis et al. 2007 do for
    classic frames).  As the data bit is never longer than the nominal one, counting the
    most stuff bits before BRS bounds the nominal bits, the total and the duration (not the
    data bits alone: a frame with fewer nominal stuff bits may have more data ones)."""
    return fd_model_bits(length, lambda m: (m - 2) // 4, extended=extended, brs=brs)


def check_bit_times(nominal_bit_ns: int, data_bit_ns: int) -> None:
    """Whole-ns bit times, nominal 10 kbit/s..1 Mbit/s, data up to 8 Mbit/s and not slower
    than nominal (ISO 11898-1: the data bit time is at most the nominal one)."""
    for name, value in (("nominal", nominal_bit_ns), ("data", data_bit_ns)):
        if type(value) is not int:
            raise ValueError(f"the {name} bit time must be a whole number of ns, got {value!r}")
    low, high = NOMINAL_BIT_NS
    if not low <= nominal_bit_ns <= high:
        raise ValueError(f"nominal bit time {nominal_bit_ns} ns is outside {low}..{high} ns "
                         "(1 Mbit/s..10 kbit/s)")
    if not DATA_BIT_NS_MIN <= data_bit_ns <= nominal_bit_ns:
        raise ValueError(f"data bit time {data_bit_ns} ns is outside {DATA_BIT_NS_MIN}.."
                         f"{nominal_bit_ns} ns (8 Mbit/s..the nominal bit rate)")


def bit_times_ns(nominal_bitrate: int, data_bitrate: int) -> tuple[int, int]:
    """Nominal and data bit times in ns of two bit rates in bit/s (each must divide 1e9)."""
    times = []
    for name, rate in (("nominal", nominal_bitrate), ("data", data_bitrate)):
        if rate <= 0 or NS_PER_S % rate:
            raise ValueError(f"the {name} bit rate {rate} bit/s has no whole-ns bit time")
        times.append(NS_PER_S // rate)
    check_bit_times(times[0], times[1])
    return times[0], times[1]
