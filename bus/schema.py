"""The message schema (dbc/servobus.dbc) and the one codec every node uses (cantools).

Board and host sides of a message share this definition: ``encode`` and ``decode`` go through
cantools, or through the struct formats ``bus.codec_fast`` generates from the same DBC signal
definitions; never through byte layouts written again by hand.  Unknown IDs,
wrong lengths and undecodable payloads raise ``SchemaError`` (nodes count them as faults).

A CAN FD bus is the DBC's ``BA_ "BusType" "CAN FD";`` with its data bit rate in the network
attribute ``BaudrateCANFD`` (Vector's names); a message is an FD frame when its
``VFrameFormat`` is ``StandardCAN_FD`` (cantools' ``Message.is_fd``) and switches to the data
rate when its ``CANFD_BRS`` is "1" (the attribute definition's default when not given).
"""

import functools
import math
import re
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import can
import cantools

from servobus.bus import codec_fast
from servobus.bus import frame_bits_fd as fdb
from servobus.bus.bit_timing import BitTiming
from servobus.bus.dbc_cache import load_dbc
from servobus.bus.layout import Layout, layout_of
from servobus.bus.untrusted import shown
from servobus.firmware.memory import MODE_NAMES

MEAS_BYTES = (2, 6)  # the measurement frame variants: MEAS_j and MEAS6_j
TICK = "TICK"
MODES = {name: value for value, name in enumerate(MODE_NAMES)}  # the firmware's MODE_* by name
COMMAND_NAMES = ("release", "engage", "freeze", "set_mode", "clear_faults")  # COMMAND.command
COMMANDS = {name: value for value, name in enumerate(COMMAND_NAMES)}
CAN_STATE_NAMES = ("error_active", "error_passive", "bus_off")  # STATUS_j.can_state_j
# the value tables of the DBC, by signal name, and the enum the code uses for each
_ENUMS = ((re.compile(r"(board_)?mode(_\d+)?"), "modes", MODE_NAMES),
          (re.compile(r"command"), "commands", COMMAND_NAMES),
          (re.compile(r"can_state_\d+"), "CAN states", CAN_STATE_NAMES))


TIME_TRIGGERED_REQUIRED = (TICK, "MEAS_1", "ACTUATION_1")  # a time-triggered robot runs on these
BITRATE_MIN, BITRATE_MAX = 10_000, 1_000_000  # classic CAN, as `--bitrate` takes it
FD_BUS_TYPE = "CAN FD"  # the BusType of a CAN FD network
DATA_BITRATE_ATTRIBUTE = "BaudrateCANFD"  # the network's data-phase bit rate (bit/s)
BRS_ATTRIBUTE = "CANFD_BRS"  # a message's bit rate switch, ENUM "0","1"


def whole_ns_bit_time(rate: float) -> bool:
    """Whether a bit rate's bit time is whole nanoseconds (the simulated bus counts ns)."""
    return rate == int(rate) and 1_000_000_000 % int(rate) == 0


CLASSIC_BYTES = 8  # the most data bytes of a classic CAN frame
CYCLE_MS_MAX = 10_000  # a GenMsgCycleTime sets the default `--period`: 0.1 ms .. 10 s


class SchemaError(ValueError):
    """A DBC file or a frame that does not fit the schema."""


def default_dbc() -> Path:
    """The shipped schema file of the SPEJBL robot."""
    return shipped_dbc("servobus.dbc")


def shipped_dbc(name: str) -> Path:
    """A schema file shipped in servobus.dbc (servobus.dbc: SPEJBL, guroo.dbc: GuRoo)."""
    return Path(str(resources.files("servobus.dbc").joinpath(name)))


class Decoded(NamedTuple):
    """A decoded frame: message name and physical signal values."""

    name: str
    values: dict[str, Any]


class Schema:
    """The loaded DBC with the servobus naming conventions."""

    def __init__(self, path: str | Path | None = None,
                 required: tuple[str, ...] = TIME_TRIGGERED_REQUIRED) -> None:
        self.path = Path(path) if path is not None else default_dbc()
        try:
            db = load_dbc(self.path)
        except (OSError, cantools.database.UnsupportedDatabaseFormatError, ValueError) as err:
            raise SchemaError(f"{self.path}: cannot load DBC: {_why(err)}") from err
        if not isinstance(db, cantools.database.can.Database):
            raise SchemaError(f"{self.path}: not a CAN database")
        _check_db(self.path, db)
        self.db: cantools.database.can.Database = db
        self._by_id = {m.frame_id: m for m in self.db.messages}
        self._by_name = {m.name: m for m in self.db.messages}
        for name in required:
            if name not in self._by_name:
                raise SchemaError(f"{self.path}: the schema has no message {name}")
        self._check_enums()
        self._fast = {m.frame_id: codec for m in self.db.messages
                      if (codec := codec_fast.generate(m)) is not None}
        self._flags = {m.frame_id: (bool(m.is_fd), bool(m.is_fd) and _brs(m))
                       for m in self.db.messages}

    def _check_enums(self) -> None:
        """Every value table of the DBC (VAL_) names the values the code uses for that signal:
        the firmware's modes, the COMMAND verbs, the CAN error states."""
        for message in self.db.messages:
            for sig in message.signals:
                for pattern, kind, names in _ENUMS:
                    if pattern.fullmatch(sig.name) and sig.choices is not None and \
                            {int(k): str(v) for k, v in sig.choices.items()} != dict(
                                enumerate(names)):
                        raise SchemaError(f"{self.path}: {message.name}.{sig.name} names {kind} "
                                          f"{dict(sig.choices)}, servobus' are "
                                          f"{dict(enumerate(names))}")

    @functools.cached_property
    def layout(self) -> Layout:
        """The time-triggered robot's joints and actuation groups, as the DBC states them
        (SchemaError: the DBC is not a time-triggered robot's)."""
        try:
            return layout_of(self.db, self.path)
        except ValueError as err:
            raise SchemaError(str(err)) from None

    @property
    def joints(self) -> int:
        """The time-triggered robot's joint count (its MEAS_1..MEAS_N)."""
        return self.layout.joints

    @property
    def bitrate(self) -> int:
        """Bit rate from the DBC attribute Baudrate (1 Mbit/s by default; checked at load)."""
        attr = _baudrate(self.db)
        return int(attr.value) if attr is not None else BITRATE_MAX

    @property
    def data_bitrate(self) -> int | None:
        """The data phase's bit rate of a CAN FD bus (BaudrateCANFD; None: classic CAN)."""
        attr = _attribute(self.db, DATA_BITRATE_ATTRIBUTE)
        return int(attr.value) if attr is not None else None

    @property
    def bit_timing(self) -> BitTiming:
        """The bus's bit rates (its nominal Baudrate; a data bit rate on a CAN FD bus)."""
        return BitTiming(self.bitrate, self.data_bitrate)

    def frame_flags(self, name: str) -> tuple[bool, bool]:
        """(is_fd, bitrate_switch) of message `name`: how every node sends it."""
        return self._flags[self.message(name).frame_id]

    @functools.cached_property
    def fd_ids(self) -> dict[int, bool]:
        """The CAN FD messages' IDs, each mapped to whether it switches to the data bit rate
        (the buses' and engines' per-ID frame formats)."""
        return {can_id: brs for can_id, (fd, brs) in self._flags.items() if fd}

    @property
    def tick_period_ns(self) -> int:
        """The TICK cycle time (GenMsgCycleTime) in ns."""
        return self.cycle_ns(TICK)

    def cycle_ns(self, name: str) -> int:
        """A cyclic message's period (its GenMsgCycleTime) in ns: the DBC is where it lives."""
        cycle = self.message(name).cycle_time
        if not cycle:
            raise SchemaError(f"{self.path}: {name} has no GenMsgCycleTime")
        return int(cycle) * 1_000_000

    def message(self, name: str) -> cantools.database.Message:
        """A message definition by name."""
        try:
            return self._by_name[name]
        except KeyError as err:
            raise SchemaError(f"no message {name!r} in {self.path.name}") from err

    def encode(self, name: str, values: dict[str, Any]) -> can.Message:
        """A can.Message of `name` with the given physical values (range-checked)."""
        return self.frame(*self.encode_data(name, values))

    def worst_case_ns(self, name: str, timing: BitTiming | None = None) -> int:
        """The longest time a frame of message `name` may hold the wire (interframe space
        included), as the DBC frames it: Davis et al.'s bound, or the CAN FD one, at the bus's
        bit rates (or `timing`'s)."""
        message = self.message(name)
        fd, brs = self._flags[message.frame_id]
        return (timing or self.bit_timing).worst_case_ns(message.length, fd=fd, brs=brs)

    def frame(self, can_id: int, data: bytes) -> can.Message:
        """The frame a node sends with this payload: classic, or CAN FD (with BRS where the DBC
        says) for the DBC's FD messages."""
        fd, brs = self._flags.get(can_id, (False, False))
        return can.Message(arbitration_id=can_id, data=data, is_extended_id=False, is_fd=fd,
                           bitrate_switch=brs)

    def encode_data(self, name: str, values: dict[str, Any]) -> tuple[int, bytes]:
        """The CAN ID and payload of `name` with the given physical values (range-checked;
        a signal without a DBC range, [0|0], by its bits: cantools' OverflowError), for a bus
        that takes bytes (the period engine)."""
        definition = self.message(name)
        fast = self._fast.get(definition.frame_id)
        try:
            data = fast.encode(values) if fast else definition.encode(values, strict=True)
        except (cantools.database.EncodeError, KeyError, ValueError, OverflowError) as err:
            raise SchemaError(f"{name}: cannot encode {values}: {err}") from err
        return definition.frame_id, bytes(data)

    def codec(self, name: str) -> codec_fast.FastCodec:
        """The generated struct codec of a byte-aligned message (SchemaError if `name` has none):
        a bus that takes bytes encodes and decodes with it (the period engine)."""
        fast = self._fast.get(self.message(name).frame_id)
        if fast is None:
            raise SchemaError(f"{name}: no byte-aligned layout (the period engine needs one)")
        return fast

    def _definition(self, msg: can.Message) -> cantools.database.Message:
        """The definition of a frame whose ID and DLC fit the schema (SchemaError if not)."""
        definition = self._by_id.get(msg.arbitration_id)
        if definition is None or msg.is_extended_id:
            raise SchemaError(f"unknown CAN ID 0x{msg.arbitration_id:X}")
        if msg.dlc != definition.length:
            raise SchemaError(f"{definition.name} (0x{msg.arbitration_id:X}) has DLC {msg.dlc}, "
                              f"the schema says {definition.length}")
        if bool(msg.is_fd) != bool(definition.is_fd):
            raise SchemaError(f"{definition.name} (0x{msg.arbitration_id:X}) came as a "
                              f"{'CAN FD' if msg.is_fd else 'classic'} frame, the schema says "
                              f"{'CAN FD' if definition.is_fd else 'classic'}")
        return definition

    def check(self, msg: can.Message) -> str:
        """The message name of a frame whose ID and DLC fit the schema (SchemaError if not);
        for frames whose arrival is the information (a tick) and whose values are not needed."""
        return str(self._definition(msg).name)

    def decode(self, msg: can.Message) -> Decoded:
        """Name and values of a received frame; SchemaError for unknown IDs or wrong DLC."""
        definition = self._definition(msg)
        fast = self._fast.get(msg.arbitration_id)
        try:
            values: Any = (fast.decode(bytes(msg.data)) if fast else
                           definition.decode(bytes(msg.data), decode_choices=False))
        except (cantools.database.DecodeError, ValueError) as err:
            raise SchemaError(f"{definition.name}: cannot decode {msg.data.hex()}: {err}") \
                from err
        return Decoded(definition.name, dict(values))

    def period_messages(self, meas_bytes: int,
                        local_p: bool = False) -> list[cantools.database.Message]:
        """The frames of one tick period: TICK, a measurement per joint, the actuations (SPEC
        1.2: 12 and 3 on SPEJBL) -- the position set-points POSREF_k instead when the boards
        run their own position loops (local-p)."""
        if meas_bytes not in MEAS_BYTES:
            raise SchemaError(f"measurement messages are 2 or 6 bytes, not {meas_bytes}")
        meas = [self.message(meas_name(j, meas_bytes)) for j in range(1, self.joints + 1)]
        act = [self.message(posref_name(k) if local_p else actuation_name(k))
               for k in range(1, len(self.layout.groups) + 1)]
        return [self.message(TICK), *meas, *act]

    def variant_messages(self, meas_bytes: int) -> list[cantools.database.Message]:
        """Every message of the schema with the chosen measurement variant (the other size's
        measurement messages left out)."""
        other = "MEAS6_" if meas_bytes == 2 else "MEAS_"
        return [m for m in self.db.messages if not m.name.startswith(other)]

    def sent_ids(self, meas_bytes: int) -> set[int]:
        """IDs the robot's nodes can send (fault rules on other IDs could never fire)."""
        return {int(m.frame_id) for m in self.variant_messages(meas_bytes)}

    def cyclic_messages(self, meas_bytes: int,
                        local_p: bool = False) -> list[tuple[cantools.database.Message, int]]:
        """Every message with a cycle time and its cycle (ms), with the chosen measurement
        variant; `local_p`: each group's POSREF on its ACTUATION's cycle (the host sends the
        boards' set-points instead)."""
        act = {actuation_name(k): posref_name(k)
               for k in range(1, len(self.layout.groups) + 1)} if local_p else {}
        return [(self.message(act[m.name]) if m.name in act else m,
                 int(m.cycle_time)) for m in self.variant_messages(meas_bytes) if m.cycle_time]


def _check_db(path: Path, db: cantools.database.can.Database) -> None:
    """Refuse what servobus' nodes and codecs cannot carry, naming the DBC line: a CAN ID or
    message name given twice, an extended ID, a classic frame of more than 8 data bytes, an FD
    frame on a classic bus or of no FD length, a signal whose [min|max] its bits cannot hold
    (or of scale 0), a Baudrate outside 10 kbit/s .. 1 Mbit/s or without a whole-ns bit time,
    a CAN FD bus without a fitting BaudrateCANFD, a GenMsgCycleTime outside 0 (none) .. 10 s."""
    fd_bus = _check_rates(path, db)
    ids: dict[int, str] = {}
    names: set[str] = set()
    for m in db.messages:
        if m.frame_id in ids:
            raise _dbc_error(path, m.name, f"CAN ID 0x{m.frame_id:03X} is given to "
                                           f"{ids[m.frame_id]} and {m.name}")
        if m.name in names:
            raise _dbc_error(path, m.name, f"two messages are named {m.name}")
        ids[m.frame_id] = m.name
        names.add(m.name)
        if m.is_extended_frame:
            raise _dbc_error(path, m.name, f"{m.name} has an extended (29-bit) ID "
                                           f"0x{m.frame_id:X}: servobus' nodes send 11-bit IDs")
        _check_length(path, m, fd_bus)
        cycle = m.cycle_time or 0
        if not 0 <= cycle <= CYCLE_MS_MAX:
            raise _dbc_error(path, m.name, f"{m.name}'s GenMsgCycleTime {cycle} ms is outside "
                                           f"0 (none) .. {CYCLE_MS_MAX} ms", "GenMsgCycleTime")
        for sig in m.signals:
            if why := _unfit(sig):
                raise _dbc_error(path, m.name, f"{m.name}.{sig.name}: {why}", sig.name)


def _check_length(path: Path, m: cantools.database.Message, fd_bus: bool) -> None:
    """A classic frame of at most 8 bytes; an FD frame (VFrameFormat) only on a CAN FD bus,
    of an FD length."""
    if not m.is_fd:
        if m.length > CLASSIC_BYTES:
            raise _dbc_error(path, m.name, f"{m.name} has {m.length} data bytes: a classic CAN "
                                           f"frame carries at most {CLASSIC_BYTES} (more only "
                                           "as a CAN FD frame, VFrameFormat StandardCAN_FD)")
        return
    if not fd_bus:
        raise _dbc_error(path, m.name, f"{m.name} is a CAN FD frame (VFrameFormat) on a "
                                       f'classic bus: a CAN FD bus is BusType "{FD_BUS_TYPE}" '
                                       f"with a {DATA_BITRATE_ATTRIBUTE}", "VFrameFormat")
    if m.length not in fdb.FD_LENGTHS:
        raise _dbc_error(path, m.name, f"{m.name} has {m.length} data bytes: a CAN FD frame "
                                       f"carries one of {', '.join(map(str, fdb.FD_LENGTHS))}")


def _check_rates(path: Path, db: cantools.database.can.Database) -> bool:
    """The Baudrate, and on a CAN FD bus (BusType "CAN FD") its BaudrateCANFD: whole-ns bit
    times, the data rate 8 Mbit/s at most and not below the nominal one.  Whether the bus is
    CAN FD."""
    attr = _baudrate(db)
    nominal = BITRATE_MAX
    if attr is not None:
        rate = attr.value
        if not isinstance(rate, int | float) or not BITRATE_MIN <= rate <= BITRATE_MAX or \
                not whole_ns_bit_time(rate):
            raise _dbc_error(path, None, f"Baudrate {rate!r} is not a classic CAN bit rate "
                                         f"{BITRATE_MIN} .. {BITRATE_MAX} bit/s with a bit time "
                                         "of whole nanoseconds", "Baudrate")
        nominal = int(rate)
    bus_type = _attribute(db, "BusType")
    fd_bus = bus_type is not None and bus_type.value == FD_BUS_TYPE
    data = _attribute(db, DATA_BITRATE_ATTRIBUTE)
    if data is None:
        if fd_bus:
            raise _dbc_error(path, None, f'BusType "{FD_BUS_TYPE}" without a '
                                         f"{DATA_BITRATE_ATTRIBUTE} (the data phase's bit rate, "
                                         "bit/s)", "BusType")
        return False
    if not fd_bus:
        raise _dbc_error(path, None, f"{DATA_BITRATE_ATTRIBUTE} on a bus whose BusType is not "
                                     f'"{FD_BUS_TYPE}"', DATA_BITRATE_ATTRIBUTE)
    rate = data.value
    try:
        if not isinstance(rate, int | float) or rate != int(rate):
            raise ValueError("not a whole number of bit/s")
        fdb.bit_times_ns(nominal, int(rate))
    except ValueError as err:
        raise _dbc_error(path, None, f"{DATA_BITRATE_ATTRIBUTE} {rate!r}: {err}",
                         DATA_BITRATE_ATTRIBUTE) from None
    return True


def _baudrate(db: cantools.database.can.Database) -> Any:
    """The DBC's Baudrate attribute (None: not given)."""
    return _attribute(db, "Baudrate")


def _attribute(db: cantools.database.can.Database, name: str) -> Any:
    """A network attribute (BA_ "name" value;) of the DBC (None: not given)."""
    return db.dbc.attributes.get(name) if db.dbc else None


def _brs(m: cantools.database.Message) -> bool:
    """A message's CANFD_BRS: its BA_, else the definition's default, else "1" (cantools')."""
    attrs = m.dbc.attributes if m.dbc else {}
    definitions = m.dbc.attribute_definitions if m.dbc else {}
    definition = definitions.get(BRS_ATTRIBUTE)
    attr = attrs.get(BRS_ATTRIBUTE)
    if attr is None:
        return definition is None or str(definition.default_value) == "1"
    choices = definition.choices if definition is not None else None
    value = choices[int(attr.value)] if choices else attr.value
    return str(value) == "1"


def _unfit(sig: cantools.database.can.Signal) -> str:
    """Why a signal's range cannot be encoded in its bits ('' when it can)."""
    if sig.is_float:
        return ""
    if not sig.scale:
        return "scale 0 (every value would be the offset)"
    lo_raw, hi_raw = (-(1 << sig.length - 1), (1 << sig.length - 1) - 1) if sig.is_signed \
        else (0, (1 << sig.length) - 1)
    for end in (sig.minimum, sig.maximum):
        raw = None if end is None else (end - sig.offset) / sig.scale
        if raw is not None and not (math.isfinite(raw) and lo_raw <= round(raw) <= hi_raw):
            return (f"[{sig.minimum}|{sig.maximum}] does not fit {sig.length} "
                    f"{'signed' if sig.is_signed else 'unsigned'} bits at scale {sig.scale}, "
                    f"offset {sig.offset} (raw {lo_raw} .. {hi_raw})")
    if sig.minimum is not None and sig.maximum is not None and sig.minimum > sig.maximum:
        return f"minimum {sig.minimum} above maximum {sig.maximum}"
    return ""


def _dbc_error(path: Path, message: str | None, what: str,
               word: str | None = None) -> SchemaError:
    """SchemaError `path:line: what`, the line that of `word` (an SG_ in `message`'s block, a
    BA_ of it or of the network), else `message`'s BO_ line (else no line)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        text = []
    line = _find(text, message, word)
    return SchemaError(f"{path}:{line}: {what}" if line else f"{path}: {what}")


def _find(text: list[str], message: str | None, word: str | None) -> int:
    """The 1-based line of `word` (its SG_ in `message`'s block, or its BA_ for `message`, or
    the network's BA_ when `message` is None), else of `message`'s BO_ (0: none)."""
    bo, frame_id = 0, ""
    for number, line in enumerate(text, start=1):
        parts = line.replace(":", " : ").split()
        if parts[:1] == ["BO_"] and len(parts) > 2 and parts[2] == message and not bo:
            bo, frame_id = number, parts[1]
            if word is None:
                return bo
            for k in range(number, len(text)):
                if not text[k].strip():
                    break
                if text[k].split()[:2] == ["SG_", word]:
                    return k + 1
        if word and parts[:2] == ["BA_", f'"{word}"'] and len(parts) > 2 and (
                parts[2:4] == ["BO_", frame_id] if message else
                parts[2] not in ("BU_", "BO_", "SG_", "EV_")):
            return number
    return bo


def _why(err: BaseException) -> str:
    """cantools' complaint on one line, quoting the offending text escaped and cut short."""
    text = str(err)
    if mt := re.search(r"Invalid syntax at line (\d+), column (\d+): \"(.*)\"\"$", text, re.S):
        return f"invalid syntax at line {mt.group(1)}, column {mt.group(2)}: " \
               f"{shown(mt.group(3).replace('>>!<<', '', 1))}"
    return shown(text, 120)


def meas_name(joint: int, meas_bytes: int) -> str:
    """MEAS_<j> (2-byte variant) or MEAS6_<j> (6-byte variant)."""
    return f"{'MEAS6' if meas_bytes == 6 else 'MEAS'}_{joint}"


def sequence_gap(prev: int, seq: int) -> int:
    """How many ticks after tick `prev` the tick `seq` comes (1: the next), mod 256 (SPEC 1.1)."""
    return (seq - prev) % 256


def actuation_name(k: int) -> str:
    """ACTUATION_<k>: the current references of actuation group k (``Schema.layout``)."""
    return f"ACTUATION_{k}"


def posref_name(k: int) -> str:
    """POSREF_<k>: the position set-points of actuation group k (local-p boards)."""
    return f"POSREF_{k}"
