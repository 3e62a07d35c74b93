"""The generated DBC of a time-triggered robot: SPEJBL's is dbc/servobus.dbc message for message;
any joint count keeps IDs unique and in priority order, and loads with cantools."""

from pathlib import Path
from typing import Any

import cantools
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.dbc_generate import TimeTriggeredBus, frame_ids, generate

SERVOBUS_DBC = Path(__file__).resolve().parents[2] / "dbc" / "servobus.dbc"
# the ID blocks in priority order (the ID rule of bus.dbc_generate)
ORDER = ("TICK", "ACTUATION_", "POSREF_", "COMMAND", "MEAS_", "MEAS6_", "STATUS_", "ANNOUNCE_")


def spejbl_shape(joints: int, groups: tuple[tuple[int, ...], ...] | None = None,
                 period_ms: int = 4, bitrate: int = 1_000_000) -> TimeTriggeredBus:
    """A robot of `joints` boards JOINT_j; by default consecutive fours share a frame."""
    fours = tuple(tuple(range(j, min(j + 4, joints + 1))) for j in range(1, joints + 1, 4))
    return TimeTriggeredBus("test robot", tuple(f"JOINT_{j}" for j in range(1, joints + 1)),
                            groups or fours, period_ms, bitrate)


def reloaded(bus: TimeTriggeredBus) -> cantools.database.can.Database:
    """The generated DBC written as text and parsed back (strict)."""
    return cantools.database.load_string(generate(bus).as_dbc_string(), "dbc", strict=True)


def signal_key(s: Any) -> tuple:
    choices = None if s.choices is None else {int(k): str(v) for k, v in s.choices.items()}
    return (s.name, s.start, s.length, s.byte_order, s.is_signed, s.scale, s.offset, s.minimum,
            s.maximum, s.unit or "", sorted(s.receivers), choices)


def message_key(m: Any) -> tuple:
    return (m.frame_id, m.length, sorted(m.senders), sorted(m.receivers), m.cycle_time,
            m.send_type, [signal_key(s) for s in m.signals])


def test_spejbl_generated_is_the_shipped_dbc() -> None:
    shipped = cantools.database.load_file(str(SERVOBUS_DBC))
    made = reloaded(spejbl_shape(12))
    assert {m.name: message_key(m) for m in made.messages} == \
        {m.name: message_key(m) for m in shipped.messages}
    assert sorted(n.name for n in made.nodes) == sorted(n.name for n in shipped.nodes)
    assert made.dbc.attributes["Baudrate"].value == shipped.dbc.attributes["Baudrate"].value


def test_the_id_rule_keeps_todays_ids_up_to_16_joints() -> None:
    ids = frame_ids(16, 4)
    assert (ids["TICK"], ids["ACTUATION_1"], ids["ACTUATION_4"], ids["POSREF_1"],
            ids["POSREF_4"], ids["COMMAND"]) == (0x010, 0x020, 0x023, 0x028, 0x02B, 0x030)
    assert (ids["MEAS_1"], ids["MEAS_16"], ids["MEAS6_1"], ids["MEAS6_16"]) == \
        (0x101, 0x110, 0x111, 0x120)
    assert (ids["STATUS_16"], ids["ANNOUNCE_16"]) == (0x310, 0x710)


def test_the_id_rule_widens_its_blocks_beyond_16_joints_and_8_groups() -> None:
    ids = frame_ids(17, 9)  # MEAS_17 would have been MEAS6_1's 0x111
    assert (ids["MEAS_17"], ids["MEAS6_1"], ids["MEAS6_17"]) == (0x111, 0x121, 0x131)
    assert (ids["ACTUATION_9"], ids["POSREF_1"], ids["COMMAND"]) == (0x028, 0x030, 0x040)


def test_beyond_the_id_rule_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"1\.\.128 joints in 1\.\.64 groups"):
        frame_ids(129, 33)
    with pytest.raises(ValueError, match=r"1\.\.128 joints in 1\.\.64 groups"):
        frame_ids(65, 65)


@given(st.integers(1, 128).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(-(-n // 4), min(n, 64)))))
def test_ids_are_unique_11_bit_and_in_priority_order(shape: tuple[int, int]) -> None:
    joints, groups = shape
    ids = frame_ids(joints, groups)
    assert len(set(ids.values())) == len(ids)
    assert max(ids.values()) < 0x7F0  # CAN 2.0A: the 7 top bits never all recessive
    block = {name: next(k for k, p in enumerate(ORDER) if name == p or
                        (p.endswith("_") and name.startswith(p))) for name in ids}
    by_id = sorted(ids, key=ids.__getitem__)
    assert [block[n] for n in by_id] == sorted(block[n] for n in by_id)


@settings(max_examples=25, deadline=None)  # a 32-joint DBC written and parsed: ~0.2 s
@given(st.integers(1, 32).flatmap(lambda n: st.tuples(st.just(n), st.permutations(
    range(1, n + 1)), st.lists(st.integers(1, 4), min_size=n, max_size=n))))
def test_any_shape_loads_and_each_board_hears_its_own_joints(
        shape: tuple[int, list[int], list[int]]) -> None:
    joints, order, sizes = shape
    groups, k = [], 0
    for size in sizes:  # joints in a random order cut into frames of 1..4
        if k < joints:
            groups.append(tuple(order[k:k + size]))
            k += size
    db = reloaded(spejbl_shape(joints, tuple(groups)))
    assert len(db.messages) == 1 + 2 * len(groups) + 1 + 4 * joints
    for k, group in enumerate(groups, start=1):
        act = db.get_message_by_name(f"ACTUATION_{k}")
        assert act.length == 2 * len(group) and act.senders == ["HOST"]
        assert [(s.name, s.receivers) for s in act.signals] == \
            [(f"iw_{j}", [f"JOINT_{j}"]) for j in group]
    for j in range(1, joints + 1):
        for name in (f"MEAS_{j}", f"MEAS6_{j}", f"STATUS_{j}", f"ANNOUNCE_{j}"):
            assert db.get_message_by_name(name).senders == [f"JOINT_{j}"]
    assert db.get_message_by_name("COMMAND").get_signal_by_name("joint").maximum == joints
