"""Robot description files: the shipped ones read into today's robots, per-joint options, and
every error class with its exact file, key path and message."""

import re
from pathlib import Path

import pytest

from servobus.host.tunings import TUNINGS, Tuning
from servobus.presets.servos import HSR_5995TG
from servobus.robot.file_keys import RobotFileError
from servobus.robot.joint_options import Gains
from servobus.robot.node_kinds import JOINT_OPTIONS, KINDS
from servobus.robot.robot_check import check
from servobus.robot.robot_file import BUS_KEYS, NODE_KEYS, TOP_KEYS, load, load_with, shipped

DOC = Path(__file__).resolve().parents[2] / "docs" / "robot-file.md"

BASE = """\
name = "tri"
joints = 3
period = "4ms"
nodes = [
    { kind = "time-trigger", name = "TT" },
    { kind = "board", name = "J1", id = 1, joints = [1] },
    { kind = "board", name = "J2", id = 2, joints = [2] },
    { kind = "board", name = "J3", id = 3, joints = [3] },
    { kind = "host", name = "HOST" },
]

[bus]
dbc = "tri.dbc"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tri.toml"
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    """The error of loading `text`, its file name taken off the front."""
    path = write(tmp_path, text)
    with pytest.raises(RobotFileError) as caught:
        load(str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


def test_the_shipped_descriptions_are_the_sources_robots() -> None:
    """SPEJBL (SPEC 1): a 4 ms time trigger, boards JOINT_1..12 of IDs 1..12, the host; GuRoo
    (SPEC 5): a 2 ms central, five high-power boards of three joints, an 8-servo board of ID 6."""
    assert shipped() == ["guroo", "guroo-arm", "nxt-joint", "sg90-arm", "spejbl", "spejbl-fd",
                         "spejbl-leg", "spejbl-leg-ax12"]
    spejbl, guroo = load("spejbl"), load("guroo")
    assert [(n.name, n.kind, n.board, n.joints) for n in spejbl.nodes] == [
        ("TIME_TRIGGER", "time-trigger", 0, ()),
        *((f"JOINT_{j}", "board", j, (j,)) for j in range(1, 13)), ("HOST", "host", 0, ())]
    assert (spejbl.period_ns, len(spejbl.joints), spejbl.dbc.name) == \
        (4_000_000, 12, "servobus.dbc")
    assert [(n.name, n.board, n.joints) for n in guroo.nodes if n.kind == "hp-board"] == [
        (f"HP_{b}", b, (3 * b - 2, 3 * b - 1, 3 * b)) for b in range(1, 6)]
    assert [(n.name, n.board, n.joints) for n in guroo.nodes if n.kind == "servo-board"] == [
        ("SERVO_BOARD", 6, tuple(range(16, 24)))]
    assert (guroo.period_ns, len(guroo.joints), guroo.dbc.name) == (2_000_000, 23, "guroo.dbc")
    assert spejbl.groups == ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12))
    assert spejbl.trajectory is not None and spejbl.trajectory.name == "gait.traj"
    assert spejbl.node_keys["HOST"]["compute_ns"] == 200_000
    assert load("guroo").node_keys["HP_3"] == {"loop": "2002", "t1_period": "txpr+1",
                                               "dead_band": False, "adc_fifo": "fresh",
                                               "pdpint": "hi-z-latched"}
    assert all(j.options is None for j in load("guroo").joints)


def test_a_base_robot_takes_todays_defaults(tmp_path: Path) -> None:
    robot = load(str(write(tmp_path, BASE)))
    assert robot.title == "tri" and robot.bitrate == 1_000_000 and robot.meas_bytes == 2
    assert robot.dbc == tmp_path / "tri.dbc" and robot.trajectory is None
    assert robot.groups == ((1, 2, 3),) and robot.schedule == "time-triggered"
    options = robot.joints[2].options
    assert options is not None and robot.joints[2].node == "J3"
    assert (options.preset, options.mode, options.sensing, options.plant, options.alpha,
            options.tuning, options.anti_windup) == (HSR_5995TG, "cascade", "supply-unipolar",
                                                     "switching", 1.0, TUNINGS["R2"], "soft")


def test_defaults_then_each_joints_own_table(tmp_path: Path) -> None:
    robot = load(str(write(tmp_path, BASE + """
[defaults]
tuning = "R2b"
alpha = 2
mode = "local-p"

[joint.2]
alpha = 5.5
tuning = { r_p = 0.01, r_i = 0.001, r_d = 0.1 }
preset = { supply_v = 6.0, kt = 0.5, r_a = 3.0, b = 0.01, j = 1e-3 }

[joint.3]
tuning = { omega_d = 30, omega_i = 6, k_kp = 0.02 }
""")))
    one, two, three = (j.options for j in robot.joints)
    assert one is not None and two is not None and three is not None
    assert (one.alpha, one.tuning, one.mode) == (2.0, TUNINGS["R2b"], "local-p")
    assert (two.alpha, two.tuning, two.mode) == (5.5, Gains(0.01, 0.001, 0.1), "local-p")
    assert (two.preset.supply_v, two.preset.r_a, two.preset.coulomb, two.preset.name) == \
        (6.0, 3.0, 0.0, "joint-2")
    assert three.tuning == Tuning("joint-3", 30.0, 6.0, 0.02)


@pytest.mark.parametrize(("old", "new", "expected"), [
    ('period = "4ms"', 'peroid = "4ms"', "peroid: unknown key (did you mean period?); use base, "
     "name, title, joints, schedule, period, trajectory, meas_bytes, bus, defaults, joint, nodes, "
     "legs"),
    ("joints = 3\n", 'joints = "3"\n', "joints: must be a whole number, got '3'"),
    ('name = "tri"\n', "", "name: missing (every description names it)"),
    ('period = "4ms"', 'period = "3ms"', "period: '3ms': a time-triggered robot's period divides "
     "its boards' 100 ms STATUS cycle (the TICK must be the shortest cycle and divide every "
     "other)"),
    ('period = "4ms"', 'period = "4.5ms"', "period: '4.5ms': whole milliseconds 1ms..10000ms "
     "(the DBC's GenMsgCycleTime counts ms)"),
    ('period = "4ms"', 'period = "4 ms"', "period: bad time '4 ms': use a number with s, ms, us "
     "or ns"),
    ("joints = 3", "joints = 3\nmeas_bytes = 4", "meas_bytes: 4: a board's measurement is 2 or 6 "
     "bytes (MEAS_j or MEAS6_j)"),
    ("joints = 3", 'joints = 3\ntrajectory = "nope.traj"', "trajectory: nope.traj: no such file "
     "beside tri.toml and no shipped trajectory of that name (ax12-leg-step.traj, gait.traj, "
     "guroo_walk.toml, nxt-joint.traj, sg90-arm.traj, step_in_place.traj)"),
    ('dbc = "tri.dbc"', 'dbc = "tri.dbc"\nbitrate = 300000', "bus.bitrate: 300000: the bit time "
     "must be whole nanoseconds (e.g. 125000, 500000, 1000000)"),
    ('dbc = "tri.dbc"', 'dbc = "tri.dbc"\nbitrate = 2000000',
     "bus.bitrate: 2000000 is outside 10000..1000000"),
    ('dbc = "tri.dbc"', 'dbx = "tri.dbc"', "bus.dbx: unknown key (did you mean dbc?); use "
     "bitrate, data_bitrate, dbc"),
    ('{ kind = "board", name = "J3", id = 3, joints = [3] },\n', "",
     "nodes: joint 3 of 1..3 on no node"),
    ('name = "J3", id = 3, joints = [3]', 'name = "J3", id = 3, joints = [2]',
     "nodes[4].joints: joint 2 is already on nodes[3] (J2)"),
    ('name = "J3", id = 3', 'name = "J3", id = 2', "nodes[4].id: 2 is also nodes[3]'s (J2)"),
    ('name = "J3"', 'name = "J2"', "nodes[4].name: J2 is also nodes[3]'s"),
    ('name = "J3"', 'name = "3J"', "nodes[4].name: '3J': a DBC node name is a letter or _, "
     "then letters, digits or _, 32 characters at most"),
    ('kind = "board", name = "J1"', 'kind = "bord", name = "J1"', "nodes[2].kind: 'bord': use "
     "one of time-trigger, board, host, central, hp-board, servo-board"),
    ('joints = [3] }', 'joints = [3, 4] }', "nodes[4].joints: 4 is outside 1..3"),
    ('joints = [2] }', 'joints = [2, 3] }', "nodes[3].joints: this kind carries 1 joint, got 2"),
    ('name = "TT" }', 'name = "TT", id = 9 }', "nodes[1].id: a time-trigger takes no id; its keys: "
     "kind, name"),
    ('{ kind = "time-trigger", name = "TT" },\n', "",
     "nodes: a time-triggered robot has one time-trigger node, this one 0"),
    ('{ kind = "host", name = "HOST" },', '{ kind = "host", name = "HOST" },\n'
     '    { kind = "central", name = "C" },', "nodes[6].kind: a central runs on a cyclic robot; "
     "this one is time-triggered"),
    ('name = "HOST" }', 'name = "HOST", groups = [[1, 2], [2, 3]] }',
     "nodes[5].groups[2]: joint 2 is in an earlier group too"),
    ('name = "HOST" }', 'name = "HOST", groups = [[1, 2]] }', "nodes[5].groups: joint 3 in no "
     "group"),
    ('name = "HOST" }', 'name = "HOST", groups = [[1, 2, 3, 1, 2]] }', "nodes[5].groups[1]: "
     "1..4 joint numbers (one 8-byte frame), got [1, 2, 3, 1, 2]"),
    ('dbc = "tri.dbc"', 'dbc = "tri.dbc"\ndata_bitrate = 3000000', "bus.data_bitrate: "
     "3000000: the data bit rate 3000000 bit/s has no whole-ns bit time"),
    ('dbc = "tri.dbc"', 'dbc = "tri.dbc"\ndata_bitrate = 10000000',
     "bus.data_bitrate: 10000000 is outside 10000..8000000"),
    ('dbc = "tri.dbc"', 'dbc = "tri.dbc"\nbitrate = 1000000\ndata_bitrate = 500000',
     "bus.data_bitrate: 500000: data bit time 2000 ns is outside 125..1000 ns (8 Mbit/s..the "
     "nominal bit rate)"),
    ('dbc = "tri.dbc"', 'dbc = "tri.dbc"\ndata_bitrate = "5M"',
     "bus.data_bitrate: must be a whole number, got '5M'"),
    ('name = "J1", id = 1', 'name = "J1", idd = 1', "nodes[2].idd: unknown key (did you mean "
     "id?); use kind, name, id, joints"),
    ('name = "HOST" }', 'name = "HOST", compute = "1s" }', "nodes[5].compute: 1000000000 ns is "
     "outside 0..100ms"),
])
def test_each_error_names_the_key_and_what_is_wrong(tmp_path: Path, old: str, new: str,
                                                     expected: str) -> None:
    assert old in BASE
    assert error_of(tmp_path, BASE.replace(old, new, 1)) == expected


def test_a_can_fd_host_group_holds_up_to_32_joints(tmp_path: Path) -> None:
    """64 bytes of 16-bit references: 32 joints in one CAN FD frame, 4 in a classic one."""
    boards = "".join(f'    {{ kind = "board", name = "J{j}", id = {j}, joints = [{j}] }},\n'
                     for j in range(1, 34))

    def text(joints: int, rate: str) -> str:
        return (f'name = "big"\njoints = {joints}\nperiod = "4ms"\nnodes = [\n'
                '    { kind = "time-trigger", name = "TT" },\n' +
                "".join(boards.splitlines(keepends=True)[:joints]) +
                f'    {{ kind = "host", name = "HOST", groups = [{list(range(1, joints + 1))}] }},'
                f'\n]\n\n[bus]\ndbc = "big.dbc"\n{rate}')
    robot = load(str(write(tmp_path, text(32, "data_bitrate = 4000000\n"))))
    assert (robot.data_bitrate, robot.groups) == (4_000_000, (tuple(range(1, 33)),))
    assert error_of(tmp_path, text(33, "data_bitrate = 4000000\n")).startswith(
        "nodes[35].groups[1]: 1..32 joint numbers (one 64-byte CAN FD frame), got [1, 2, ")
    assert load(str(write(tmp_path, text(4, "")))).data_bitrate is None


def test_a_data_bit_rate_needs_an_fd_dbc(tmp_path: Path) -> None:
    """GuRoo's classic DBC under a description that says CAN FD: the check names the key."""
    path = tmp_path / "g.toml"
    path.write_text(f'base = "guroo"\n[bus]\ndata_bitrate = 5000000\ndbc = "{load("guroo").dbc}"\n')
    with pytest.raises(RobotFileError, match=r"bus\.data_bitrate: 5000000 bit/s, but guroo\.dbc "
                                             r"is a classic CAN bus \(no BaudrateCANFD\)"):
        check(load(str(path)))


@pytest.mark.parametrize(("table", "expected"), [
    ("[defaults]\nsensng = 'winding-bipolar'", "defaults.sensng: unknown key (did you mean "
     "sensing?); use preset, mode, sensing, plant, alpha, tuning, anti_windup"),
    ("[defaults]\npreset = 'sg90'\n[joint.2]\npreset = 'hsr-5995tg'",
     "defaults.mode: the host runs one mode for every joint, these run joints 1, 3 local-p; "
     "joint 2 cascade (a joint's mode is its preset's unless set)"),
    ("[joint.2]\npreset = { supply_v = 6.0, kt = 0.5, r_a = 3.0, b = 0.01, j = 1e-3, "
     "loop_hz = 3000 }",
     "joint.2.preset: joint-2: loop_hz 3000 does not divide the PWM rate 20000 Hz"),
    # 1e6 V s/rad: 1e6 * 3000 counts / 6 V / 264.8 LSB/rad * 1000 Hz / 20 * 256 > 2^31
    ("[joint.2]\npreset = { supply_v = 6.0, kt = 0.5, r_a = 3.0, b = 0.01, j = 1e-3, "
     "k_omega = 1e6 }",
     "joint.2.preset: joint-2: k_omega 1e+06 is 24166097335 in Q8 PWM counts, beyond the "
     "firmware's 32-bit gain"),
    # 1e-3 V/rad: 1e-3 * 3000 / 6 / 264.8 / 20 * 256 = 0.024, rounds to 0
    ("[joint.2]\npreset = { supply_v = 6.0, kt = 0.5, r_a = 3.0, b = 0.01, j = 1e-3, "
     "k_theta = 1e-3 }",
     "joint.2.preset: joint-2: k_theta 0.001 rounds to 0 in Q8 PWM counts at 1000 Hz: the "
     "loop would not act on it"),
    ("[joint.2]\npreset = 'hsr-5995'",
     "joint.2.preset: 'hsr-5995': use one of hsr-5995tg, ax-12, nxt, sg90"),
    ("[joint.4]\nalpha = 2", "joint.4: not a joint of this robot: 1..3"),
    ("[joint.1]\nalpha = 0", "joint.1.alpha: 0 is outside 0.01..100"),
    ("[defaults]\nalpha = 'x'", "defaults.alpha: must be a finite number, got 'x'"),
    ("[joint.1]\nmode = 'duty'", "joint.1.mode: 'duty': use one of cascade, local-p"),
    ("[joint.1]\ntuning = 'R3'", "joint.1.tuning: 'R3': use one of R2, R2b, designed"),
    ("[joint.1]\ntuning = { r_p = 1 }", "joint.1.tuning: give omega_d, omega_i, k_kp (relative "
     "to K_P) or r_p, r_i, r_d (A per LSB), all three, got r_p"),
    ("[joint.3]\npreset = { supply_v = 6.0, kt = 0.5 }", "joint.3.preset.r_a: missing (an "
     "inline preset gives supply_v, kt, r_a, b, j; the others optional)"),
])
def test_joint_option_errors(tmp_path: Path, table: str, expected: str) -> None:
    assert error_of(tmp_path, BASE + "\n" + table + "\n") == expected


def test_a_toml_syntax_error_names_its_line(tmp_path: Path) -> None:
    assert error_of(tmp_path, BASE.replace('period = "4ms"', 'period = "4ms')) == \
        "line 3: illegal character '\\n' (column 14): not TOML"


def test_joints_of_a_kind_without_options_take_none(tmp_path: Path) -> None:
    text = Path(str(load("guroo").path)).read_text() + "\n[joint.16]\nalpha = 2\n"
    path = tmp_path / "g.toml"
    path.write_text(text.replace('"guroo_walk.toml"', '"guroo_walk.toml"', 1))
    with pytest.raises(RobotFileError, match=r"g\.toml: joint\.16: a servo-board's joints take "
                                             "no options$"):
        load(str(path))


def test_a_robot_built_on_a_shipped_one(tmp_path: Path) -> None:
    path = tmp_path / "heavy.toml"
    path.write_text('base = "spejbl"\nname = "heavy-knee"\n\n[joint.4]\nalpha = 8.0\n')
    robot, spejbl = load(str(path)), load("spejbl")
    assert robot.name == "heavy-knee" and robot.title == spejbl.title
    assert (robot.nodes, robot.dbc, robot.trajectory, robot.groups) == \
        (spejbl.nodes, spejbl.dbc, spejbl.trajectory, spejbl.groups)
    assert [j.options.alpha for j in robot.joints if j.options] == [1.0] * 3 + [8.0] + [1.0] * 8


def test_a_bases_files_are_found_beside_the_base(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "tri.toml").write_text(BASE)
    (tmp_path / "a" / "tri.dbc").write_text("")
    (tmp_path / "b").mkdir()
    path = tmp_path / "b" / "more.toml"
    path.write_text('base = "../a/tri.toml"\nname = "more"\n\n[bus]\nbitrate = 500000\n')
    robot = load(str(path))
    assert (robot.dbc, robot.bitrate, robot.name) == ((tmp_path / "a" / "tri.dbc").resolve(),
                                                      500_000, "more")


@pytest.mark.parametrize(("base", "expected"), [
    ("tri.toml", "base: tri.toml: a description cannot be built on itself"),
    ("nope", "base: nope: no such file beside tri.toml and no shipped robot of that name "
     "(shipped: guroo, guroo-arm, nxt-joint, sg90-arm, spejbl, spejbl-fd, spejbl-leg, "
     "spejbl-leg-ax12)"),
    ("3", "base: must be a non-empty string, got 3"),
])
def test_base_errors(tmp_path: Path, base: str, expected: str) -> None:
    value = base if base.isdigit() else f'"{base}"'
    assert error_of(tmp_path, f"base = {value}\n" + BASE) == expected


def test_more_groups_than_the_id_rule_has_room_for(tmp_path: Path) -> None:
    text = BASE.replace("joints = 3", "joints = 65").replace(
        '{ kind = "board", name = "J3", id = 3, joints = [3] },', "\n".join(
            f'{{ kind = "board", name = "J{j}", id = {j}, joints = [{j}] }},'
            for j in range(3, 66))).replace(
        'name = "HOST" }', f'name = "HOST", groups = {[[j] for j in range(1, 66)]} }}')
    assert error_of(tmp_path, text) == "nodes[67].groups: 65 groups: the ID rule has room for " \
                                       "64 (docs/robot-file.md)"


def test_a_name_that_is_neither_file_nor_shipped(tmp_path: Path) -> None:
    with pytest.raises(RobotFileError, match="^nope: no such file and no shipped robot of that "
                                             r"name \(shipped: guroo, guroo-arm, nxt-joint, "
                                             r"sg90-arm, spejbl, spejbl-fd, spejbl-leg, "
                                             r"spejbl-leg-ax12\)$"):
        load("nope")


def test_every_key_and_kind_is_documented() -> None:
    documented = set(re.findall(r"^\| (?:`[a-z-]+` \| )?`([a-z0-9_-]+)` \|", DOC.read_text(), re.M))
    keys = {*TOP_KEYS, *BUS_KEYS, *NODE_KEYS, *JOINT_OPTIONS, *KINDS,
            *(key for kind in KINDS.values() for key in kind.node_keys)}
    assert keys - documented == set()


def test_keys_set_by_path_override_the_file_and_its_base(tmp_path: Path) -> None:
    path = tmp_path / "leg.toml"
    path.write_text('base = "spejbl-leg"\n[joint.3]\nalpha = 2.0\n')
    leg = load_with(str(path), {"joint.3.alpha": 5.0, "defaults.tuning": "R2b",
                                "nodes[8].compute": "1ms", "bus.bitrate": 500000})
    assert [j.options.alpha for j in leg.joints] == [1, 1, 5.0, 1, 1, 1]  # type: ignore[union-attr]
    assert {j.options.tuning for j in leg.joints} == {TUNINGS["R2b"]}  # type: ignore[union-attr]
    assert leg.node_keys["HOST"]["compute_ns"] == 1_000_000 and leg.bitrate == 500000
    assert load(str(path)).joints[2].options.alpha == 2.0  # type: ignore[union-attr]


@pytest.mark.parametrize("key, message", [
    ("joint.3.alfa", r"leg\.toml: joint\.3\.alfa: unknown key \(did you mean alpha\?\)"),
    ("nodes[9].compute", r"nodes\[9\]: no such entry: nodes has 8"),
    ("name.first", r"name\.first: the key before it is a value, not a table"),
    ("joint..alpha", r"joint\.\.alpha: not a key path"),
    ("defaults.alpha", r"defaults\.alpha: must be a finite number, got 'x'"),
])
def test_a_bad_key_path_is_an_error_naming_file_and_key(tmp_path: Path, key: str,
                                                        message: str) -> None:
    path = tmp_path / "leg.toml"
    path.write_text('base = "spejbl-leg"\n')
    with pytest.raises(RobotFileError, match=message):
        load_with(str(path), {key: "x" if key == "defaults.alpha" else 1})
