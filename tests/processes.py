"""Test helpers for servobus commands run as other nodes would run them: as processes (stopped
with SIGINT, their JSON report read back) or as a replay thread."""

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from servobus.tools.cli import main


def servobus(*argv: str) -> subprocess.Popen:
    """`python -m servobus ARGV` in the background, its stdout piped."""
    return subprocess.Popen([sys.executable, "-m", "servobus", *argv], stdout=subprocess.PIPE,
                            text=True)


def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 120.0) -> None:
    """Poll until `condition()` holds; fail the test after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def stop(nodes: list[subprocess.Popen]) -> list[dict]:
    """Ctrl-C every node and return their JSON reports."""
    for node in nodes:
        node.send_signal(signal.SIGINT)
    return [json.loads(node.communicate(timeout=60)[0]) for node in nodes]


def kill(nodes: list[subprocess.Popen]) -> None:
    """Kill the nodes still running (a test that failed half-way)."""
    for node in nodes:
        if node.poll() is None:
            node.kill()


def replay_later(log: Path, bus: list[str]) -> threading.Thread:
    """`servobus log replay LOG BUS…` 0.3 s from now, in a thread, as another node would."""
    def go() -> None:
        time.sleep(0.3)
        main(["log", "replay", str(log), *bus])

    thread = threading.Thread(target=go)
    thread.start()
    return thread
