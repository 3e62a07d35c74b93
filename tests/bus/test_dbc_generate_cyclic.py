"""The generated DBC of a cyclic robot: GuRoo's shape gives dbc/guroo.dbc message for message;
any shape keeps IDs unique, 11-bit and in priority order, each board's frames carrying its own
joints; beyond the ID rule is an error."""

from pathlib import Path

import cantools
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.dbc_generate_cyclic import CyclicBoard, CyclicBus, frame_ids, generate
from tests.bus.test_dbc_generate import message_key

GUROO_DBC = Path(__file__).resolve().parents[2] / "dbc" / "guroo.dbc"
# the ID blocks in priority order (the ID rule of bus.dbc_generate_cyclic)
ORDER = ("VEL_SP_", "SERVO_SP_", "ANNOUNCE_", "MBX2_", "FEEDBACK_", "SERVO_STATUS")
GUROO = CyclicBus("GuRoo", tuple(CyclicBoard(f"HP_{b}", b, (3 * b - 2, 3 * b - 1, 3 * b))
                                 for b in range(1, 6)),
                  CyclicBoard("SERVO_BOARD", 6, tuple(range(16, 24))), 2, 1_000_000)


def reloaded(bus: CyclicBus) -> cantools.database.can.Database:
    """The generated DBC written as text and parsed back (strict)."""
    return cantools.database.load_string(generate(bus).as_dbc_string(), "dbc", strict=True)


def test_guroos_shape_generates_the_shipped_dbc() -> None:
    shipped = cantools.database.load_file(str(GUROO_DBC))
    made = reloaded(GUROO)
    assert {m.name: message_key(m) for m in made.messages} == \
        {m.name: message_key(m) for m in shipped.messages}
    assert {m.name: m.comment for m in made.messages} == \
        {m.name: m.comment for m in shipped.messages}
    assert [n.name for n in made.nodes] == [n.name for n in shipped.nodes]
    assert made.dbc.attributes["Baudrate"].value == shipped.dbc.attributes["Baudrate"].value


def test_mailbox_2s_reply_carries_the_printed_pattern_low_byte_first() -> None:
    """MBX2_3: ID 0x033, after board 3's announce (0x023) and the set-points, before the
    feedback; the words 0x0123, 0x4567, 0x89AB, 0xCDEF as bytes 23 01 67 45 AB 89 EF CD."""
    db = reloaded(GUROO)
    mbx2 = db.get_message_by_name("MBX2_3")
    assert mbx2.frame_id == 0x033 and mbx2.cycle_time is None
    assert max(m.frame_id for m in db.messages if m.name.startswith(("VEL_SP_", "SERVO_SP_"))) \
        < 0x031 and min(m.frame_id for m in db.messages if m.name.startswith("FEEDBACK_")) > 0x035
    words = dict(zip((f"mbx2_3_{k}" for k in range(4)), (0x0123, 0x4567, 0x89AB, 0xCDEF),
                     strict=True))
    assert mbx2.encode(words) == bytes.fromhex("23 01 67 45 AB 89 EF CD")


def test_beyond_the_id_rule_is_an_error() -> None:
    one = (CyclicBoard("A", 1, (1,)),)
    for bus in (CyclicBus("t", (), None, 2, 1_000_000),
                CyclicBus("t", (CyclicBoard("A", 16, (1,)),), None, 2, 1_000_000),
                CyclicBus("t", one, CyclicBoard("S", 1, (2,)), 2, 1_000_000),
                CyclicBus("t", (CyclicBoard("A", 1, (1, 2, 3, 4)),), None, 2, 1_000_000),
                CyclicBus("t", one, CyclicBoard("S", 2, tuple(range(2, 11))), 2, 1_000_000)):
        with pytest.raises(ValueError, match=r"the ID rule covers|carries"):
            frame_ids(bus)


@st.composite
def shapes(draw: st.DrawFn) -> CyclicBus:
    """1..15 high-power boards of 1..3 joints and perhaps a servo board of 1..8, random IDs."""
    servo = draw(st.booleans())
    ids = draw(st.permutations(range(1, 16)))
    hp = draw(st.integers(1, 15 - servo))
    sizes = draw(st.lists(st.integers(1, 3), min_size=hp, max_size=hp))
    joint, boards = 1, []
    for b, n in zip(ids[:hp], sizes, strict=True):
        boards.append(CyclicBoard(f"HP_{b}", b, tuple(range(joint, joint + n))))
        joint += n
    shape = None
    if servo:
        shape = CyclicBoard("SERVO", ids[hp], tuple(range(joint, joint + draw(st.integers(1, 8)))))
    return CyclicBus("t", tuple(boards), shape, draw(st.sampled_from([1, 2, 5])), 1_000_000)


@settings(max_examples=40, deadline=None)
@given(shapes())
def test_any_shape_has_unique_ids_in_priority_order_and_boards_hear_their_joints(
        bus: CyclicBus) -> None:
    db = reloaded(bus)
    ids = {m.name: m.frame_id for m in db.messages}
    assert ids == frame_ids(bus) and len(set(ids.values())) == len(ids)
    assert max(ids.values()) < 0x7F0  # CAN 2.0A: the 7 top bits never all recessive
    block = {name: next(k for k, p in enumerate(ORDER) if name.startswith(p)) for name in ids}
    by_id = sorted(ids, key=ids.__getitem__)
    assert [block[n] for n in by_id] == sorted(block[n] for n in by_id)
    for board in bus.hp:
        b, n = board.board, len(board.joints)
        vel, fb = db.get_message_by_name(f"VEL_SP_{b}"), db.get_message_by_name(f"FEEDBACK_{b}")
        assert (vel.length, fb.length) == (2 * n + 2, 2 * n + 2)
        assert [s.name for s in vel.signals] == [*(f"w_{j}" for j in board.joints), f"seq_{b}"]
        assert all(s.receivers == [board.name] for s in vel.signals)
        assert [s.name for s in fb.signals] == [*(f"x_{j}" for j in board.joints), f"status_{b}"]
        assert ids[f"ANNOUNCE_{b}"] == 0x20 + b and fb.cycle_time == 2 * bus.period_ms
        announce = db.get_message_by_name(f"ANNOUNCE_{b}")  # id[0..3] = BOARD
        assert announce.length == 8 and [(s.name, s.start, s.length) for s in
                                         announce.signals] == [(f"board_{b}_{k}", 16 * k, 16)
                                                               for k in range(4)]
        assert announce.encode(dict.fromkeys((f"board_{b}_{k}" for k in range(4)), b)) == \
            bytes([b, 0]) * 4
        mbx2 = db.get_message_by_name(f"MBX2_{b}")  # answered on request only: no cycle
        assert (mbx2.frame_id, mbx2.length, mbx2.cycle_time, mbx2.senders) == \
            (0x30 + b, 8, None, [board.name])
        assert [(s.name, s.start, s.length, s.is_signed) for s in mbx2.signals] == \
            [(f"mbx2_{b}_{k}", 16 * k, 16, False) for k in range(4)]
    if bus.servo is not None:
        frames = [m for m in db.messages if m.name.startswith("SERVO_SP_")]
        assert [s.name for m in frames for s in m.signals] == [f"p_{j}" for j in bus.servo.joints]
        assert all(m.length == 2 * len(m.signals) for m in frames)
        assert db.get_message_by_name(f"ANNOUNCE_{bus.servo.board}").length == 1
