"""A description checked against its DBC: the shipped robots pass with their summaries, and
every mismatch between a description and its DBC is named."""

import re
from pathlib import Path

import cantools
import pytest

from servobus.robot.file_keys import RobotFileError
from servobus.robot.robot_check import check
from servobus.robot.robot_dbc import dbc_text
from servobus.robot.robot_file import load
from tests.robot.test_robot_file import BASE

# Davis 2007 worst-case frame bits of an 11-bit frame of n data bytes, worked by hand:
# 34 + 8n + 13 + floor((34 + 8n - 1) / 4)
WORST_BITS = {1: 65, 2: 75, 6: 115, 8: 135}


def tri(tmp_path: Path, text: str = BASE) -> Path:
    """The 3-joint robot of test_robot_file with its DBC generated beside it."""
    path = tmp_path / "tri.toml"
    path.write_text(text)
    (tmp_path / "tri.dbc").write_text(dbc_text(load(str(path))))
    return path


def edit_dbc(tmp_path: Path, change) -> None:
    """Rewrite tri.dbc after `change(db)`."""
    db = cantools.database.load_file(str(tmp_path / "tri.dbc"))
    change(db)
    db.refresh()
    (tmp_path / "tri.dbc").write_text(db.as_dbc_string())


def error_of(path: Path) -> str:
    with pytest.raises(RobotFileError) as caught:
        check(load(str(path)))
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


def test_shipped_robots_pass_with_their_summaries() -> None:
    spejbl = check(load("spejbl"))
    assert spejbl["nodes"]["board"] == [f"JOINT_{j}" for j in range(1, 13)]
    assert spejbl["frames_per_period"] == 1 + 12 + 3  # SPEC 1.2: tick, measurements, actuations
    per_period = WORST_BITS[1] + 12 * WORST_BITS[2] + 3 * WORST_BITS[8]  # bits, 1 us each
    assert spejbl["period_used_pct"] == pytest.approx(100 * per_period / 4000)
    status = 12 * (34 + 32 + 13 + (34 + 32 - 1) // 4)  # 4-byte STATUS every 100 ms
    assert spejbl["bus_load_predicted_pct"] == pytest.approx(100 * (per_period / 4000 +
                                                                   status / 100_000))
    guroo = check(load("guroo"))
    assert guroo["frames_per_period"] == 7 and guroo["period_s"] == 0.002
    assert guroo["nodes"] == {"central": ["CENTRAL"], "hp-board": [f"HP_{b}" for b in range(1, 6)],
                              "servo-board": ["SERVO_BOARD"]}
    assert check(load("spejbl-leg"))["frames_per_period"] == 1 + 6 + 2


def test_a_generated_robot_passes(tmp_path: Path) -> None:
    summary = check(load(str(tri(tmp_path))))
    bits = WORST_BITS[1] + 3 * WORST_BITS[2] + WORST_BITS[6]  # ACTUATION_1 carries 3 joints
    assert summary["period_used_pct"] == pytest.approx(100 * bits / 4000)


def test_a_missing_dbc_says_how_to_make_it(tmp_path: Path) -> None:
    path = tmp_path / "tri.toml"
    path.write_text(BASE)
    assert error_of(path) == (f"bus.dbc: {tmp_path / 'tri.dbc'}: no such file (a shipped name: "
                              "servobus.dbc, guroo.dbc; or generate it: servobus robot dbc "
                              f"{path} --out {tmp_path / 'tri.dbc'})")


def test_a_node_the_dbc_does_not_have(tmp_path: Path) -> None:
    path = tri(tmp_path)
    path.write_text(BASE.replace('name = "J3"', 'name = "J9"'))
    assert error_of(path) == "nodes[4] (J9).name: tri.dbc has no node J9 (its nodes: HOST, J1, " \
                             "J2, J3, TT)"


def test_a_message_a_node_sends_missing_from_the_dbc(tmp_path: Path) -> None:
    path = tri(tmp_path)
    edit_dbc(tmp_path, lambda db: db.messages.remove(db.get_message_by_name("STATUS_2")))
    assert error_of(path) == "nodes[3] (J2): a board sends STATUS_2, which tri.dbc does not " \
                             "define"


def test_a_message_with_another_sender(tmp_path: Path) -> None:
    path = tri(tmp_path)
    edit_dbc(tmp_path, lambda db: db.get_message_by_name("POSREF_1").senders.__setitem__(
        slice(None), ["TT"]))
    assert error_of(path) == "nodes[5] (HOST): a host sends POSREF_1, whose sender in tri.dbc " \
                             "is TT"


def test_the_6_byte_measurements_need_meas6(tmp_path: Path) -> None:
    path = tri(tmp_path, BASE.replace("joints = 3", "joints = 3\nmeas_bytes = 6"))
    edit_dbc(tmp_path, lambda db: db.messages.remove(db.get_message_by_name("MEAS6_1")))
    assert error_of(path) == "nodes[2] (J1): a board sends MEAS6_1, which tri.dbc does not " \
                             "define"


def test_groups_other_than_the_dbcs(tmp_path: Path) -> None:
    path = tri(tmp_path, BASE.replace('name = "HOST" }', 'name = "HOST", groups = [[1, 2], [3]] }'))
    path.write_text(BASE.replace('name = "HOST" }', 'name = "HOST", groups = [[1, 3], [2]] }'))
    assert error_of(path) == "nodes[5] (HOST).groups: group 1 carries joint 3, but no signal " \
                             "of ACTUATION_1 in tri.dbc has J3 as a receiver"


def test_two_messages_with_one_id(tmp_path: Path) -> None:
    path = tri(tmp_path)
    edit_dbc(tmp_path, lambda db: setattr(db.get_message_by_name("POSREF_1"), "frame_id", 0x20))
    assert re.fullmatch(r"bus\.dbc: \S*tri\.dbc:\d+: CAN ID 0x020 is given to ACTUATION_1 and "
                        r"POSREF_1", error_of(path))


def test_a_bit_rate_other_than_the_dbcs(tmp_path: Path) -> None:
    path = tri(tmp_path)
    path.write_text(BASE.replace('dbc = "tri.dbc"', 'dbc = "tri.dbc"\nbitrate = 500000'))
    assert error_of(path) == "bus.bitrate: 500000 bit/s, but tri.dbc says Baudrate 1000000"


def test_a_period_other_than_the_ticks(tmp_path: Path) -> None:
    path = tri(tmp_path)
    path.write_text(BASE.replace('"4ms"', '"5ms"'))
    assert error_of(path) == "period: 5 ms, but TICK's GenMsgCycleTime in tri.dbc is 4 ms"


def test_a_period_that_does_not_divide_a_cycle(tmp_path: Path) -> None:
    path = tri(tmp_path)  # a hand-edited DBC: STATUS_1 every 90 ms
    edit_dbc(tmp_path, lambda db: setattr(db.get_message_by_name("STATUS_1"), "cycle_time", 90))
    assert error_of(path) == "period: 4 ms does not divide STATUS_1's GenMsgCycleTime of 90 ms"


def test_a_period_that_cannot_hold_its_frames(tmp_path: Path) -> None:
    path = tri(tmp_path, BASE.replace('dbc = "tri.dbc"', 'dbc = "tri.dbc"\nbitrate = 10000'))
    bits = WORST_BITS[1] + 3 * WORST_BITS[2] + WORST_BITS[6]
    assert error_of(path) == (f"period: one period's 5 frames take {bits * 0.1:g} ms at 10 "
                              "kbit/s (worst-case stuffing), more than the period of 4 ms")


def test_a_cyclic_period_is_the_shortest_cycle(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    path.write_text(load("guroo").path.read_text().replace('"2ms"', '"4ms"'))
    assert error_of(path) == "period: 4 ms, but VEL_SP_1 in guroo.dbc is sent every 2 ms"


@pytest.mark.parametrize(("message", "node", "kind"), [
    ("TICK", "J2", "board"),  # a board deaf to the tick would never measure
    ("MEAS_3", "HOST", "host"),  # the host deaf to a joint would fault it every period
    ("COMMAND", "J1", "board")])
def test_a_node_deaf_to_what_its_kind_hears(tmp_path: Path, message: str, node: str,
                                           kind: str) -> None:
    """The period engine delivers a node what the DBC names it a receiver of: a DBC that drops
    one is refused, not run with engines that disagree."""
    path = tri(tmp_path)

    def deafen(db: cantools.database.can.Database) -> None:
        for sig in db.get_message_by_name(message).signals:
            sig.receivers[:] = [r for r in sig.receivers if r != node]
    edit_dbc(tmp_path, deafen)
    assert f"a {kind} hears {message}, but no signal of it in tri.dbc names {node} a " \
           "receiver" in error_of(path)


def test_the_data_bit_rate_is_the_dbcs(tmp_path: Path) -> None:
    """bus.data_bitrate must be the DBC's BaudrateCANFD, and absent where the DBC is classic."""
    fd = BASE.replace('dbc = "tri.dbc"', 'dbc = "tri.dbc"\ndata_bitrate = 5000000')
    path = tri(tmp_path, fd)
    path.write_text(fd.replace("5000000", "2000000"))
    assert error_of(path) == "bus.data_bitrate: 2000000 bit/s, but tri.dbc says BaudrateCANFD " \
                             "5000000"
    path.write_text(BASE)
    assert error_of(path) == "bus.data_bitrate: absent (classic CAN), but tri.dbc says " \
                             "BaudrateCANFD 5000000"
    path = tri(tmp_path)
    path.write_text(fd)
    assert error_of(path) == "bus.data_bitrate: 5000000 bit/s, but tri.dbc is a classic CAN " \
                             "bus (no BaudrateCANFD)"


def test_spejbl_fd_checks_on_its_bit_timing() -> None:
    """One period: TICK 41 us, 12 MEAS6 of 51 us, the 24-byte ACTUATION_1 88 us (FD bound at
    1/5 Mbit/s, tests/bus/test_schema_fd.py) = 741 us of 4 ms."""
    summary = check(load("spejbl-fd"))
    assert summary["bit_timing"] == "1000/5000 kbit/s CAN FD"
    assert summary["frames_per_period"] == 14
    assert summary["period_used_pct"] == pytest.approx(741 / 4000 * 100)


def test_a_cyclic_dbc_without_a_boards_mailbox_2_reply(tmp_path: Path) -> None:
    """A high-power board answers a remote frame of MBX2_b's ID with MBX2_b: its DBC needs it."""
    arm = load("guroo-arm")
    path = tmp_path / "arm.toml"
    path.write_text(arm.path.read_text())
    db = cantools.database.load_file(str(arm.dbc))
    db.messages.remove(db.get_message_by_name("MBX2_2"))
    db.refresh()
    (tmp_path / "guroo-arm.dbc").write_text(db.as_dbc_string())
    assert error_of(path) == ("nodes[3] (HP_2): a hp-board sends MBX2_2, which guroo-arm.dbc "
                              "does not define")
