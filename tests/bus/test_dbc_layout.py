"""The shipped DBC: one SG_ line per signal (line-based tools), the same parse as before the
rewrite, and one mode enum shared by COMMAND, STATUS and ANNOUNCE, firmware and host."""

import re
import subprocess
from pathlib import Path

import cantools
import pytest

from servobus.bus.schema import MODES, Schema, SchemaError, default_dbc
from servobus.firmware import memory as m
from servobus.robot.assembly import Robot, RobotConfig

ROOT = Path(__file__).resolve().parents[2]
BEFORE = "2603742"  # the DBC with signals on the BO_ lines and two mode encodings
MODE_SIGNALS = re.compile(r"(board_)?mode(_\d+)?")


def _old_db() -> cantools.database.can.Database:
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:dbc/servobus.dbc"],
                          capture_output=True, text=True)
    if text.returncode:
        pytest.skip("no git history of dbc/servobus.dbc")
    return cantools.database.load_string(text.stdout, strict=True)


def _signal(s) -> tuple:
    return (s.name, s.start, s.length, s.byte_order, s.is_signed, s.scale, s.offset, s.minimum,
            s.maximum, s.unit, tuple(s.receivers), s.comment)


def _message(msg) -> tuple:
    return (msg.frame_id, msg.name, msg.length, tuple(msg.senders), msg.cycle_time, msg.comment,
            msg.send_type, [_signal(s) for s in msg.signals])


def test_every_signal_is_on_its_own_sg_line_as_line_based_parsers_expect() -> None:
    """A SavvyCAN-style reader: a BO_ line opens a message, each ' SG_ ' line adds a signal."""
    messages: dict[str, list[str]] = {}
    current = None
    for line in default_dbc().read_text().splitlines():
        if line.startswith("BO_ "):
            head = re.fullmatch(r"BO_ (\d+) (\w+): (\d+) (\w+)", line)
            assert head, f"BO_ line with more than the message: {line[:60]}"
            current = messages.setdefault(head.group(2), [])
        elif line.startswith(" SG_ "):
            assert current is not None
            current.append(line.split()[1])
        elif not line.strip():
            current = None
    db = Schema().db
    assert len(messages) == len(db.messages) == 56
    assert messages == {msg.name: [s.name for s in msg.signals] for msg in db.messages}


def test_rewritten_dbc_parses_exactly_as_before_except_the_mode_names() -> None:
    old, new = _old_db(), Schema().db
    assert [_message(msg) for msg in old.messages] == [_message(msg) for msg in new.messages]
    assert old.dbc.attributes.keys() == new.dbc.attributes.keys()
    for before, after in zip(old.messages, new.messages, strict=True):
        for s_old, s_new in zip(before.signals, after.signals, strict=True):
            if not MODE_SIGNALS.fullmatch(s_new.name):
                assert s_old.choices == s_new.choices, s_new.name


def test_every_mode_signal_names_the_firmware_modes_with_one_layout() -> None:
    expected = {m.MODE_FLOAT: "float", m.MODE_CURRENT: "cascade", m.MODE_LOCAL_P: "local_p",
                m.MODE_DUTY: "duty"}
    assert {name: value for value, name in expected.items()} == MODES
    mode_signals = [s for msg in Schema().db.messages for s in msg.signals
                    if MODE_SIGNALS.fullmatch(s.name)]
    assert len(mode_signals) == 1 + 12 + 12  # COMMAND, STATUS_j, ANNOUNCE_j
    for s in mode_signals:
        assert {int(k): str(v) for k, v in s.choices.items()} == expected, s.name
        assert (s.length, s.is_signed, s.scale, s.offset, s.minimum, s.maximum) == \
            (8, False, 1, 0, 0, 3), s.name


def test_a_dbc_whose_mode_names_disagree_with_the_firmware_is_refused(tmp_path: Path) -> None:
    text = default_dbc().read_text().replace('VAL_ 48 mode 0 "float" 1 "cascade"',
                                             'VAL_ 48 mode 0 "cascade" 1 "float"')
    bad = tmp_path / "swapped.dbc"
    bad.write_text(text)
    with pytest.raises(SchemaError, match=r"swapped\.dbc: COMMAND\.mode names modes"):
        Schema(bad)


@pytest.mark.parametrize(("old", "new", "says"), [
    ('0 "release" 1 "engage"', '0 "engage" 1 "release"', "COMMAND.command names commands"),
    ('VAL_ 769 can_state_1 0 "error_active" 1 "error_passive"',
     'VAL_ 769 can_state_1 0 "error_passive" 1 "error_active"', "STATUS_1.can_state_1 names"),
])
def test_a_dbc_whose_other_value_tables_disagree_with_the_code_is_refused(
        tmp_path: Path, old: str, new: str, says: str) -> None:
    """The COMMAND verbs and the CAN error states are checked like the modes: the board and
    the host act on these numbers."""
    text = default_dbc().read_text()
    assert old in text
    bad = tmp_path / "swapped.dbc"
    bad.write_text(text.replace(old, new))
    with pytest.raises(SchemaError, match=re.escape(says)):
        Schema(bad)


def test_set_mode_round_trips_through_board_firmware_and_host_decoding() -> None:
    """COMMAND set_mode duty to joint 3 -> the board's firmware mode cell -> STATUS_3 -> host;
    the wire value is the firmware's MODE_DUTY in both frames."""
    robot = Robot(RobotConfig(engine="reference"))  # taps the medium
    wire: dict[str, int] = {}
    schema = robot.schema

    def tap(record) -> None:
        try:
            name = schema.check(record.msg)
        except SchemaError:
            return
        if name == "COMMAND":
            wire["command"] = record.msg.data[2]
        elif name == "STATUS_3" and record.start_ns > 60_000_000:
            wire.setdefault("status", record.msg.data[0])

    robot.medium.taps.append(tap)
    assert robot.host.board_modes == ["unknown"] * 12
    robot.env.schedule(50_000_000, lambda: robot.host.command(3, "set_mode", "duty"))
    robot.run(0.25)
    assert wire == {"command": m.MODE_DUTY, "status": m.MODE_DUTY}
    assert int(robot.boards[2].rig.ram[m.MODE]) == m.MODE_DUTY
    assert robot.host.board_modes == ["cascade"] * 2 + ["duty"] + ["cascade"] * 9
    with pytest.raises(ValueError, match="unknown board mode 'voltage'"):
        robot.host.command(3, "set_mode", "voltage")


def test_announce_carries_the_board_mode_at_boot() -> None:
    robot = Robot(RobotConfig(mode="local-p"))
    robot.run(0.01)  # before the first STATUS: only ANNOUNCE has told the host
    assert robot.host.board_modes == ["local_p"] * 12


def test_garbage_dbc_is_one_clean_line_without_escape_sequences(capsys, tmp_path) -> None:
    from servobus.tools.cli import main

    bad = tmp_path / "garbage.dbc"
    bad.write_bytes(b'BO_ 1 X: 1 A\n SG_ s : 0|8@1+ (1,0) [0|1] "" B\n\x1b[31mred\xff' + bytes(300))
    assert main(["busload", "--dbc", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {bad}: cannot load DBC: invalid syntax at line 3, column 1: " \
                  "'\\x1b[31mred\\xff\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00...'\n"
