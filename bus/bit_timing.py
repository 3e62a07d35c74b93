"""A bus's bit timing (its nominal bit rate and, on a CAN FD bus, its data bit rate) and how
long a frame lasts on it.

Every frame's time on the wire is split at the end of its CRC delimiter: before it, SOF..CRC
with the stuff bits (classic: all at the nominal rate; FD: arbitration at the nominal rate, the
data phase through the CRC delimiter at the data rate when BRS is set, ``frame_bits_fd``);
after it, always nominal, the ACK slot, ACK delimiter, 7-bit EOF and 3-bit interframe space.
The simulated bus places its end of frame, error flags and recessive runs from that instant.

A classic bus (``data_bitrate`` None) carries classic frames only; a CAN FD bus carries both,
each FD frame with BRS at the data rate (without BRS, or with a data rate equal to the nominal
one, every bit nominal), as an ISO CAN FD controller does.
"""

from dataclasses import dataclass
from functools import lru_cache

import can

from servobus.bus import frame_bits as fb
from servobus.bus import frame_bits_fd as fdb
from servobus.bus.scheduler import NS_PER_S

AFTER_CRC_DELIMITER_BITS = fb.TRAILER_BITS - 1  # ACK slot, ACK delimiter, EOF (nominal)


@lru_cache(maxsize=fb.LENGTH_CACHE)
def fd_length(can_id: int, data: bytes, extended: bool, brs: bool, esi: bool) -> fdb.FdLength:
    """``frame_bits_fd.fd_frame_bits``, remembered (a bus's payloads repeat)."""
    return fdb.fd_frame_bits(can_id, data, extended=extended, brs=brs, esi=esi)


# a classic frame's length from the bit model, remembered (plain Python: the budgets import no
# numba; the simulated bus's hot path has ``frame_fast``)
classic_length = lru_cache(maxsize=fb.LENGTH_CACHE)(fb.exact_frame_bits)


@dataclass(frozen=True)
class BitTiming:
    """Nominal bit rate, and the data phase's on a CAN FD bus (None: classic CAN only)."""

    bitrate: int = 1_000_000
    data_bitrate: int | None = None

    def __post_init__(self) -> None:
        if self.data_bitrate is None:
            if self.bitrate <= 0 or NS_PER_S % self.bitrate:
                raise ValueError(f"bit rate must divide 1e9 ns exactly, got {self.bitrate}")
        else:
            fdb.bit_times_ns(self.bitrate, self.data_bitrate)

    @property
    def fd(self) -> bool:
        """Whether the bus carries CAN FD frames."""
        return self.data_bitrate is not None

    @property
    def bit_ns(self) -> int:
        """The nominal bit time in ns."""
        return NS_PER_S // self.bitrate

    @property
    def data_bit_ns(self) -> int:
        """The data phase's bit time in ns (the nominal one on a classic bus)."""
        return NS_PER_S // (self.data_bitrate or self.bitrate)

    def to_crc_delimiter(self, msg: can.Message, esi: bool | None = None) -> tuple[int, int]:
        """(ns from SOF to the end of the CRC delimiter, the frame's bits on the wire in all,
        interframe space included) of a data frame this bus carries (an FD frame with `esi`
        as sent, when the transmitter's state sets it; else the message's)."""
        data = bytes(msg.data)
        if not msg.is_fd:
            bits = classic_length(msg.arbitration_id, data, msg.is_extended_id)
            return (bits - AFTER_CRC_DELIMITER_BITS - fb.IFS_BITS) * self.bit_ns, bits
        length = fd_length(msg.arbitration_id, data, msg.is_extended_id, msg.bitrate_switch,
                           msg.error_state_indicator if esi is None else esi)
        tail = AFTER_CRC_DELIMITER_BITS + fb.IFS_BITS
        head_ns = (length.nominal_bits - tail) * self.bit_ns + length.data_bits * self.data_bit_ns
        return head_ns, length.nominal_bits + length.data_bits

    def wire(self, msg: can.Message) -> tuple[int, int]:
        """(a data frame's exact time on the wire in ns, its bits), interframe space included."""
        head_ns, bits = self.to_crc_delimiter(msg)
        return head_ns + (AFTER_CRC_DELIMITER_BITS + fb.IFS_BITS) * self.bit_ns, bits

    def frame_ns(self, msg: can.Message) -> int:
        """A data frame's exact time on the wire in ns, interframe space included."""
        return self.wire(msg)[0]

    def worst_case_bits(self, length: int, *, extended: bool = False, fd: bool = False,
                        brs: bool = False) -> fdb.FdLength:
        """Nominal and data bits bounding any data frame of `length` bytes, interframe space
        included (classic: Davis et al. 2007, all nominal; FD: ``fd_worst_case_bits``)."""
        if not fd:
            return fdb.FdLength(fb.worst_case_bits(length, extended), 0)
        return fdb.fd_worst_case_bits(length, extended=extended, brs=brs)

    def worst_case_ns(self, length: int, *, extended: bool = False, fd: bool = False,
                      brs: bool = False) -> int:
        """The longest time on the wire of a data frame of `length` bytes (for RTA and load
        budgets)."""
        bits = self.worst_case_bits(length, extended=extended, fd=fd, brs=brs)
        return bits.nominal_bits * self.bit_ns + bits.data_bits * self.data_bit_ns

    def describe(self) -> str:
        """'1000 kbit/s' or '1000/5000 kbit/s CAN FD'."""
        if self.data_bitrate is None:
            return f"{self.bitrate / 1e3:g} kbit/s"
        return f"{self.bitrate / 1e3:g}/{self.data_bitrate / 1e3:g} kbit/s CAN FD"
