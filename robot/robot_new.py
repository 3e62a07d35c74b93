"""A new time-triggered description and its generated DBC (`servobus robot new`): a time trigger,
one servo board per joint, the PID host with consecutive actuation groups of four, every joint
option at its default -- the starting point for a robot of one's own (on CAN FD with a data bit
rate: every frame FD with BRS)."""

import tempfile
from pathlib import Path

from servobus.bus.dbc_generate import JOINTS_MAX
from servobus.robot.file_keys import RobotFileError
from servobus.robot.robot_check import check
from servobus.robot.robot_dbc import dbc_text
from servobus.robot.robot_file import NAME, load


def description_text(name: str, joints: int, period_ms: int = 4,
                     groups: list[list[int]] | None = None,
                     data_bitrate: int | None = None) -> str:
    """The TOML of a time-triggered robot `name` of `joints` joints, its DBC `name`.dbc beside
    it, the host's actuation `groups` given or consecutive fours, a CAN FD bus with
    `data_bitrate` (ValueError: a name that is not a file-name word, a joint count out of
    range)."""
    if not NAME.fullmatch(name.replace("-", "_")):
        raise ValueError(f"robot name {name!r}: letters, digits, - and _ (a file name)")
    if not 1 <= joints <= JOINTS_MAX:
        raise ValueError(f"{joints} joints: a time-triggered robot has 1..{JOINTS_MAX}")
    boards = "\n".join(f'    {{ kind = "board", name = "JOINT_{j}", id = {j}, joints = [{j}] }},'
                       for j in range(1, joints + 1))
    return (f"# {name}: a time-triggered robot of {joints} joints (servobus robot new); every "
            "key: docs/robot-file.md\n"
            f'name = "{name}"\n'
            f'title = "{name}: {joints} joints, {period_ms} ms time-triggered current '
            'references"\n'
            f"joints = {joints}\n"
            f'period = "{period_ms}ms"\n'
            "nodes = [\n"
            '    { kind = "time-trigger", name = "TIME_TRIGGER" },\n'
            f"{boards}\n"
            '    { kind = "host", name = "HOST"'
            f"{'' if groups is None else f', groups = {groups}'} }},\n"
            "]\n\n"
            "[bus]\n"
            "bitrate = 1000000\n"
            f"{'' if data_bitrate is None else f'data_bitrate = {data_bitrate}{chr(10)}'}"
            f'dbc = "{name}.dbc"\n')


def write_new(name: str, joints: int, folder: Path, period_ms: int = 4,
              groups: list[list[int]] | None = None,
              data_bitrate: int | None = None) -> tuple[Path, Path]:
    """Write `name`.toml and its generated `name`.dbc into `folder`, once the two are checked
    together (RobotFileError, nothing written: a period the frames do not fit, ...); their
    paths."""
    text = description_text(name, joints, period_ms, groups, data_bitrate)
    paths = folder / f"{name}.toml", folder / f"{name}.dbc"
    with tempfile.TemporaryDirectory() as scratch:
        draft = Path(scratch) / f"{name}.toml"
        draft.write_text(text)
        try:
            dbc = dbc_text(load(str(draft)))
            (Path(scratch) / f"{name}.dbc").write_text(dbc)
            check(load(str(draft)))
        except RobotFileError as err:  # named as the file it would have been
            raise RobotFileError(str(err).replace(str(draft), str(paths[0]))) from None
    folder.mkdir(parents=True, exist_ok=True)
    paths[0].write_text(text)
    paths[1].write_text(dbc)
    return paths
