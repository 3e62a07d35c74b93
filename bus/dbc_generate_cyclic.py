"""The DBC of a cyclic robot of any shape (GuRoo's kinds: a central, 1..15 high-power boards of
1..3 joints, at most one RC servo board of 1..8 servos), built as cantools objects with the
signals of dbc/guroo.dbc: scales, ranges, units, senders and receivers, cycle times, the bit
rate.

A board's frames carry its own joints' words only: VEL_SP_b is 2n + 2 bytes for a board of n
joints (n velocity words, then the sequence number), FEEDBACK_b likewise (n positions, then the
status word); SERVO_SP_k carries servos 4k-3..4k, the last frame only the servos there are.
The set-points go every period, the feedback and the servo status every two periods (GuRoo:
2 ms and 4 ms).  A high-power board's ANNOUNCE_b is the printed firmware's boot announce
(Appendix B of the GuRoo thesis: `id[0..3] = BOARD`, sent whole): four 16-bit words all equal
to the board ID, 8 bytes, each word low byte first like every word here (the listing's
`cansetup01`, which sets the CAN module's byte order, is not printed); the servo board's
announce, not in that listing, is the ID in one byte.  MBX2_b is the printed board's mailbox 2,
configured for remote requests: main rewrites its four 16-bit words (``mbx2_b_0..3``, low byte
first like the announce) after every loop and the CAN module answers a remote frame of its ID by
itself, so it has no cycle time (sent on request only); its ID is ours, since ``cansetup01``,
which sets it, is not printed.  FEEDBACK_b is the emulator's addition: the printed board sends no
periodic frame.

The ID rule (docs/robot-file.md), for H high-power boards, r = 0..H-1 the rank of a board's ID
among theirs, and DIP-switch IDs b = 1..15; exactly dbc/guroo.dbc's IDs for GuRoo's shape:

    VEL_SP_b      0x010 + r
    SERVO_SP_k    0x010 + H + k - 1         k = 1, 2     (H <= 15: at most 0x020)
    ANNOUNCE_b    0x020 + b                 the firmware's own: (b | 0x20) in its MSGIDH
    MBX2_b        0x030 + b                 ours, from the board ID as the announce's is
    FEEDBACK_b    0x040 + r
    SERVO_STATUS  0x040 + H

so every ID is unique and priorities keep GuRoo's order: set-points < announces < mailbox-2
replies < feedback < servo status (a lower ID wins arbitration: nothing answered on request
delays a set-point).
"""

from dataclasses import dataclass

from cantools.database.can import Database, Message, Signal

from servobus.bus.dbc_generate import database, dbc_message, dbc_signal, joints_text
from servobus.firmware.guroo_memory import BOARD_IDS
from servobus.firmware.guroo_memory import MOTORS as HP_JOINTS
from servobus.firmware.servo_board import SERVOS, WORDS_PER_FRAME, servo_frames

VEL_LSB, FB_LSB, SERVO_LSB = 16, 8, 0.001  # cnt/s, cnt, rad per LSB
ANNOUNCE_COMMENT = ("Boot announce of board {b}: 11-bit ID BOARD | 0x20 (the firmware writes "
                    "(BOARD | 0x20) << 2 into the mailbox's MSGIDH register), payload {payload}.")
HP_ANNOUNCE_PAYLOAD = ("the printed firmware's id[0..3]: four 16-bit words, each the DIP-switch "
                       "ID, low byte first")
ANNOUNCE_WORDS = 4  # id[0..3]
MBX2_WORDS = 4  # CANMBX2A..D
MBX2_COMMENT = ("Mailbox 2 of board {b}, configured for remote requests: the CAN module answers "
                "a remote frame of this ID with the four 16-bit words main last wrote there "
                "(data[0..3], as compiled 0x0123, 0x4567, 0x89AB, 0xCDEF), low byte first; sent "
                "on request only. The ID is ours (cansetup01, which sets it, is not printed).")
FEEDBACK_ADDED = ("An addition of the emulator, not in the printed firmware (whose board answers "
                  "remote frames from its mailbox 2, MBX2_b, instead).")


@dataclass(frozen=True)
class CyclicBoard:
    """A board on the bus: its node name (BU_), DIP-switch ID and joints (motor or servo
    order)."""

    name: str
    board: int
    joints: tuple[int, ...]


@dataclass(frozen=True)
class CyclicBus:
    """What the DBC of a cyclic robot is made of."""

    title: str
    hp: tuple[CyclicBoard, ...]
    servo: CyclicBoard | None
    period_ms: int
    bitrate: int
    central: str = "CENTRAL"
    data_bitrate: int | None = None  # CAN FD: every frame FD with bit rate switch


def _ranked(bus: CyclicBus) -> list[CyclicBoard]:
    """The high-power boards by ID (their rank r of the ID rule)."""
    return sorted(bus.hp, key=lambda b: b.board)


def frame_ids(bus: CyclicBus) -> dict[str, int]:
    """Every message's CAN ID by the ID rule (module docstring); ValueError beyond its reach."""
    lo, hi = BOARD_IDS
    boards = [*bus.hp, *([bus.servo] if bus.servo else [])]
    if not bus.hp or any(not lo <= b.board <= hi for b in boards) or \
            len({b.board for b in boards}) != len(boards):
        raise ValueError(f"boards {[b.board for b in boards]}: the ID rule covers one or more "
                         f"high-power boards and a servo board of distinct IDs {lo}..{hi}")
    if any(not 1 <= len(b.joints) <= HP_JOINTS for b in bus.hp) or (
            bus.servo is not None and not 1 <= len(bus.servo.joints) <= SERVOS):
        raise ValueError(f"a high-power board carries 1..{HP_JOINTS} joints, a servo board "
                         f"1..{SERVOS}")
    h = len(bus.hp)
    ids: dict[str, int] = {}
    for r, board in enumerate(_ranked(bus)):
        ids[f"VEL_SP_{board.board}"], ids[f"FEEDBACK_{board.board}"] = 0x010 + r, 0x040 + r
        ids[f"ANNOUNCE_{board.board}"] = 0x020 + board.board
        ids[f"MBX2_{board.board}"] = 0x030 + board.board
    if bus.servo is not None:
        for k in range(1, servo_frames(len(bus.servo.joints)) + 1):
            ids[f"SERVO_SP_{k}"] = 0x010 + h + k - 1
        ids[f"ANNOUNCE_{bus.servo.board}"] = 0x020 + bus.servo.board
        ids["SERVO_STATUS"] = 0x040 + h
    return ids


def _word(name: str, start: int, receivers: list[str], scale: float, unit: str) -> Signal:
    """A signed 16-bit word of `scale` per LSB."""
    return dbc_signal(name, start, 16, receivers, signed=True, scale=scale, lo=-32768 * scale,
                   hi=32767 * scale, unit=unit)


def _hp_messages(bus: CyclicBus, ids: dict[str, int], board: CyclicBoard) -> list[Message]:
    """VEL_SP_b, ANNOUNCE_b, MBX2_b and FEEDBACK_b of high-power board b."""
    b, n, me, central = board.board, len(board.joints), [board.name], [bus.central]
    joints, feedback_ms = joints_text(board.joints), 2 * bus.period_ms
    return [
        dbc_message(ids[f"VEL_SP_{b}"], f"VEL_SP_{b}", [
            *(_word(f"w_{j}", 16 * m, me, VEL_LSB, "cnt/s") for m, j in enumerate(board.joints)),
            dbc_signal(f"seq_{b}", 16 * n, 16, me)], bus.central,
            f"Velocity set-points of {joints} (motor encoder counts per second, {VEL_LSB} cnt/s "
            f"per LSB) and the broadcast's 16-bit sequence number; every {bus.period_ms} ms.",
            bus.period_ms, "Cyclic"),
        dbc_message(ids[f"ANNOUNCE_{b}"], f"ANNOUNCE_{b}", [
            dbc_signal(f"board_{b}_{k}", 16 * k, 16, central, hi=BOARD_IDS[1])
            for k in range(ANNOUNCE_WORDS)], board.name,
            ANNOUNCE_COMMENT.format(b=b, payload=HP_ANNOUNCE_PAYLOAD)),
        dbc_message(ids[f"MBX2_{b}"], f"MBX2_{b}", [
            dbc_signal(f"mbx2_{b}_{k}", 16 * k, 16, central) for k in range(MBX2_WORDS)],
            board.name, MBX2_COMMENT.format(b=b)),
        dbc_message(ids[f"FEEDBACK_{b}"], f"FEEDBACK_{b}", [
            *(_word(f"x_{j}", 16 * m, central, FB_LSB, "cnt")
              for m, j in enumerate(board.joints)),
            dbc_signal(f"status_{b}", 16 * n, 16, central)], board.name,
            f"Joint positions of {joints} (motor encoder counts, {FB_LSB} cnt per LSB) and the "
            f"board's status word; every {feedback_ms} ms. {FEEDBACK_ADDED}", feedback_ms,
            "Cyclic"),
    ]


def _servo_messages(bus: CyclicBus, ids: dict[str, int], servo: CyclicBoard) -> list[Message]:
    """SERVO_SP_k, ANNOUNCE_b and SERVO_STATUS of the servo board."""
    me, central, status_ms = [servo.name], [bus.central], 2 * bus.period_ms
    out = []
    for k in range(1, servo_frames(len(servo.joints)) + 1):
        joints = servo.joints[WORDS_PER_FRAME * (k - 1):WORDS_PER_FRAME * k]
        out.append(dbc_message(ids[f"SERVO_SP_{k}"], f"SERVO_SP_{k}", [
            _word(f"p_{j}", 16 * m, me, SERVO_LSB, "rad") for m, j in enumerate(joints)],
            bus.central, f"Position set-points of RC servo {joints_text(joints)} (rad, 1 mrad "
                         f"per LSB); every {bus.period_ms} ms.", bus.period_ms, "Cyclic"))
    return [*out,
            dbc_message(ids[f"ANNOUNCE_{servo.board}"], f"ANNOUNCE_{servo.board}", [
                dbc_signal(f"board_{servo.board}", 0, 8, central, hi=BOARD_IDS[1])], servo.name,
                ANNOUNCE_COMMENT.format(b=servo.board, payload="the DIP-switch ID")),
            dbc_message(ids["SERVO_STATUS"], "SERVO_STATUS", [
                dbc_signal("updates", 0, 8, central), dbc_signal("servo_status", 8, 8, central)],
                servo.name, "RC servo board: position updates received mod 256 and status "
                            f"flags; every {status_ms} ms.", status_ms, "Cyclic")]


def generate(bus: CyclicBus) -> Database:
    """The robot's DBC as a cantools database (ValueError: beyond the ID rule's reach)."""
    ids = frame_ids(bus)
    messages = [m for board in bus.hp for m in _hp_messages(bus, ids, board)]
    if bus.servo is not None:
        messages += _servo_messages(bus, ids, bus.servo)
    messages.sort(key=lambda m: m.frame_id)
    names = [bus.central, *(b.name for b in _ranked(bus)),
             *([bus.servo.name] if bus.servo else [])]
    dc = sum(len(b.joints) for b in bus.hp)
    servos = f" and an RC servo board of {len(bus.servo.joints)}" if bus.servo else ""
    comment = (f"servobus: {bus.title}. {bus.central} broadcasts set-points every "
               f"{bus.period_ms} ms to {len(bus.hp)} high-power board"
               f"{'s' * (len(bus.hp) > 1)} of {dc} DC joints{servos}; feedback every "
               f"{2 * bus.period_ms} ms.")
    return database(messages, names, comment, bus.bitrate, bus.data_bitrate)
