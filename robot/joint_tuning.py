"""`servobus identify --write-tunings [FILE.toml]`: the identified joint's tuning written into a
description of the user's own, never into the installed package.

The target is FILE.toml, else the `--robot` file.  An existing description gets (or has
replaced) `tuning` in its `[joint.N]` table; a new file is a description built on the
identified robot (`base = ...`) with that table.  The tuning is the SPEC's design rule on the
identified P(z), written as its gains {r_p, r_i, r_d} (a relative tuning would be scaled by the
default robot's K_P, not this joint's), with the identification in the comment above it.  The
edited text is loaded and checked before it replaces the file.
"""

import os
import re
from pathlib import Path

from servobus.host.tunings import DESIGN_OVERSHOOT_PCT
from servobus.robot.bench_startup import installed_folders
from servobus.robot.file_keys import RobotFileError
from servobus.robot.joint_options import Gains
from servobus.robot.robot_check import checked
from servobus.robot.robot_file import RobotFile
from servobus.robot.tunings_file import designed_for

MARK = "# identify: "  # the comment lines this module writes (replaced on the next write)


class TuningTargetError(ValueError):
    """A --write-tunings target that must not or cannot be written."""


def installed(path: Path) -> bool:
    """Is `path` inside one of the installed package's folders?"""
    where = path.resolve()
    return any(where.is_relative_to(folder.resolve()) for folder in installed_folders().values())


def target(robot: RobotFile, given: str, joint: int) -> Path:
    """The file --write-tunings writes: `given`, else the robot's own description (refused for
    a shipped robot and anywhere inside the installed package, and for an existing description
    whose joint the identified gains do not fit)."""
    if not given:
        if installed(robot.path):
            raise TuningTargetError(
                f"--write-tunings: {robot.name} is a shipped robot; the tunings you identify "
                f"are yours: name a file (--write-tunings my-{robot.name}.toml writes a "
                f"description built on it)")
        return robot.path
    path = Path(given)
    if installed(path):
        raise TuningTargetError(f"--write-tunings: {path}: inside the installed servobus "
                                "package; name a file of your own")
    if path.suffix != ".toml":
        raise TuningTargetError(f"--write-tunings: {path}: a description is a .toml file")
    if path.is_file():
        _fits(robot, checked(str(path)), joint, path)
    return path


def _fits(robot: RobotFile, other: RobotFile, joint: int, path: Path) -> None:
    """The identified gains fit joint `joint` of `other` only if it is a time-triggered robot
    with that joint, the same period (gains are per sample) and the same servo and load."""
    where = f"--write-tunings: {path}"
    if other.schedule != "time-triggered" or not 1 <= joint <= len(other.joints):
        raise TuningTargetError(f"{where}: {other.name} has no servo joint {joint}")
    if other.period_ns != robot.period_ns:
        raise TuningTargetError(f"{where}: its period {other.period_ns / 1e6:g} ms is not "
                                f"{robot.name}'s {robot.period_ns / 1e6:g} ms (the gains are "
                                "per sample)")
    mine, theirs = robot.joints[joint - 1].options, other.joints[joint - 1].options
    assert mine is not None and theirs is not None  # time-triggered joints have options
    if (mine.preset, mine.alpha) != (theirs.preset, theirs.alpha):
        raise TuningTargetError(f"{where}: its joint {joint} has another servo or load than "
                                f"{robot.name}'s (preset {theirs.preset.name}, alpha "
                                f"{theirs.alpha:g}; identified: {mine.preset.name}, alpha "
                                f"{mine.alpha:g})")


def gains(result: dict, f: float) -> tuple[Gains, str]:
    """The designed tuning's gains on the identified plant, and the comment saying where they
    come from."""
    tuning, met = designed_for(result["kp"], result["q"], f)
    s, se = result["settings"], result["std_error"]
    comment = (f"{MARK}joint {s['joint']} ({s['sensing']}, alpha {s['alpha']:g}), "
               f"{s['method']} {s['seconds']:g} s, seed {s['seed']}: "
               f"K_P = {result['kp']:.6g} (SE {se['kp']:.2g}), q = {result['q']:.6g} "
               f"(SE {se['q']:.2g}) at {f:g} Hz\n"
               f"{MARK}designed: omega_d = {tuning.omega_d:.6g}, omega_i = "
               f"{tuning.omega_i:.6g}, k_kp = {tuning.k_kp:.6g} "
               f"({'meets' if met else 'misses'} the {DESIGN_OVERSHOOT_PCT:g} % overshoot "
               "target), as gains:\n")
    return Gains(*(float(x) for x in tuning.gains(result["kp"], f))), comment


def write(result: dict, robot: RobotFile, given: str, f: float) -> str:
    """Write joint N's designed tuning into the target (module docstring); its path."""
    joint = int(result["settings"]["joint"])
    path = target(robot, given, joint)
    g, comment = gains(result, f)
    lines = comment + f"tuning = {{ r_p = {g.r_p!r}, r_i = {g.r_i!r}, r_d = {g.r_d!r} }}\n"
    if path.exists():
        text = _edited(path, joint, lines)
    else:
        base = robot.path.stem if installed(robot.path) else \
            os.path.relpath(robot.path.resolve(), path.resolve().parent)
        text = (f"# {robot.name} with joint tunings from `servobus identify` "
                f"(docs/robot-file.md)\nbase = \"{base}\"\n\n[joint.{joint}]\n{lines}")
    _replace(path, text, joint, g)
    return str(path)


def _edited(path: Path, joint: int, lines: str) -> str:
    """The description's text with `lines` as the start of its [joint.N] table (the table's
    earlier tuning and identify comments dropped), or a new table at its end."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise TuningTargetError(f"--write-tunings: {path}: cannot read: {err}") from err
    rows = text.splitlines(keepends=True)
    header = re.compile(rf"\s*\[\s*joint\s*\.\s*(\"{joint}\"|'{joint}'|{joint})\s*\]\s*(#.*)?$")
    at = next((k for k, row in enumerate(rows) if header.match(row)), None)
    if at is None:
        end = "" if not text or text.endswith("\n") else "\n"
        return f"{text}{end}\n[joint.{joint}]\n{lines}"
    stop = next((k for k in range(at + 1, len(rows)) if rows[k].lstrip().startswith("[")),
                len(rows))
    kept = [row for row in rows[at + 1:stop]
            if not row.startswith(MARK) and not re.match(r"\s*tuning\s*=", row)]
    return "".join([*rows[:at + 1], lines, *kept, *rows[stop:]])


def _replace(path: Path, text: str, joint: int, g: Gains) -> None:
    """Write `text` beside `path`, check it as a description whose joint N runs `g`, then move
    it over `path` (a text that fails leaves the file as it was)."""
    draft = path.with_name(f".{path.name}.identify.toml")
    try:
        draft.write_text(text)
        try:
            written = checked(str(draft)).joints[joint - 1].options
        except RobotFileError as err:
            raise TuningTargetError(f"--write-tunings: {path}: the tuning of joint {joint} "
                                    f"cannot be written there: "
                                    f"{str(err).replace(str(draft), str(path))}") from None
        if written is None or written.tuning != g:
            raise TuningTargetError(f"--write-tunings: {path}: joint {joint}'s tuning is "
                                    "set elsewhere in the file too; give it in [joint."
                                    f"{joint}] only")
        os.replace(draft, path)
    except OSError as err:
        raise TuningTargetError(f"--write-tunings: {path}: cannot write: {err}") from err
    finally:
        draft.unlink(missing_ok=True)
