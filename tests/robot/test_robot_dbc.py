"""Descriptions' DBCs generated: SPEJBL's and GuRoo's are the shipped ones, the leg's and the
arm's committed files are fresh generations; time-triggered descriptions of any shape (1..32
joints, random frame groups, periods and measurement sizes) generate DBCs that pass their own
check (cyclic shapes: tests/robot/test_cyclic_shapes.py)."""

import tempfile
from pathlib import Path

import cantools
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.schema import default_dbc
from servobus.robot.robot_check import check
from servobus.robot.robot_dbc import dbc_text, generated
from servobus.robot.robot_file import load
from tests.bus.test_dbc_generate import message_key

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def description(joints: int, groups: list[list[int]] | None = None, period_ms: int = 4,
                meas_bytes: int = 2) -> str:
    """A time-triggered description of `joints` boards B<j>, its DBC robot.dbc beside it."""
    boards = "\n".join(f'    {{ kind = "board", name = "B{j}", id = {j}, joints = [{j}] }},'
                       for j in range(1, joints + 1))
    host = f", groups = {groups}" if groups else ""
    return (f'name = "r{joints}"\njoints = {joints}\nperiod = "{period_ms}ms"\n'
            f'meas_bytes = {meas_bytes}\nnodes = [\n    {{ kind = "time-trigger", name = "T" }},\n'
            f'{boards}\n    {{ kind = "host", name = "H"{host} }},\n]\n\n[bus]\n'
            'dbc = "robot.dbc"\n')


def generate_beside(folder: Path, text: str) -> dict:
    """Write the description, generate its DBC beside it, check both; the summary."""
    path = folder / "robot.toml"
    path.write_text(text)
    (folder / "robot.dbc").write_text(dbc_text(load(str(path))))
    return check(load(str(path)))


def test_spejbls_description_generates_the_shipped_dbc() -> None:
    made = cantools.database.load_string(generated(load("spejbl")).as_dbc_string(), "dbc")
    shipped = cantools.database.load_file(str(default_dbc()))
    assert {m.name: message_key(m) for m in made.messages} == \
        {m.name: message_key(m) for m in shipped.messages}


def test_the_committed_leg_dbc_is_a_fresh_generation() -> None:
    assert dbc_text(load("spejbl-leg")) == (ROBOTS / "spejbl-leg.dbc").read_bytes().decode()


def test_guroos_description_generates_the_shipped_dbc() -> None:
    made = cantools.database.load_string(dbc_text(load("guroo")), "dbc", strict=True)
    shipped = cantools.database.load_file(str(ROBOTS.parent / "dbc" / "guroo.dbc"))
    assert {m.name: message_key(m) for m in made.messages} == \
        {m.name: message_key(m) for m in shipped.messages}
    assert [m.comment for m in made.messages] == [m.comment for m in shipped.messages]


def test_the_committed_arm_dbc_is_a_fresh_generation() -> None:
    assert dbc_text(load("guroo-arm")) == (ROBOTS / "guroo-arm.dbc").read_bytes().decode()


@pytest.mark.parametrize("joints", [1, 3, 7, 16])
def test_descriptions_of_1_3_7_16_joints_generate(tmp_path: Path, joints: int) -> None:
    summary = generate_beside(tmp_path, description(joints))
    assert summary["joints"] == joints and len(summary["nodes"]["board"]) == joints
    assert summary["frames_per_period"] == 1 + joints + -(-joints // 4)
    db = cantools.database.load_file(str(tmp_path / "robot.dbc"))
    assert len(db.messages) == 2 + 2 * -(-joints // 4) + 4 * joints


@settings(max_examples=25, deadline=None)  # each: a DBC written, parsed, checked
@given(st.integers(1, 32).flatmap(lambda n: st.tuples(
    st.just(n), st.permutations(range(1, n + 1)), st.lists(st.integers(1, 4), min_size=n,
                                                           max_size=n),
    st.sampled_from([10, 20, 25, 50]), st.sampled_from([2, 6]))))
def test_any_shape_generates_a_dbc_its_check_accepts(shape) -> None:
    joints, order, sizes, period_ms, meas_bytes = shape
    groups, k = [], 0
    for size in sizes:
        if k < joints:
            groups.append(order[k:k + size])
            k += size
    with tempfile.TemporaryDirectory() as folder:
        summary = generate_beside(Path(folder), description(joints, groups, period_ms,
                                                            meas_bytes))
        db = cantools.database.load_file(str(Path(folder) / "robot.dbc"))
    assert summary["frames_per_period"] == 1 + joints + len(groups)
    ids = [m.frame_id for m in db.messages]
    assert len(set(ids)) == len(ids)
    sender = {"TICK": "T", "COMMAND": "H"}
    for m in db.messages:
        base, _, number = m.name.partition("_")
        expected = sender.get(m.name) or ("H" if base in ("ACTUATION", "POSREF") else f"B{number}")
        assert m.senders == [expected]


def test_the_committed_fd_dbc_is_a_fresh_generation() -> None:
    """SPEJBL on CAN FD: every message FD with BRS, one 24-byte ACTUATION_1 and POSREF_1."""
    assert dbc_text(load("spejbl-fd")) == (ROBOTS / "spejbl-fd.dbc").read_bytes().decode()
    db = generated(load("spejbl-fd"))
    assert all(m.is_fd for m in db.messages)
    assert [m.length for m in db.messages if m.name.startswith(("ACTUATION", "POSREF"))] == \
        [24, 24]


def test_fd_lengths_round_up(tmp_path: Path) -> None:
    """5 joints in one group: 10 bytes of references in a 12-byte FD frame."""
    text = description(5, [[1, 2, 3, 4, 5]]).replace('dbc = "robot.dbc"',
                                                     'dbc = "robot.dbc"\ndata_bitrate = 2000000')
    summary = generate_beside(tmp_path, text)
    assert summary["bit_timing"] == "1000/2000 kbit/s CAN FD"
    db = cantools.database.load_file(str(tmp_path / "robot.dbc"))
    act = db.get_message_by_name("ACTUATION_1")
    assert (act.is_fd, act.length, max(s.start + s.length for s in act.signals)) == (True, 12, 80)
