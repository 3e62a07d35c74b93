"""A robot description file (TOML, docs/robot-file.md) read into a typed `RobotFile`: every key
checked before anything runs, each error naming the file, the key path and what is wrong.

The checks against the robot's DBC (senders, IDs, periods, bit rate, load) are
``robot.robot_check``'s; this module reads the file alone, so `servobus robot dbc` can generate
the DBC a description names before that file exists.
"""

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from servobus.bus import frame_bits_fd as fdb
from servobus.bus.dbc_generate import GROUPS_MAX, JOINTS_MAX, STATUS_MS
from servobus.bus.schema import (
    BITRATE_MAX,
    BITRATE_MIN,
    CYCLE_MS_MAX,
    MEAS_BYTES,
    whole_ns_bit_time,
)
from servobus.host.cartesian import Leg
from servobus.robot.description import NodeSpec
from servobus.robot.file_keys import FileKeys, RobotFileError, shown
from servobus.robot.joint_options import JointSpec, read_joints
from servobus.robot.kinematics_file import read_legs
from servobus.robot.node_kinds import CHOICES, COMPUTE_RANGE_NS, GROUP_MAX, KINDS

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")  # a DBC node name (BU_)
TOP_KEYS = ("base", "name", "title", "joints", "schedule", "period", "trajectory", "meas_bytes",
            "bus", "defaults", "joint", "nodes", "legs")
BUS_KEYS = ("bitrate", "data_bitrate", "dbc")
FD_GROUP_MAX = fdb.FD_LENGTHS[-1] // 2  # joints per CAN FD actuation frame: 16-bit words
NODE_KEYS = ("kind", "name", "id", "joints")


@dataclass(frozen=True)
class RobotFile:
    """A checked description: everything a run needs, every default filled in."""

    path: Path
    name: str
    title: str
    schedule: str
    period_ns: int
    bitrate: int
    dbc: Path  # resolved: beside the file, else shipped; as written if found nowhere
    nodes: tuple[NodeSpec, ...]
    node_keys: dict[str, dict[str, Any]]  # node name -> its kind's extra keys, resolved
    joints: tuple[JointSpec, ...]  # joint 1 first
    groups: tuple[tuple[int, ...], ...]  # the host's actuation frames (time-triggered)
    meas_bytes: int
    trajectory: Path | None  # None: the robot's shipped gait
    legs: tuple[Leg, ...] = ()  # the 6R legs for `servobus cartesian`; () when it names none
    data_bitrate: int | None = None  # a CAN FD bus's data phase (bit/s); None: classic CAN

    def where(self, k: int) -> str:
        """The key path of node k (0-based) as errors print it: nodes[k+1] (NAME)."""
        return f"nodes[{k + 1}] ({self.nodes[k].name})"


def shipped() -> list[str]:
    """The names of the shipped descriptions (robots/*.toml)."""
    folder = Path(str(resources.files("servobus.robots")))
    return sorted(p.stem for p in folder.glob("*.toml"))


def shipped_file(name: str) -> Path:
    """A file shipped beside the descriptions (robots/NAME)."""
    return Path(str(resources.files("servobus.robots").joinpath(name)))


def find(name_or_path: str) -> Path:
    """A description by path, or a shipped one by name ('spejbl')."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    candidate = shipped_file(f"{name_or_path}.toml")
    if "/" not in name_or_path and candidate.is_file():
        return candidate
    raise RobotFileError(f"{name_or_path}: no such file and no shipped robot of that name "
                         f"(shipped: {', '.join(shipped())})")


def load(name_or_path: str) -> RobotFile:
    """Read and check a description file (RobotFileError naming the file, key and problem)."""
    path = find(name_or_path)
    return _parse(_document(path, ()), path)


KEY_PATH = re.compile(r"[A-Za-z0-9_-]+(\[\d+\])?(\.[A-Za-z0-9_-]+(\[\d+\])?)*")
SEGMENT = re.compile(r"([A-Za-z0-9_-]+)(?:\[(\d+)\])?")


def load_with(name_or_path: str, overrides: dict[str, Any]) -> RobotFile:
    """A description with some of its keys set (key path -> TOML value), then read and checked
    as `load` does: `defaults.preset`, `joint.3.alpha`, `nodes[14].compute` (entries counted
    from 1, as errors print them).  The keys land on the document with its base merged, so
    they override the file and its base alike; a path that names no key of the format is the
    loader's error, one that cannot be a key (through a value, past an array's end) is a
    RobotFileError naming it."""
    path = find(name_or_path)
    doc = _document(path, ())
    for key, value in overrides.items():
        _set(FileKeys(path), doc, key, value)
    return _parse(doc, path)


def _set(f: FileKeys, doc: dict[str, Any], key: str, value: Any) -> None:
    """Set the key path `key` of `doc` to `value`, making the tables on the way."""
    if not KEY_PATH.fullmatch(key):
        raise f.error(key, "not a key path: names joined by dots, an array entry as "
                           "name[N] (e.g. joint.3.alpha, nodes[2].compute)")
    table: Any = doc
    segments = key.split(".")
    for k, segment in enumerate(segments):
        at = ".".join(segments[:k + 1])
        name, index = SEGMENT.fullmatch(segment).groups()  # type: ignore[union-attr]
        last = k == len(segments) - 1
        if not isinstance(table, dict):
            raise f.error(at, "the key before it is a value, not a table")
        if index is None:
            if last:
                table[name] = value
            else:
                table = table.setdefault(name, {})
            continue
        entries = table.get(name)
        if not isinstance(entries, list) or not 1 <= int(index) <= len(entries):
            count = len(entries) if isinstance(entries, list) else 0
            raise f.error(at, f"no such entry: {name} has {count}")
        if last:
            entries[int(index) - 1] = value
        else:
            table = entries[int(index) - 1]


def _document(path: Path, including: tuple[Path, ...]) -> dict[str, Any]:
    """The file's TOML document on top of its base's (`base`): tables merged key by key, any
    other value of this file replacing the base's."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise RobotFileError(f"{path}: cannot read: {err}") from err
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RobotFileError(f"{path}: {_toml_error(str(err), text)}") from err
    if "base" not in doc:
        return doc
    f = FileKeys(path)
    name = f.string("base", doc.pop("base"))
    base = path.parent / name
    if not base.is_file():
        base = shipped_file(f"{name}.toml")
        if "/" in name or not base.is_file():
            raise f.error("base", f"{name}: no such file beside {path.name} and no shipped "
                                  f"robot of that name (shipped: {', '.join(shipped())})")
    if base.resolve() in (*including, path.resolve()):
        raise f.error("base", f"{name}: a description cannot be built on itself")
    return _merged(_anchored(_document(base, (*including, path.resolve())), base), doc)


def _anchored(doc: dict[str, Any], path: Path) -> dict[str, Any]:
    """A base's bus.dbc and trajectory that name files beside it, as absolute paths (so they
    still name them from the file built on it)."""
    for table, key in ((doc.get("bus"), "dbc"), (doc, "trajectory")):
        if isinstance(table, dict) and isinstance(table.get(key), str) and \
                (path.parent / table[key]).is_file():
            table[key] = str((path.parent / table[key]).resolve())
    return doc


def _merged(under: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `under`: tables merged key by key, other values replaced."""
    out = dict(under)
    for key, value in over.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = _merged(out[key], value) if both else value
    return out


def _toml_error(message: str, text: str) -> str:
    """tomllib's 'Invalid value (at line 3, column 7)' as 'line 3: invalid value (column 7):
    not TOML'; one 'at end of document' names the file's last line."""
    if mt := re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", message):
        what, line, where = mt.group(1), mt.group(2), f"column {mt.group(3)}"
    elif mt := re.fullmatch(r"(.*) \(at end of document\)", message):
        what, line, where = mt.group(1), str(text.rstrip("\n").count("\n") + 1), "at its end"
    else:
        return f"not TOML: {message}"
    return f"line {line}: {what[:1].lower()}{what[1:]} ({where}): not TOML"


def _parse(doc: dict[str, Any], path: Path) -> RobotFile:
    """A RobotFile from a TOML document (its base merged); relative paths from `path`'s
    folder."""
    f = FileKeys(path)
    f.keys("", doc, TOP_KEYS)
    for key in ("name", "joints", "period", "bus", "nodes"):
        if key not in doc:
            raise f.error(key, "missing (every description names it)")
    name = f.string("name", doc["name"])
    title = f.string("title", doc["title"]) if "title" in doc else name
    count = f.integer("joints", doc["joints"], 1, JOINTS_MAX)
    period_ns = f.duration_ns("period", doc["period"])
    if period_ns % 1_000_000 or not 1 <= period_ns // 1_000_000 <= CYCLE_MS_MAX:
        raise f.error("period", f"{doc['period']!r}: whole milliseconds 1ms..{CYCLE_MS_MAX}ms "
                                "(the DBC's GenMsgCycleTime counts ms)")
    bus = f.keys("bus", doc["bus"], BUS_KEYS)
    bitrate = _bitrate(f, bus.get("bitrate", BITRATE_MAX))
    data_bitrate = _data_bitrate(f, bus["data_bitrate"], bitrate) if "data_bitrate" in bus \
        else None
    if "dbc" not in bus:
        raise f.error("bus.dbc", "missing: the DBC file, relative to this file, or a shipped "
                                 "name (servobus.dbc, guroo.dbc)")
    dbc = _dbc(path, f.string("bus.dbc", bus["dbc"]))
    nodes, keys = _nodes(f, doc["nodes"], count)
    schedule = _schedule(f, doc, nodes)
    if schedule == "time-triggered" and STATUS_MS % (period_ns // 1_000_000):
        raise f.error("period", f"{doc['period']!r}: a time-triggered robot's period divides "
                                f"its boards' {STATUS_MS} ms STATUS cycle (the TICK must be the "
                                f"shortest cycle and divide every other)")
    if "meas_bytes" in doc and schedule != "time-triggered":
        raise f.error("meas_bytes", "applies to a time-triggered robot (its boards' MEAS)")
    meas_bytes = doc.get("meas_bytes", 2)
    if meas_bytes not in MEAS_BYTES or isinstance(meas_bytes, bool):
        raise f.error("meas_bytes", f"{shown(meas_bytes)}: a board's measurement is 2 or 6 "
                                    "bytes (MEAS_j or MEAS6_j)")
    host = [k for k, n in enumerate(nodes) if n.kind == "host"]
    groups = _groups(f, f"nodes[{host[0] + 1}].groups", keys[nodes[host[0]].name]["groups"],
                     count, FD_GROUP_MAX if data_bitrate else GROUP_MAX) if host else ()
    if host:
        keys[nodes[host[0]].name]["groups"] = groups
    joints = read_joints(f, doc, nodes)
    trajectory = _trajectory(f, path, doc["trajectory"]) if "trajectory" in doc else None
    legs = read_legs(f, doc["legs"], joints) if "legs" in doc else ()
    return RobotFile(path, name, title, schedule, period_ns, bitrate, dbc, nodes, keys, joints,
                     groups, meas_bytes, trajectory, legs, data_bitrate)


def _bitrate(f: FileKeys, value: Any) -> int:
    """bus.bitrate: 10 kbit/s .. 1 Mbit/s with a bit time of whole nanoseconds."""
    rate = f.integer("bus.bitrate", value, BITRATE_MIN, BITRATE_MAX)
    if not whole_ns_bit_time(rate):
        raise f.error("bus.bitrate", f"{rate}: the bit time must be whole nanoseconds "
                                     "(e.g. 125000, 500000, 1000000)")
    return rate


def _data_bitrate(f: FileKeys, value: Any, bitrate: int) -> int:
    """bus.data_bitrate (CAN FD): a whole-ns bit time, up to 8 Mbit/s, not below `bitrate`."""
    rate = f.integer("bus.data_bitrate", value, BITRATE_MIN, 1_000_000_000 // fdb.DATA_BIT_NS_MIN)
    try:
        fdb.bit_times_ns(bitrate, rate)
    except ValueError as err:
        raise f.error("bus.data_bitrate", f"{rate}: {err}") from None
    return rate


def _beside_or_shipped(path: Path, name: str, packages: tuple[str, ...]) -> Path | None:
    """`name` relative to the description's folder, else a file shipped in one of `packages`."""
    beside = path.parent / name
    if beside.is_file():
        return beside
    for package in packages:
        shipped_path = Path(str(resources.files(package).joinpath(name)))
        if "/" not in name and shipped_path.is_file():
            return shipped_path
    return None


def _dbc(path: Path, name: str) -> Path:
    """bus.dbc resolved: beside the file, else servobus.dbc's or servobus.robots' file; a name
    found nowhere stays relative to the file (`servobus robot dbc` may write it there)."""
    found = _beside_or_shipped(path, name, ("servobus.dbc", "servobus.robots"))
    return found if found is not None else path.parent / name


def _trajectory(f: FileKeys, path: Path, value: Any) -> Path:
    """trajectory resolved: beside the file, else a shipped one (host/data: gait.traj,
    guroo_walk.toml, ...); it must exist."""
    found = _beside_or_shipped(path, f.string("trajectory", value), ("servobus.host.data",))
    if found is None:
        shipped = sorted(p.name for p in resources.files("servobus.host.data").iterdir()
                         if p.name.endswith((".traj", ".toml")))
        raise f.error("trajectory", f"{value}: no such file beside {path.name} and no shipped "
                                    f"trajectory of that name ({', '.join(shipped)})")
    return found


def _nodes(f: FileKeys, raw: Any, count: int) -> tuple[tuple[NodeSpec, ...],
                                                    dict[str, dict[str, Any]]]:
    """The [[nodes]] entries: kinds known, names and IDs unique, joints 1..count each once."""
    if not isinstance(raw, list) or not raw:
        raise f.error("nodes", "must be an array of tables ([[nodes]] entries), one per node")
    nodes: list[NodeSpec] = []
    keys: dict[str, dict[str, Any]] = {}
    owner: dict[int, int] = {}
    for k, entry in enumerate(raw):
        at = f"nodes[{k + 1}]"
        if not isinstance(entry, dict):
            raise f.error(at, f"must be a table, got {shown(entry)}")
        if "kind" not in entry:
            raise f.error(f"{at}.kind", f"missing: use one of {', '.join(KINDS)}")
        kind = KINDS[f.choice(f"{at}.kind", entry["kind"], tuple(KINDS))]
        allowed = [*NODE_KEYS[:2], *(("id",) if kind.id_range else ()),
                   *(("joints",) if kind.joints[1] else ()), *kind.node_keys]
        for key in entry:
            if key not in allowed and (key in NODE_KEYS or
                                       any(key in k.node_keys for k in KINDS.values())):
                raise f.error(f"{at}.{key}", f"a {kind.name} takes no {key}; its keys: "
                                             f"{', '.join(allowed)}")
        f.keys(at, entry, allowed)
        if "name" not in entry:
            raise f.error(f"{at}.name", "missing: the node's name in the DBC (BU_)")
        name = f.string(f"{at}.name", entry["name"])
        if not NAME.fullmatch(name):
            raise f.error(f"{at}.name", f"{name!r}: a DBC node name is a letter or _, then "
                                        "letters, digits or _, 32 characters at most")
        if name in keys:
            raise f.error(f"{at}.name", f"{name} is also nodes[{_index(nodes, name) + 1}]'s")
        board = 0
        if kind.id_range:
            if "id" not in entry:
                raise f.error(f"{at}.id", f"missing: a {kind.name} has a board ID")
            board = f.integer(f"{at}.id", entry["id"], *kind.id_range)
            same = [j for j, n in enumerate(nodes) if n.board == board and KINDS[n.kind].id_range]
            if same:
                raise f.error(f"{at}.id", f"{board} is also nodes[{same[0] + 1}]'s "
                                          f"({nodes[same[0]].name})")
        joints = _node_joints(f, at, entry.get("joints", []), count, kind.joints)
        for j in joints:
            if j in owner:
                raise f.error(f"{at}.joints", f"joint {j} is already on nodes[{owner[j] + 1}] "
                                              f"({nodes[owner[j]].name})")
            owner[j] = k
        nodes.append(NodeSpec(name, kind.name, board, joints))
        keys[name] = _node_keys(f, at, entry, kind.node_keys)
    missing = [j for j in range(1, count + 1) if j not in owner]
    if missing:
        raise f.error("nodes", f"joint{'s' if len(missing) > 1 else ''} "
                               f"{', '.join(map(str, missing))} of 1..{count} on no node")
    return tuple(nodes), keys


def _index(nodes: list[NodeSpec], name: str) -> int:
    return next(k for k, n in enumerate(nodes) if n.name == name)


def _node_joints(f: FileKeys, at: str, raw: Any, count: int,
                 limits: tuple[int, int]) -> tuple[int, ...]:
    """A node's joint numbers: each 1..count, once, as many as its kind carries."""
    if not isinstance(raw, list):
        raise f.error(f"{at}.joints", f"must be an array of joint numbers, got {shown(raw)}")
    joints = tuple(f.integer(f"{at}.joints", j, 1, count) for j in raw)
    if len(set(joints)) != len(joints):
        raise f.error(f"{at}.joints", f"{list(joints)} names a joint twice")
    lo, hi = limits
    if not lo <= len(joints) <= hi:
        span = str(lo) if lo == hi else f"{lo}..{hi}"
        raise f.error(f"{at}.joints", f"this kind carries {span} joint{'s' * (hi > 1)}, "
                                      f"got {len(joints)}")
    return joints


def _node_keys(f: FileKeys, at: str, entry: dict[str, Any],
               defaults: dict[str, Any]) -> dict[str, Any]:
    """A node kind's extra keys, checked, defaults filled in: a named choice one of its names
    (CHOICES: loop, t1_period, ...), a key whose default is true or false a boolean, compute
    as ns."""
    keys = {key: entry.get(key, default) for key, default in defaults.items()}
    for key, value in keys.items():
        if key in CHOICES:
            keys[key] = f.choice(f"{at}.{key}", value, CHOICES[key])
        elif isinstance(defaults[key], bool) and not isinstance(value, bool):
            raise f.error(f"{at}.{key}", f"must be true or false, got {shown(value)}")
    if "compute" in keys:
        ns = f.duration_ns(f"{at}.compute", keys.pop("compute"))
        if not COMPUTE_RANGE_NS[0] <= ns <= COMPUTE_RANGE_NS[1]:
            raise f.error(f"{at}.compute", f"{ns} ns is outside 0..100ms")
        keys["compute_ns"] = ns
    return keys


def _schedule(f: FileKeys, doc: dict[str, Any], nodes: tuple[NodeSpec, ...]) -> str:
    """The robot's schedule (given, else its nodes'): every node of it, and the nodes it needs
    (a time-triggered robot: one time-trigger and one host; a cyclic one: one central)."""
    schedule = f.choice("schedule", doc.get("schedule", KINDS[nodes[0].kind].schedule),
                        CHOICES["schedule"])
    for k, node in enumerate(nodes):
        if KINDS[node.kind].schedule != schedule:
            raise f.error(f"nodes[{k + 1}].kind", f"a {node.kind} runs on a "
                                                  f"{KINDS[node.kind].schedule} robot; this "
                                                  f"one is {schedule}")
    needs = ("time-trigger", "host") if schedule == "time-triggered" else ("central",)
    for kind in needs:
        have = sum(n.kind == kind for n in nodes)
        if have != 1:
            raise f.error("nodes", f"a {schedule} robot has one {kind} node, this one {have}")
    if schedule == "cyclic":  # the central drives 1 or more high-power boards, 0 or 1 servo
        hp, servo = (sum(n.kind == kind for n in nodes) for kind in ("hp-board", "servo-board"))
        if not hp or servo > 1:
            raise f.error("nodes", f"a cyclic robot has one or more hp-board nodes and at most "
                                   f"one servo-board, this one {hp} and {servo}")
    return schedule


def _groups(f: FileKeys, at: str, raw: Any, count: int,
            most: int) -> tuple[tuple[int, ...], ...]:
    """The host's actuation groups: default consecutive fours; each 1..`most` joints (4 in an
    8-byte frame, 32 in a 64-byte CAN FD one), every joint in exactly one."""
    if raw is None:
        return tuple(tuple(range(j, min(j + GROUP_MAX, count + 1)))
                     for j in range(1, count + 1, GROUP_MAX))
    if not isinstance(raw, list) or not raw:
        raise f.error(at, "must be an array of arrays of joint numbers, e.g. [[1, 2], [3]]")
    groups, seen = [], set()
    for k, group in enumerate(raw):
        if not isinstance(group, list) or not 1 <= len(group) <= most:
            raise f.error(f"{at}[{k + 1}]", f"1..{most} joint numbers (one {2 * most}-byte "
                                            f"{'CAN FD ' * (most > GROUP_MAX)}frame), got "
                                            f"{shown(group)}")
        for j in group:
            f.integer(f"{at}[{k + 1}]", j, 1, count)
            if j in seen:
                raise f.error(f"{at}[{k + 1}]", f"joint {j} is in an earlier group too")
            seen.add(j)
        groups.append(tuple(group))
    missing = sorted(set(range(1, count + 1)) - seen)
    if missing:
        raise f.error(at, f"joint{'s' * (len(missing) > 1)} {', '.join(map(str, missing))} "
                          "in no group")
    if len(groups) > GROUPS_MAX:
        raise f.error(at, f"{len(groups)} groups: the ID rule has room for {GROUPS_MAX} "
                          "(docs/robot-file.md)")
    return tuple(groups)
