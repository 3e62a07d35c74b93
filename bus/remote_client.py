"""The python-can-remote client as a node's bus: with python-can's receive filters applied."""

import time

import can
from can_remote.client import RemoteBus


class FilteringRemoteBus(RemoteBus):
    """python-can-remote's client overrides recv() and so skips python-can's receive filters;
    this applies them, so nodes behave the same on every backend."""

    def recv(self, timeout: float | None = None) -> can.Message | None:
        """Next frame that passes the filters, within the timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            msg = super().recv(left)
            if msg is None or self._matches_filters(msg):
                return msg
            if deadline is not None and left == 0.0:
                return None
