"""Loaded by each worker of the embedded cluster at its start (a Dask preload): Ctrl-C in the
terminal reaches the whole process group, and only the sweep's own process acts on it (it
closes the cluster and reports); a worker that took it would die with a traceback.  Closing
the cluster after Ctrl-C can also end the scheduler just before a worker's heartbeat, which Dask
logs with a traceback; in an embedded cluster the scheduler ends only with the sweep, so that
record says nothing and is dropped."""

import logging
import signal
from typing import Any

HEARTBEAT_LOST = "Failed to communicate with scheduler during heartbeat."  # distributed.worker


class _SchedulerGone(logging.Filter):
    """Drops the worker's record of a heartbeat that found the scheduler gone."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != HEARTBEAT_LOST


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (Dask calls this in its main thread), and drop the
    lost-heartbeat record of the cluster's close."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.getLogger("distributed.worker").addFilter(_SchedulerGone())
