"""Whether the socketcan suite can run here: AF_CAN in the kernel and vcan0 up (as in the
guest of ci/vcan_guest.py); the `socketcan` marker and a clear skip reason otherwise."""

from pathlib import Path

import pytest

from servobus.bus.factory import socketcan_available

CHANNEL = "vcan0"
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
