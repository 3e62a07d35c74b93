"""The DBC of a time-triggered robot of any joint count (SPEJBL's shape: a time trigger, one
board per joint, a host), built as cantools objects: messages, signals (scales, ranges, units
and value tables as in dbc/servobus.dbc), senders and receivers, cycle times and send types,
the bit rates.  With a data bit rate every message is a CAN FD frame with bit rate switch
(VFrameFormat StandardCAN_FD, CANFD_BRS 1, BusType "CAN FD", BaudrateCANFD), its signals laid
out as on a classic bus and its length rounded up to an FD length.

The ID rule (docs/robot-file.md), for N joints in G actuation groups; exactly today's IDs while
N <= 16 and G <= 8:

    TICK         0x010
    ACTUATION_k  0x020 + k - 1                 k = 1..G      A = max(8, 2^ceil(log2 G))
    POSREF_k     0x020 + A + k - 1
    COMMAND      0x020 + 2A                                   (G <= 64: below 0x100)
    MEAS_j       0x100 + j                     j = 1..N      M = max(16, 2^ceil(log2 N))
    MEAS6_j      0x100 + M + j                                (N <= 128: below 0x300)
    STATUS_j     0x300 + j
    ANNOUNCE_j   0x700 + j                                    (0x7F0.. never used)

so every ID is unique and priorities keep their order: tick < actuations < position references <
command < measurements < status < announce.
"""

from collections import OrderedDict
from dataclasses import dataclass

from cantools.database.can import Bus, Database, Message, Node, Signal
from cantools.database.can.formats.dbc import DbcAttribute, DbcAttributeDefinition, DbcSpecifics
from cantools.database.conversion import BaseConversion

from servobus.bus import frame_bits_fd as fdb
from servobus.bus.schema import (
    BRS_ATTRIBUTE,
    CAN_STATE_NAMES,
    COMMAND_NAMES,
    DATA_BITRATE_ATTRIBUTE,
    FD_BUS_TYPE,
    meas_name,
)
from servobus.firmware.memory import MODE_NAMES

JOINTS_MAX = 128  # MEAS6_j stays below 0x300
GROUPS_MAX = 64  # COMMAND stays below 0x100
STATUS_MS = 100  # a board's STATUS period (plant.board_node.STATUS_PERIOD_NS)
Q12 = 2.0**-12  # current references and measured currents: A per LSB
SEND_TYPES = ["Cyclic", "OnTick", "OnEvent"]

_SEND_TYPE = DbcAttributeDefinition("GenMsgSendType", default_value="OnEvent", kind="BO_",
                                    type_name="ENUM", choices=SEND_TYPES)
# Vector's CAN FD attributes: VFrameFormat's values 14/15 are the FD frames
_FRAME_FORMATS = ["StandardCAN", "ExtendedCAN", *["reserved"] * 12, "StandardCAN_FD",
                  "ExtendedCAN_FD"]
_FD_DEFINITIONS = (
    DbcAttributeDefinition("VFrameFormat", default_value="StandardCAN", kind="BO_",
                           type_name="ENUM", choices=_FRAME_FORMATS),
    DbcAttributeDefinition(BRS_ATTRIBUTE, default_value="1", kind="BO_", type_name="ENUM",
                           choices=["0", "1"]),
    DbcAttributeDefinition(DATA_BITRATE_ATTRIBUTE, default_value=2_000_000, type_name="INT",
                           minimum=10_000, maximum=8_000_000))


@dataclass(frozen=True)
class TimeTriggeredBus:
    """What the DBC of a time-triggered robot is made of."""

    title: str
    boards: tuple[str, ...]  # the node name of joint 1, 2, ... N's board
    groups: tuple[tuple[int, ...], ...]  # joints of ACTUATION_1 / POSREF_1, ...
    period_ms: int
    bitrate: int
    tick_node: str = "TIME_TRIGGER"
    host_node: str = "HOST"
    data_bitrate: int | None = None  # CAN FD: every frame FD with bit rate switch


def _pow2_at_least(n: int, floor: int) -> int:
    """The smallest power of two >= n, and at least `floor`."""
    return max(floor, 1 << max(0, n - 1).bit_length())


def frame_ids(joints: int, groups: int) -> dict[str, int]:
    """Every message's CAN ID by the ID rule (module docstring); ValueError beyond its reach."""
    if not 1 <= joints <= JOINTS_MAX or not 1 <= groups <= GROUPS_MAX:
        raise ValueError(f"{joints} joints in {groups} groups: the ID rule covers 1..{JOINTS_MAX} "
                         f"joints in 1..{GROUPS_MAX} groups")
    a, m = _pow2_at_least(groups, 8), _pow2_at_least(joints, 16)
    ids = {"TICK": 0x010, "COMMAND": 0x020 + 2 * a}
    for k in range(1, groups + 1):
        ids[f"ACTUATION_{k}"], ids[f"POSREF_{k}"] = 0x020 + k - 1, 0x020 + a + k - 1
    for j in range(1, joints + 1):
        ids[meas_name(j, 2)], ids[meas_name(j, 6)] = 0x100 + j, 0x100 + m + j
        ids[f"STATUS_{j}"], ids[f"ANNOUNCE_{j}"] = 0x300 + j, 0x700 + j
    return ids


def dbc_signal(name: str, start: int, length: int, receivers: list[str], *, signed: bool = False,
            scale: float = 1, lo: float = 0, hi: float | None = None, unit: str | None = None,
            choices: tuple[str, ...] | None = None) -> Signal:
    """A little-endian signal; `hi` defaults to the raw range's top."""
    top = hi if hi is not None else (1 << length) - 1
    return Signal(name, start, length, is_signed=signed, minimum=lo, maximum=top, unit=unit,
                  receivers=receivers,
                  conversion=BaseConversion.factory(scale=scale, offset=0, choices=None if choices
                                                    is None else OrderedDict(enumerate(choices))))


def _current(name: str, start: int, receivers: list[str]) -> Signal:
    """A current in A, Q12 in 16 bits (+-8 A)."""
    return dbc_signal(name, start, 16, receivers, signed=True, scale=Q12, lo=-8.0, hi=8.0 - Q12,
                   unit="A")


def dbc_message(frame_id: int, name: str, signals: list[Signal], sender: str, comment: str,
             cycle_ms: int | None = None, send_type: str | None = None) -> Message:
    """A message; a cyclic one with its GenMsgCycleTime and GenMsgSendType."""
    attributes: OrderedDict[str, DbcAttribute] = OrderedDict()
    if send_type is not None:
        attributes["GenMsgSendType"] = DbcAttribute(SEND_TYPES.index(send_type), _SEND_TYPE)
    length = max(s.start + s.length for s in signals) // 8
    return Message(frame_id, name, length, signals, senders=[sender], cycle_time=cycle_ms,
                   comment=comment, dbc_specifics=DbcSpecifics(attributes=attributes))


def as_fd(message: Message) -> Message:
    """`message` as a CAN FD frame with bit rate switch, its length rounded up to an FD
    length (the signals where they were)."""
    message.is_fd = True
    message.length = fdb.dlc_to_length(fdb.length_to_dlc(message.length))
    if message.dbc is not None:  # dbc_message gives every message its specifics
        brs: DbcAttribute = DbcAttribute(1, _FD_DEFINITIONS[1])  # its choice "1"
        message.dbc.attributes[BRS_ATTRIBUTE] = brs
    return message


def joints_text(joints: tuple[int, ...]) -> str:
    """'joints 1-4', 'joints 5, 7', 'joint 3'."""
    if len(joints) == 1:
        return f"joint {joints[0]}"
    if list(joints) == list(range(joints[0], joints[-1] + 1)):
        return f"joints {joints[0]}-{joints[-1]}"
    return "joints " + ", ".join(map(str, joints))


def _host_messages(bus: TimeTriggeredBus, ids: dict[str, int]) -> list[Message]:
    """ACTUATION_k and POSREF_k of every group, and COMMAND."""
    out, host = [], bus.host_node
    for k, group in enumerate(bus.groups, start=1):
        board = [[bus.boards[j - 1]] for j in group]
        out.append(dbc_message(ids[f"ACTUATION_{k}"], f"ACTUATION_{k}", [
            _current(f"iw_{j}", 16 * i, board[i]) for i, j in enumerate(group)], host,
            f"Current references of {joints_text(group)} in A (Q12), applied at the next TICK.",
            bus.period_ms, "OnTick"))
        out.append(dbc_message(ids[f"POSREF_{k}"], f"POSREF_{k}", [
            dbc_signal(f"xw_{j}", 16 * i, 16, board[i], hi=1023, unit="LSB")
            for i, j in enumerate(group)], host,
            f"Local-P mode position references of {joints_text(group)} (pot LSB), used on "
            "reception.", None, "OnTick"))
    boards = list(bus.boards)
    out.append(dbc_message(ids["COMMAND"], "COMMAND", [
        dbc_signal("joint", 0, 8, boards, hi=len(boards)),
        dbc_signal("command", 8, 8, boards, hi=len(COMMAND_NAMES) - 1, choices=COMMAND_NAMES),
        dbc_signal("mode", 16, 8, boards, hi=len(MODE_NAMES) - 1, choices=MODE_NAMES)], host,
        "Per-joint command (joint 0 = all joints)."))
    return out


def _board_messages(bus: TimeTriggeredBus, ids: dict[str, int], j: int) -> list[Message]:
    """Joint j's board: MEAS_j, MEAS6_j, STATUS_j, ANNOUNCE_j, all heard by the host."""
    board, host, modes = bus.boards[j - 1], [bus.host_node], len(MODE_NAMES) - 1

    def position() -> Signal:
        return dbc_signal(f"position_{j}", 0, 16, host, hi=1023, unit="LSB")

    return [
        dbc_message(ids[f"MEAS_{j}"], f"MEAS_{j}", [position()], board,
                 f"Measurement of joint {j}: pot block mean latched at the TICK (MEAS_n, 2-byte "
                 "variant).", bus.period_ms, "OnTick"),
        dbc_message(ids[f"MEAS6_{j}"], f"MEAS6_{j}", [
            position(), dbc_signal(f"supply_{j}", 16, 16, host, scale=0.001, hi=65.535, unit="V"),
            _current(f"current_{j}", 32, host)], board,
            f"Extended measurement of joint {j} (6-byte variant): position, supply voltage, "
            "measured current.", bus.period_ms, "OnTick"),
        dbc_message(ids[f"STATUS_{j}"], f"STATUS_{j}", [
            dbc_signal(f"mode_{j}", 0, 8, host, hi=modes, choices=MODE_NAMES),
            dbc_signal(f"over_current_{j}", 8, 1, host),
            dbc_signal(f"over_temperature_{j}", 9, 1, host),
            dbc_signal(f"watchdog_{j}", 10, 1, host),
            dbc_signal(f"can_state_{j}", 11, 2, host, hi=len(CAN_STATE_NAMES) - 1,
                    choices=CAN_STATE_NAMES),
            dbc_signal(f"tec_{j}", 16, 8, host), dbc_signal(f"rec_{j}", 24, 8, host)], board,
            f"Board status and latched faults of joint {j}, every {STATUS_MS} ms and on change.",
            STATUS_MS, "Cyclic"),
        dbc_message(ids[f"ANNOUNCE_{j}"], f"ANNOUNCE_{j}", [
            dbc_signal(f"unique_id_{j}", 0, 32, host), dbc_signal(f"fw_version_{j}", 32, 16, host),
            dbc_signal(f"board_mode_{j}", 48, 8, host, hi=modes, choices=MODE_NAMES),
            dbc_signal(f"sensing_{j}", 56, 8, host, hi=1)], board,
            "Board announce at boot: unique ID burned into the bootloader, firmware version."),
    ]


def generate(bus: TimeTriggeredBus) -> Database:
    """The robot's DBC as a cantools database (ValueError: beyond the ID rule's reach)."""
    joints = len(bus.boards)
    ids = frame_ids(joints, len(bus.groups))
    tick = dbc_message(ids["TICK"], "TICK", [
        dbc_signal("seq", 0, 8, [bus.host_node, *bus.boards])], bus.tick_node,
        f"Bus clock: broadcast every {bus.period_ms} ms, seq counts mod 256 (a gap is a slip).",
        bus.period_ms, "Cyclic")
    messages = [tick, *_host_messages(bus, ids)]
    for j in range(1, joints + 1):
        messages += _board_messages(bus, ids, j)
    messages.sort(key=lambda m: m.frame_id)
    names = [bus.tick_node, bus.host_node, *dict.fromkeys(bus.boards)]
    comment = (f"servobus: {bus.title}. Time-triggered cycle every {bus.period_ms} ms: TICK, "
               f"then every joint's MEAS (or MEAS6), then {len(bus.groups)} ACTUATION frame"
               f"{'s' * (len(bus.groups) > 1)} applied at the next TICK.")
    return database(messages, names, comment, bus.bitrate, bus.data_bitrate)


def database(messages: list[Message], nodes: list[str], comment: str,
             bitrate: int, data_bitrate: int | None = None) -> Database:
    """A generated robot's database: its messages and nodes, the bus comment and bit rate, the
    attribute definitions servobus' DBCs use (BusType, Baudrate, GenMsgCycleTime,
    GenMsgSendType); with a data bit rate a CAN FD bus (BusType "CAN FD", BaudrateCANFD,
    VFrameFormat, CANFD_BRS), every message FD with bit rate switch."""
    definitions: OrderedDict[str, DbcAttributeDefinition] = OrderedDict(
        BusType=DbcAttributeDefinition("BusType", default_value="CAN", type_name="STRING"),
        Baudrate=DbcAttributeDefinition("Baudrate", default_value=1_000_000, type_name="INT",
                                        minimum=10_000, maximum=1_000_000),
        GenMsgCycleTime=DbcAttributeDefinition("GenMsgCycleTime", default_value=0, kind="BO_",
                                               type_name="INT", minimum=0, maximum=65535),
        GenMsgSendType=_SEND_TYPE)
    attributes = OrderedDict(BusType=DbcAttribute("CAN", definitions["BusType"]))
    if data_bitrate is not None:
        definitions.update((d.name, d) for d in _FD_DEFINITIONS)
        attributes["BusType"] = DbcAttribute(FD_BUS_TYPE, definitions["BusType"])
        attributes[DATA_BITRATE_ATTRIBUTE] = DbcAttribute(
            data_bitrate, definitions[DATA_BITRATE_ATTRIBUTE])
        messages = [as_fd(m) for m in messages]
    db = Database(messages, [Node(n) for n in nodes], [Bus("", comment, bitrate)],
                  version="servobus 1",
                  dbc_specifics=DbcSpecifics(attributes=attributes,
                                             attribute_definitions=definitions))
    db.refresh()
    return db
