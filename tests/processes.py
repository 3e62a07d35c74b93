"""Test helpers for servobus commands run as other nodes would run them: as processes (stopped
with SIGINT, their JSON report read back) or as a replay thread, started once the command under
test listens."""

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import can
import pytest

from servobus.tools.cli import main

# a capture of a recorded 100 ms schedule (400 frames) ends at its last frame, not at a
# wall-clock time: a slow CI guest once took over 1.2 s to replay those 100 ms
UNTIL_400 = ["--frames", "400", "--duration", "120"]


def json_report(text: str) -> dict:
    """The JSON report in a command's output (a replay thread prints its table beside it)."""
    return json.JSONDecoder().raw_decode(text[text.index("{"):])[0]


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


def waiting_for_frames(process: subprocess.Popen) -> bool:
    """Whether `process` sleeps in its receive wait (a select or poll): the frames queued to it
    so far are read.  A process with frames queued never sleeps there, however descheduled.
    Where the kernel does not say where it sleeps (user-mode Linux: `um_set_signals`; or
    hidden: 0), sleeping is taken as that wait (these processes sleep nowhere else)."""
    proc = Path(f"/proc/{process.pid}")
    stat = (proc / "stat").read_text()
    wchan = (proc / "wchan").read_text() if (proc / "wchan").exists() else "0"
    where_said = wchan != "0" and not wchan.startswith("um_")
    return stat[stat.rindex(")") + 2] == "S" and (
        not where_said or "select" in wchan or "poll" in wchan)


def wait_until_read(process: subprocess.Popen) -> None:
    """Until `process` (a node or recorder on a real bus) has read the frames queued to it:
    waiting for frames at three looks 50 ms apart (a fixed sleep was a guess a slow guest
    could outlast)."""
    looks = [False] * 3

    def idle() -> bool:
        looks.append(waiting_for_frames(process))
        return all(looks[-3:])

    wait_for(idle, "the process to read its frames")


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


def replay_in_thread(log: Path, bus: list[str],
                     after: threading.Event | None = None) -> threading.Thread:
    """`servobus log replay LOG BUS…` in a thread, as another node would: at once, or once
    `after` is set (see `when_opened`)."""
    def go() -> None:
        if after is not None:
            assert after.wait(timeout=120), "the capture never opened its bus"
        main(["log", "replay", str(log), *bus])

    thread = threading.Thread(target=go)
    thread.start()
    return thread


def when_opened(monkeypatch: pytest.MonkeyPatch, command: ModuleType) -> threading.Event:
    """An event set once the command module `command` has opened its bus: a replay started then
    loses no frame, however slow the command's start-up on a loaded machine."""
    opened = threading.Event()
    real = command.open_bus

    def open_and_tell(*args: object, **kwargs: object) -> can.BusABC:
        bus = real(*args, **kwargs)
        opened.set()
        return bus

    monkeypatch.setattr(command, "open_bus", open_and_tell)
    return opened
