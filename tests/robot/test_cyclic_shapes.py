"""Cyclic robots of any shape, described in a file with a generated DBC, run end to end on the
compiled engine: 1 board of 1 joint and no servo board, 4 boards and 8 servos, IDs and joints
out of order, all 15 boards, the shipped arm; any shape's generated DBC passes its check; the
compiled engine, the period engine and the reference path give the same log frame by frame; the
central supervises, and reports, only the boards the robot has."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.faults import FaultScriptError
from servobus.bus.log_reader import read_log
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.file_keys import RobotFileError
from servobus.robot.robot_check import check
from servobus.robot.robot_dbc import dbc_text
from servobus.robot.robot_file import RobotFile, load

Shape = tuple[list[tuple[int, list[int]]], tuple[int, list[int]] | None]
SHAPES: dict[str, Shape] = {
    "one-joint": ([(1, [1])], None),
    "four-and-eight": ([(1, [1, 2, 3]), (2, [4, 5]), (3, [6]), (4, [7, 8, 9])],
                       (5, list(range(10, 18)))),
    "out-of-order": ([(9, [5, 2]), (3, [1])], (4, [7, 3, 4, 6, 8])),
    "fifteen-boards": ([(b, [3 * b - 2, 3 * b - 1, 3 * b]) for b in range(1, 15)],
                       (15, list(range(43, 51)))),
}
PERIOD_MS = {"fifteen-boards": 5}  # 16 set-point frames take more than 2 ms at worst


def describe(folder: Path, shape: Shape, name: str = "shape", period_ms: int = 2) -> RobotFile:
    """The description of `shape` (board ID and joints per hp-board; the servo board's) in
    `folder`, its DBC generated beside it; loaded."""
    boards, servo = shape
    joints = sum(len(j) for _, j in boards) + (len(servo[1]) if servo else 0)
    lines = [f'name = "{name}"', f"joints = {joints}", f'period = "{period_ms}ms"', "nodes = [",
             '    { kind = "central", name = "CENTRAL" },']
    lines += [f'    {{ kind = "hp-board", name = "HP_{b}", id = {b}, joints = {j} }},'
              for b, j in boards]
    if servo:
        lines.append(f'    {{ kind = "servo-board", name = "SERVOS", id = {servo[0]}, '
                     f"joints = {servo[1]} }},")
    lines += ["]", "", "[bus]", f'dbc = "{name}.dbc"', ""]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines))
    (folder / f"{name}.dbc").write_text(dbc_text(load(str(path))))
    return load(str(path))


def run(robot: RobotFile, seconds: float, log: Path | None = None, **config) -> tuple[dict, list]:
    """The robot's report after `seconds` and its log's frames (time ns, ID, data)."""
    described = DescribedRobot(robot, DescribedConfig(log_path=str(log) if log else None,
                                                      **config))
    described.run(seconds)
    frames = [] if log is None else [(round(m.timestamp * 1e9), m.arbitration_id,
                                      bytes(m.data)) for m in read_log(log)]
    return described.report(1.0), frames


@pytest.mark.parametrize("name", [*SHAPES, "guroo-arm"])
def test_a_described_shape_runs_clean_on_the_compiled_engine(tmp_path: Path, name: str) -> None:
    period_ms = PERIOD_MS.get(name, 2)
    robot = load(name) if name == "guroo-arm" else describe(tmp_path, SHAPES[name],
                                                            period_ms=period_ms)
    report, _ = run(robot, 1.0)
    assert report["engine"] == "compiled" and "engine_fallback" not in report
    assert report["rx_faults"] == report["tx_faults"] == report["error_frames"] == 0
    central = report["nodes"]["CENTRAL"]
    boards = [n for n in robot.nodes if n.joints]
    assert central["broadcasts"] == 1 + 1000 // period_ms
    assert central["boards_announced"] == sorted(n.board for n in boards)
    assert central["servo_faults"] == {n.name: 0 for n in boards if n.kind == "hp-board"} | \
        {n.name: 0 for n in boards if n.kind == "servo-board"}
    assert central["board_id_mismatches"] == 0
    dc = [j for n in boards if n.kind == "hp-board" for j in n.joints]
    assert len(central["tracking"]["max_deg"]) == len(dc)
    assert max(central["tracking"]["max_deg"]) < 1.0  # the joints follow the walk's moves
    for node in boards:
        if node.kind == "servo-board":
            servo = report["nodes"][node.name]
            assert len(servo["positions_rad"]) == len(node.joints) and servo["frames"] > 0


@settings(max_examples=4, deadline=None)  # each: three runs (and perhaps a compile)
@given(st.integers(1, 3).flatmap(lambda hp: st.tuples(
    st.permutations(range(1, 16)), st.lists(st.integers(1, 3), min_size=hp, max_size=hp),
    st.integers(0, 8), st.integers(0, 2**16))))
def test_compiled_equals_reference_frame_by_frame(tmp_path_factory, drawn) -> None:
    ids, sizes, servos, seed = drawn
    tmp = tmp_path_factory.mktemp("eq")
    joint, boards = 1, []
    for b, n in zip(ids[:len(sizes)], sizes, strict=True):
        boards.append((b, list(range(joint, joint + n))))
        joint += n
    servo = (ids[len(sizes)], list(range(joint, joint + servos))) if servos else None
    robot = describe(tmp, (boards, servo))
    compiled, frames_c = run(robot, 0.3, tmp / "c.log", seed=seed, engine="compiled")
    period, frames_p = run(robot, 0.3, tmp / "p.log", seed=seed, engine="period")
    reference, frames_r = run(robot, 0.3, tmp / "r.log", seed=seed, engine="reference")
    assert [r["engine"] for r in (compiled, period, reference)] == \
        ["compiled", "period", "reference"]
    assert frames_c == frames_p == frames_r and len(frames_c) > 150
    assert compiled["nodes"] == period["nodes"] == reference["nodes"]


def test_each_board_runs_the_files_loop_unless_the_run_overrides_it() -> None:
    arm = load("guroo-arm")
    report, _ = run(arm, 0.01)
    assert [report["nodes"][n]["loop"] for n in ("HP_1", "HP_2")] == ["2002", "2khz"]
    report, _ = run(arm, 0.01, loop="2khz")
    assert [report["nodes"][n]["loop"] for n in ("HP_1", "HP_2")] == ["2khz", "2khz"]


@settings(max_examples=25, deadline=None)  # each: a DBC written, parsed, checked
@given(st.booleans().flatmap(lambda servo: st.tuples(
    st.just(servo), st.permutations(range(1, 16)), st.integers(1, 15 - servo).flatmap(
        lambda hp: st.lists(st.integers(1, 3), min_size=hp, max_size=hp)),
    st.integers(1, 8))))
def test_any_cyclic_shape_generates_a_dbc_its_check_accepts(tmp_path_factory, drawn) -> None:
    servo, ids, sizes, servos = drawn
    joint, boards = 1, []
    for b, n in zip(ids[:len(sizes)], sizes, strict=True):
        boards.append((b, list(range(joint, joint + n))))
        joint += n
    period_ms = 2 if len(sizes) + servo * 2 <= 12 else 5
    robot = describe(tmp_path_factory.mktemp("dbc"), (boards, (
        ids[len(sizes)], list(range(joint, joint + servos))) if servo else None),
        period_ms=period_ms)
    summary = check(robot)
    assert summary["schedule"] == "cyclic" and summary["period_s"] == period_ms / 1e3
    assert summary["frames_per_period"] == len(sizes) + (-(-servos // 4) if servo else 0)


def test_the_central_supervises_only_the_boards_it_has(tmp_path: Path) -> None:
    robot = describe(tmp_path, SHAPES["out-of-order"])
    report, _ = run(robot, 1.0, faults=["node 9 silent at 0.5s for 100ms"])
    central = report["nodes"]["CENTRAL"]
    assert central["servo_faults"] == {"HP_9": 1, "HP_3": 0, "SERVOS": 0}
    assert central["trips_seen"] == central["current_limit_frames"] == {"HP_9": 0, "HP_3": 0}
    alone, _ = run(describe(tmp_path, SHAPES["one-joint"], "alone"), 0.5)
    assert alone["nodes"]["CENTRAL"]["servo_faults"] == {"HP_1": 0}
    assert alone["nodes"]["CENTRAL"]["servo_board"] == {"updates_mod_256": None, "status": None}
    with pytest.raises(FaultScriptError, match=r"shape has boards 3, 4, 9, not 5"):
        DescribedRobot(robot, DescribedConfig(faults=["node 5 silent at 1s"]))


def test_a_dbc_that_does_not_fit_the_description_is_an_error(tmp_path: Path) -> None:
    robot = describe(tmp_path, SHAPES["one-joint"])
    dbc = tmp_path / "shape.dbc"
    dbc.write_text(dbc.read_text().replace("w_1", "w_7"))
    with pytest.raises(RobotFileError, match=r"shape\.toml: bus\.dbc: VEL_SP_1 in shape\.dbc "
                                             r"carries w_7, seq_1; the nodes need w_1, seq_1"):
        DescribedRobot(robot, DescribedConfig())
    two = tmp_path / "two.toml"
    two.write_text((tmp_path / "shape.toml").read_text().replace(
        "]\n", '    { kind = "servo-board", name = "S1", id = 2, joints = [2] },\n'
               '    { kind = "servo-board", name = "S2", id = 3, joints = [3] },\n]\n', 1).replace(
        "joints = 1\n", "joints = 3\n"))
    with pytest.raises(RobotFileError, match="at most one servo-board, this one 1 and 2"):
        load(str(two))
