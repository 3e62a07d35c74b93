"""Loaded by each worker of the embedded cluster at its start (a Dask preload): Ctrl-C in the
terminal reaches the whole process group, and only the sweep's own process acts on it (it
closes the cluster and reports); a worker that took it would die with a traceback."""

import signal
from typing import Any


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (Dask calls this in its main thread)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
