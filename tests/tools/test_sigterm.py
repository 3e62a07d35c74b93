"""SIGTERM to a real `servobus run` process: the log is finished, the report printed, exit 143."""

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import can


def test_sigterm_keeps_the_log_and_the_report(tmp_path: Path) -> None:
    log = tmp_path / "x.blf"
    proc = subprocess.Popen([sys.executable, "-m", "servobus", "run", "--duration", "60",
                             "--log", str(log)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stderr is not None
    seen, deadline = b"", time.monotonic() + 120
    while time.monotonic() < deadline:  # the progress bar shows simulated time passing
        seen += proc.stderr.read1(4096)
        if re.search(rb"\b(0\.[1-9]|[1-9]\d*\.\d)/60\.0 sim s", seen):
            break
    else:
        proc.kill()
        raise AssertionError(f"no progress within 120 s: {seen[-300:]!r}")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    text = out.decode()
    assert text.startswith("robot run\n") and re.search(r"^interrupted\s+True$", text, re.M)
    ticks = int(re.search(r"^ticks\s+(\d+)$", text, re.M).group(1))  # type: ignore[union-attr]
    sim_s = float(re.search(r"^sim_time_s\s+(\S+)$", text, re.M).group(1))  # type: ignore[union-attr]
    assert 0.1 <= sim_s < 60 and ticks >= 25
    frames = list(can.BLFReader(str(log)))
    # every period carries the tick, 12 measurements and 3 actuation frames
    assert sum(f.arbitration_id == 0x10 for f in frames) in (ticks, ticks + 1)
    assert len(frames) >= 16 * ticks
    assert frames[-1].timestamp - frames[0].timestamp >= sim_s - 0.2
