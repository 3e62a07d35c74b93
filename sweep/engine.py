"""Run a sweep on Dask distributed: an embedded LocalCluster or a running scheduler.

Each point is one task (`task.run_point`).  Each finished point is written at once as a small
JSON part in ``<out>.parts/`` (named by the point's key), so an interrupted sweep keeps every
finished point; the parts are then merged into the result table (``<out>`` as Parquet and the
same stem as CSV), one row per point in point order.  ``resume`` reuses the parts of the same
sweep (same fingerprint) and recomputes only the points missing or recorded as errors.  A task
whose worker dies is rescheduled once (``allowed-failures = 1`` on the embedded cluster), then
recorded as ``error: …``; only the running point is charged (``worker-saturation = 1``).  A
running scheduler keeps its own settings (docs/sweeps.md).
"""

import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servobus.sweep.spec import SweepError, SweepSpec, point_key
from servobus.sweep.task import Task, is_error, run_point, tasks

ALLOWED_FAILURES = 1  # worker deaths a task survives before it is an error
# one task per worker thread at a time: a dying worker then takes only its running point down
# with it (the scheduler counts a death against every task assigned to that worker)
SCHEDULER_CONFIG = {"distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                    "distributed.scheduler.worker-saturation": 1.0}
CONNECT_TIMEOUT_S = 10.0  # a --scheduler answers as a Dask scheduler within this, or an error


@dataclass
class Outcome:
    """A finished sweep: its rows (point order) and what was computed now."""

    rows: list[dict[str, Any]]
    computed: int
    reused: int
    wall_s: float


def parts_dir(out: Path) -> Path:
    """Where the per-point parts of `out` live."""
    return out.with_name(out.name + ".parts")


def _read_parts(folder: Path, fingerprint: str) -> dict[str, dict[str, Any]]:
    """The finished parts of this sweep (key -> row); SweepError if another sweep's."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            part = json.loads(path.read_text())
            if not (isinstance(part, dict) and isinstance(part.get("row"), dict)
                    and isinstance(part["row"].get("status"), str)):
                raise ValueError("not a part: a row with a status is missing")
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise SweepError(f"{path}: a damaged part ({err}): remove it and --resume "
                             f"computes that point again") from err
        if part.get("fingerprint") != fingerprint:
            raise SweepError(f"{path}: a part of a different sweep (the base, metrics or seed "
                             f"changed): remove {folder} or write to another --out")
        found[path.stem] = part["row"]
    return found


def _write_part(folder: Path, fingerprint: str, task: Task, row: dict[str, Any]) -> None:
    """One point's row, written atomically (a killed client leaves no half part)."""
    path = folder / f"{point_key(task.point)}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"fingerprint": fingerprint, "row": row}))
    os.replace(tmp, path)


def csv_path(out: Path) -> Path:
    """The CSV written next to the Parquet table `out`."""
    return out.with_suffix(".csv")


def write_table(rows: list[dict[str, Any]], out: Path) -> None:
    """The rows as Parquet at `out` and CSV next to it."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    pq.write_table(table, out)
    pcsv.write_csv(table, csv_path(out))


@contextmanager
def _client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Client on `scheduler`, or on an embedded LocalCluster of `workers` processes (closed
    on the way out, interrupted or not)."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler is not None:
        _probe(scheduler, CONNECT_TIMEOUT_S)
        with Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s") as client:
            yield client
        return
    # workers log at CRITICAL only: closing the cluster after Ctrl-C races their heartbeats and
    # transfers, which Dask logs with tracebacks; a point's own error is its row's status
    with dask.config.set(SCHEDULER_CONFIG):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.CRITICAL,
                               preload=["servobus.sweep.worker_signals"])
    with cluster, Client(cluster) as client:
        yield client


def _probe(address: str, timeout: float) -> None:
    """Ask `address` who it is, all within `timeout` s: Dask's own client waits forever on a
    port that accepts and never answers, and takes an HTTP server's first bytes for a frame
    length (an allocation of exbibytes), so an endpoint that is not a scheduler is a
    SweepError here first."""
    import asyncio

    from distributed.comm import connect

    async def identity() -> Any:
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(identity(), timeout))
    except Exception as err:  # whatever a peer of another protocol makes the comm raise
        reason = (f"no Dask scheduler answered within {timeout:g} s"
                  if isinstance(err, TimeoutError)
                  else f"not a Dask scheduler ({type(err).__name__}: {err})")
        raise SweepError(f"--scheduler {address}: {reason}") from err
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise SweepError(f"--scheduler {address}: answered {str(reply)[:80]!r}: not a Dask "
                         f"scheduler")


def run_sweep(spec: SweepSpec, out: Path, *, scheduler: str | None = None, workers: int = 2,
              resume: bool = False, progress: bool = True,
              on_row: Callable[[dict[str, Any]], None] | None = None,
              runner: Callable[[Task], dict[str, Any]] = run_point) -> Outcome:
    """Run every point not finished yet; write parts as they finish, then the table
    (`on_row` sees each new row as it is written; `runner` runs one point on a worker)."""
    start = time.perf_counter()
    folder = parts_dir(out)
    fingerprint = spec.fingerprint()
    finished = _read_parts(folder, fingerprint) if folder.is_dir() else {}
    if finished and not resume:
        raise SweepError(f"{folder} holds {len(finished)} finished points: --resume to keep "
                         f"them, or remove the folder")
    todo_all = tasks(spec)
    rows: dict[int, dict[str, Any]] = {}
    todo = []
    for task in todo_all:
        row = finished.get(point_key(task.point))
        if row is not None and not is_error(str(row["status"])):
            rows[task.index] = {**row, "point": task.index}
        else:
            todo.append(task)
    folder.mkdir(parents=True, exist_ok=True)

    def finish(task: Task, row: dict[str, Any]) -> None:
        _write_part(folder, fingerprint, task, row)
        rows[task.index] = row
        if on_row is not None:
            on_row(row)

    try:
        if todo:
            _compute(todo, scheduler, workers, progress, finish, runner)
    finally:
        done = [rows[k] for k in sorted(rows)]
        if done:
            write_table(done, out)

    return Outcome(done, len(todo), len(todo_all) - len(todo), time.perf_counter() - start)


def _compute(todo: list[Task], scheduler: str | None, workers: int, progress: bool,
             finish: Callable[[Task, dict[str, Any]], None],
             runner: Callable[[Task], dict[str, Any]]) -> None:
    """Submit the tasks and hand each finished row to `finish` as it arrives."""
    from distributed import as_completed
    from tqdm import tqdm

    with _client(scheduler, workers) as client:
        futures = {client.submit(runner, task, key=f"sweep-point-{point_key(task.point)}",
                                 pure=False): task for task in todo}
        with tqdm(total=len(todo), unit="point", disable=not progress) as bar:
            for future in as_completed(futures):
                task = futures[future]
                try:
                    row = future.result()
                except Exception as err:  # KilledWorker after the rerun, lost connection, ...
                    row = {**task.row_head(), "status": f"error: {type(err).__name__}: {err}"}
                finish(task, row)
                bar.update(1)
