"""Fuzz every file reader through the command line: random bytes, truncations and single bit
flips of a valid file give a correct result or `error: ...` with exit status 2, no traceback."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.bus.log_reader import LogReadError, read_log
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema, SchemaError, default_dbc
from servobus.host.trajectory import TrajectoryError, default_gait, load
from servobus.tools.cli import main

TRIED: Counter[str] = Counter()  # bad inputs tried per reader, for the closing note
FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def valid(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """A valid file of every format: logs of 3 bus periods, the gait, the shipped DBC."""
    folder = tmp_path_factory.mktemp("valid")
    files = {}
    for suffix in (".log", ".asc", ".blf"):
        ScheduleSim(Schema(), log_path=str(folder / f"v{suffix}")).run(0.012)
        files[suffix] = (folder / f"v{suffix}").read_bytes()
    files[".traj"] = default_gait().to_text().encode()
    files[".dbc"] = default_dbc().read_bytes()
    return files


def _mutations(data: bytes) -> st.SearchStrategy[tuple[str, bytes]]:
    """Random bytes, a truncation, or one flipped bit of `data`."""
    flip = st.integers(0, 8 * len(data) - 1).map(
        lambda k: data[:k // 8] + bytes([data[k // 8] ^ (1 << k % 8)]) + data[k // 8 + 1:])
    return st.one_of(st.tuples(st.just("random"), st.binary(max_size=600)),
                     st.tuples(st.just("truncated"), st.integers(0, len(data) - 1).map(
                         lambda n: data[:n])),
                     st.tuples(st.just("bit flip"), flip))


def _clean(capsys: pytest.CaptureFixture[str], argv: list[str]) -> int:
    status = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert status == 0 or (status == 2 and err.startswith("error: ") and err.count("\n") == 1
                           and all(c.isprintable() for c in err.rstrip("\n"))), (status, err)
    return status


@pytest.mark.parametrize("suffix", [".log", ".asc", ".blf"])
def test_log_readers(capsys, tmp_path: Path, valid, suffix: str) -> None:
    original = [(m.arbitration_id, bytes(m.data)) for m in read_log(_write(tmp_path, suffix,
                                                                          valid[suffix]))]

    @FUZZ
    @given(_mutations(valid[suffix]))
    def fuzz(case: tuple[str, bytes]) -> None:
        kind, data = case
        TRIED[f"busload --log {suffix} ({kind})"] += 1
        path = _write(tmp_path, suffix, data)
        status = _clean(capsys, ["busload", "--log", str(path), "--json"])
        try:
            frames = [(m.arbitration_id, bytes(m.data)) for m in read_log(path, lambda _: None)]
        except (LogReadError, OSError):
            assert status == 2
            return
        assert status == 0
        if kind == "truncated":  # what is read of a cut log is the start of the log
            assert frames == original[:len(frames)]

    fuzz()


def test_trajectory_reader(capsys, tmp_path: Path, valid) -> None:
    @FUZZ
    @given(_mutations(valid[".traj"]))
    def fuzz(case: tuple[str, bytes]) -> None:
        TRIED[f"trajectory ({case[0]})"] += 1
        path = _write(tmp_path, ".traj", case[1])
        try:
            traj = load(path)
        except TrajectoryError as err:
            assert str(err).startswith(str(path)) and "\n" not in str(err)
            assert all(c.isprintable() for c in str(err))
            return
        assert traj.poses.shape[1] == 12 and len(traj.durations) == len(traj.poses)
        assert ((traj.poses >= 0) & (traj.poses < 1024)).all() and (traj.durations > 0).all()
        assert np.isfinite(traj.durations).all()

    fuzz()


def test_trajectory_through_run(capsys, tmp_path: Path, valid) -> None:
    """A few broken trajectories through `run` (valid ones would run the robot)."""
    text = valid[".traj"]
    for k, data in enumerate([b"\x00\xff" * 50, text.replace(b" 512 ", b" 5l2 ", 1),
                              text[:text.index(b"0.05") + 2] + b"\n", b"", b"\x1b[2J"]):
        TRIED["run --trajectory"] += 1
        path = _write(tmp_path, f"{k}.traj", data)
        assert _clean(capsys, ["run", "--duration", "0.01", "--trajectory", str(path)]) == 2


def test_dbc_reader(capsys, tmp_path: Path, valid) -> None:
    @FUZZ
    @given(_mutations(valid[".dbc"]))
    def fuzz(case: tuple[str, bytes]) -> None:
        TRIED[f"busload --dbc ({case[0]})"] += 1
        path = _write(tmp_path, ".dbc", case[1])
        status = _clean(capsys, ["busload", "--dbc", str(path), "--json"])
        try:
            Schema(path)
        except SchemaError:
            assert status == 2
            return

    fuzz()


def test_report_counts() -> None:
    """The counts of bad inputs tried (printed with -s), once the fuzz tests above ran."""
    if TRIED:
        print("\nbad inputs tried:", dict(sorted(TRIED.items())))
        assert all(n >= 1 for n in TRIED.values())


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / (name if not name.startswith(".") else f"fuzz{name}")
    path.write_bytes(data)
    return path
