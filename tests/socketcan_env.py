"""Whether the socketcan suite can run here: AF_CAN in the kernel and vcan0 up (as in the
guest of ci/vcan_guest.py); the `socketcan` marker and a clear skip reason otherwise."""

import re
import signal
import subprocess
import tempfile
from pathlib import Path

import can
import pytest

from servobus.bus.factory import socketcan_available
from servobus.bus.schema import Schema
from tests.processes import wait_for

CHANNEL = "vcan0"
CANDUMP_LINE = re.compile(r"\((\d+\.\d+)\) (\S+) ([0-9A-F]+)#([0-9A-F]*)")
PROBE_ID = 0x1FFFFFFF  # an extended ID no node sends: Candump's start-up probe
PROBE = f" {CHANNEL} {PROBE_ID:08X}#"
SCHEMA = Schema()
GUEST = "python3 ci/vcan_guest.py -- python3 -m pytest -m socketcan"


def skip_reason() -> str | None:
    """Why the socketcan suite cannot run here, or None when it can."""
    if not socketcan_available():
        return f"this kernel has no AF_CAN sockets; run the suite in a guest: {GUEST}"
    if not Path(f"/sys/class/net/{CHANNEL}").exists():
        return (f"AF_CAN but no {CHANNEL} (ip link add dev {CHANNEL} type vcan; "
                f"ip link set up {CHANNEL}), or run: {GUEST}")
    return None


REASON = skip_reason()
MARKS = [pytest.mark.socketcan, pytest.mark.skipif(REASON is not None, reason=REASON or "")]


class Candump:
    """can-utils' candump -L on vcan0 in the background, into a file with a large receive queue:
    the kernel's own view of the bus, complete even when a slow guest descheduled it."""

    def __enter__(self) -> "Candump":
        self._file = tempfile.NamedTemporaryFile("w+", suffix=".log")
        self.proc = subprocess.Popen(["candump", "-L", "-r", "8388608", CHANNEL],
                                     stdout=self._file, text=True)
        # its socket is bound once it prints a probe sent after it started (a fixed 0.2 s was
        # a guess a slow guest could outlast); the probes are left out of what it saw
        with can.Bus(interface="socketcan", channel=CHANNEL) as probe:
            def heard() -> bool:
                assert self.proc.poll() is None, "candump exited"
                probe.send(can.Message(arbitration_id=PROBE_ID, is_extended_id=True))
                return PROBE in Path(self._file.name).read_text()

            wait_for(heard, "candump to listen")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=10)
        self.out = self.text()
        self._file.close()

    def text(self) -> str:
        """What candump wrote so far (whole lines), the start-up probes left out."""
        text = Path(self._file.name).read_text()
        return "".join(line for line in text[:text.rfind("\n") + 1].splitlines(keepends=True)
                       if PROBE not in line)

    def count(self, prefix: str) -> int:
        """How many of the frames printed so far are messages whose name starts with `prefix`."""
        ids = {f"{m.frame_id:03X}" for m in SCHEMA.db.messages if m.name.startswith(prefix)}
        return sum(m[3] in ids for m in map(CANDUMP_LINE.fullmatch, self.text().splitlines())
                   if m)

    def wait_for_frames(self, count: int) -> None:
        """Until candump has printed `count` frames (it flushes every line)."""
        wait_for(lambda: self.text().count("\n") >= count, f"candump to print {count} frames")

    def messages(self) -> list[can.Message]:
        """The frames candump printed, in its order."""
        found = [CANDUMP_LINE.fullmatch(line) for line in self.out.splitlines()]
        assert all(found), self.out
        return [can.Message(timestamp=float(m[1]), arbitration_id=int(m[3], 16),
                            is_extended_id=len(m[3]) == 8, data=bytes.fromhex(m[4]))
                for m in found if m]
