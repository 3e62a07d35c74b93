"""`servobus sweep` end to end on Dask: the embedded cluster, resume, a dying worker, and a
scheduler plus two workers as separate OS processes (one killed mid-sweep)."""

import functools
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cloudpickle
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from servobus.sweep import engine
from servobus.sweep.engine import parts_dir, run_sweep
from servobus.sweep.spec import SweepError, load
from servobus.sweep.task import Task, run_point
from servobus.tools.cli import main
from servobus.tools.cmd_sweep import option_types
from tests import endpoints

TYPES = option_types()  # the run command's option types

SWEEP = """\
name = "tiny"
seed = 5
metrics = ["slips", "max:tracking_max_lsb", "current_limit_events", "servo_faults_total"]
[base]
duration = "0.3s"
engine = "period"
[axes]
alpha = [1.0, 3.0]
tuning = ["R2", "R2b"]
replicate = { count = 2 }
"""
POINTS = 8
TIMEOUT_S = 120


def _normal(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as the JSON parts hold them (what two sweeps must agree on, bit for bit)."""
    return json.loads(json.dumps(rows))


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sweep") / "tiny.toml"
    path.write_text(SWEEP)
    return path


@pytest.fixture(scope="module")
def local(sweep_file: Path) -> tuple[Path, dict[str, Any]]:
    """The tiny sweep through the command line on the embedded cluster (1 worker)."""
    out = sweep_file.with_name("local.parquet")
    report_file = sweep_file.with_name("report.json")
    with report_file.open("w") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            status = main(["sweep", str(sweep_file), "--out", str(out), "--workers", "1",
                           "--json"])
        finally:
            sys.stdout = saved
    assert status == 0
    return out, json.loads(report_file.read_text())


def test_the_embedded_cluster_writes_parts_and_the_table(local: tuple[Path, dict]) -> None:
    out, report = local
    assert (report["points"], report["computed"], report["reused"]) == (POINTS, POINTS, 0)
    assert report["status"] == {"ok": POINTS}
    table = pq.read_table(out).to_pylist()
    assert [r["point"] for r in table] == list(range(POINTS))
    assert table == _normal(report["head"]) + table[len(report["head"]):]
    assert pcsv.read_csv(out.with_suffix(".csv")).num_rows == POINTS
    assert len(list(parts_dir(out).glob("*.json"))) == POINTS
    first = table[0]
    assert (first["alpha"], first["tuning"], first["replicate"]) == (1.0, "R2", 0)
    assert first["slips"] == 0 and 0 < first["max_tracking_max_lsb"] < 50
    # the same point alone, outside Dask, gives the same row
    spec = load(str(out.with_name("tiny.toml")), TYPES)
    point = spec.points()[0]
    alone = run_point(Task(0, point, spec.run_seed(point), spec.base, spec.metrics,
                           spec.measure, None))
    assert _normal([alone]) == [first]
    assert len({r["seed"] for r in table}) == POINTS


def test_resume_recomputes_only_missing_points(local: tuple[Path, dict], tmp_path: Path) -> None:
    out, _ = local
    spec = load(str(out.with_name("tiny.toml")), TYPES)
    with pytest.raises(SweepError, match="--resume"):
        run_sweep(spec, out, workers=1, progress=False)
    copy = tmp_path / "copy.parquet"
    parts_dir(copy).mkdir()
    parts = sorted(parts_dir(out).glob("*.json"))
    for part in parts[1:]:
        (parts_dir(copy) / part.name).write_text(part.read_text())
    done = run_sweep(spec, copy, workers=1, resume=True, progress=False)
    assert (done.computed, done.reused) == (1, POINTS - 1)
    assert done.rows == pq.read_table(out).to_pylist()
    changed = tmp_path / "changed.toml"
    changed.write_text(SWEEP.replace('"0.3s"', '"0.2s"'))
    with pytest.raises(SweepError, match="different sweep"):
        run_sweep(load(str(changed), TYPES), copy, workers=1, resume=True, progress=False)


def die_on_alpha_3(attempts: Path, task: Task) -> dict[str, Any]:
    """A runner that notes each attempt in `attempts`; its worker process dies on the alpha-3
    points."""
    (attempts / f"{task.index}-{uuid.uuid4().hex}").touch()
    if task.point["alpha"] == 3.0:
        os._exit(1)
    return {**task.row_head(), "status": "ok"}


def test_a_point_whose_worker_dies_is_rerun_once_then_an_error(tmp_path: Path) -> None:
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    small = tmp_path / "small.toml"
    small.write_text(SWEEP.replace('tuning = ["R2", "R2b"]', 'tuning = ["R2"]'))
    attempts = tmp_path / "attempts"
    attempts.mkdir()
    done = run_sweep(load(str(small), TYPES), tmp_path / "dies.parquet", workers=1, progress=False,
                     runner=functools.partial(die_on_alpha_3, attempts))
    assert [r["status"] for r in done.rows if r["alpha"] == 1.0] == ["ok"] * 2
    dead = [r for r in done.rows if r["alpha"] == 3.0]
    assert len(dead) == 2 and all(r["status"].startswith("error: KilledWorker") for r in dead)
    assert pq.read_table(tmp_path / "dies.parquet").num_rows == 4
    tries = Counter(int(p.name.split("-")[0]) for p in attempts.iterdir())
    assert [tries[r["point"]] for r in dead] == [2, 2]  # run, rerun after the death, error
    # a finished point whose result died with the worker before the client fetched it is
    # computed again (a lost result, not a retry): once, or twice when that happened
    assert all(tries[r["point"]] in (1, 2) for r in done.rows if r["alpha"] == 1.0)


def _start(*argv: str) -> subprocess.Popen:
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",
           "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0"}
    return subprocess.Popen([sys.executable, "-m", "dask", *argv], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    """A scheduler and two single-thread workers on 127.0.0.1, each its own OS process."""
    from distributed import Client

    info = tmp_path / "scheduler.json"
    procs = [_start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(info))]
    try:
        for _ in range(2):
            procs.append(_start("worker", "--scheduler-file", str(info), "--nthreads", "1",
                                "--nworkers", "1", "--no-nanny", "--no-dashboard",
                                "--death-timeout", str(TIMEOUT_S)))
        with Client(scheduler_file=str(info), timeout=TIMEOUT_S) as client:
            client.wait_for_workers(2, timeout=TIMEOUT_S)
            address = client.scheduler.address
        yield address, procs[1:]
    finally:
        for proc in reversed(procs):
            proc.kill()
            proc.wait(timeout=30)


def test_two_worker_processes_match_the_embedded_cluster_and_survive_a_kill(
        local: tuple[Path, dict], cluster: tuple[str, list[subprocess.Popen]],
        tmp_path: Path) -> None:
    address, workers = cluster
    out, _ = local
    kept: dict[str, str] = {}

    def kill_a_worker_at_the_first_row(row: dict[str, Any]) -> None:
        if not kept:
            kept.update({p.name: p.read_text() for p in parts_dir(remote).glob("*.json")})
            workers[1].send_signal(signal.SIGKILL)

    remote = tmp_path / "remote.parquet"
    done = run_sweep(load(str(out.with_name("tiny.toml")), TYPES), remote, scheduler=address,
                     progress=False, on_row=kill_a_worker_at_the_first_row)
    assert workers[1].wait(timeout=30) == -signal.SIGKILL
    assert len(kept) == 1 and done.computed == POINTS
    assert done.rows == pq.read_table(out).to_pylist()  # identical to the embedded cluster
    assert {p.name: p.read_text() for p in parts_dir(remote).glob("*.json")
            if p.name in kept} == kept  # the point finished before the kill was kept as is


def test_a_sweep_whose_every_point_fails_exits_2_after_its_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the host stalls over the run's end: a board is still timed out, and the metric reduces
    # that list of joint names, which fails in each point at run time
    failing = tmp_path / "failing.toml"
    failing.write_text(SWEEP.replace('"0.3s"', '"0.3s"\nfault = ["host delay 100ms at 0.25s"]')
                       .replace('"servo_faults_total"', '"max:actuation_timed_out_at_end"')
                       .replace('tuning = ["R2", "R2b"]\nreplicate = { count = 2 }\n', ''))
    out = tmp_path / "failing.parquet"
    assert main(["sweep", str(failing), "--out", str(out), "--workers", "1",
                 "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "error  2" in captured.out  # the report is printed first
    assert captured.err.startswith(f"error: every point of {failing} ended in an error "
                                   f"(point 0: error: ValueError")


@pytest.mark.parametrize("damage", ["{not json", '{"fingerprint": "x"}', "\xff\xfe",
                                    '{"fingerprint": "x", "row": {"point": 0}}', "[]"])
def test_resume_names_a_damaged_part(damage: str, sweep_file: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "damaged.parquet"
    parts_dir(out).mkdir()
    part = parts_dir(out) / "0123456789abcdef.json"
    part.write_bytes(damage.encode("latin-1"))
    assert main(["sweep", str(sweep_file), "--out", str(out), "--resume", "--no-progress"]) == 2
    assert capsys.readouterr().err.startswith(f"error: {part}: a damaged part (")


@pytest.mark.parametrize("answer, message", [
    (endpoints.silent, "no Dask scheduler answered within 0.5 s"),
    (endpoints.http("404 Not Found", b"no such page"), "no Dask scheduler answered within 0.5 s"),
    # an HTTP server's first bytes read as a frame length: 'HTTP/1.1' is 3.07 EiB
    (endpoints.greeting(b"HTTP/1.1 400 Bad Request\r\n\r\n"), "not a Dask scheduler ("),
    (endpoints.greeting(b"\x00" * 64), "not a Dask scheduler ("),
])
def test_a_scheduler_that_is_not_one_is_an_error_within_the_timeout(
        answer: Any, message: str, sweep_file: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 0.5)
    with endpoints.serving(answer) as port:
        start = time.monotonic()
        assert main(["sweep", str(sweep_file), "--scheduler", f"tcp://127.0.0.1:{port}",
                     "--out", str(tmp_path / "s.parquet"), "--no-progress"]) == 2
        assert time.monotonic() - start < 5.0
    err = capsys.readouterr().err
    assert err.startswith(f"error: --scheduler tcp://127.0.0.1:{port}: ") and message in err
