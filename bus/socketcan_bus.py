"""python-can's SocketCAN bus as servobus opens it (``factory.open_bus``): a CAN FD frame is
checked before the kernel sees it, and an FD bus needs an interface that carries FD frames.

A raw CAN socket carries CAN FD frames only with CAN_RAW_FD_FRAMES set (python-can's
``fd=True``) and only on an interface of MTU 72 (CANFD_MTU; 16 is classic CAN's).  Otherwise
the kernel answers an FD frame's write with EINVAL alone, which python-can passes on as "Failed
to transmit: Invalid argument"; here the frame is refused with what to change.  A classic socket
never receives FD frames: the kernel does not deliver them to it.
"""

from pathlib import Path

import can
from can.interfaces.socketcan import SocketcanBus

from servobus.bus.controller import check_frame

CANFD_MTU = 72  # <linux/can.h>: sizeof(struct canfd_frame), the MTU of an FD-capable interface


class CheckedSocketcanBus(SocketcanBus):
    """python-can's socketcan bus whose send checks a CAN FD frame first: on a classic socket
    it is refused by name, and one of a length or DLC no FD controller sends is refused as on
    the simulated bus (python-can would pad its data to the next FD length unasked)."""

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        """Transmit `msg`; a CAN FD frame only on an FD socket."""
        if msg.is_fd:
            if self.protocol is not can.CanProtocol.CAN_FD:
                raise can.CanOperationError(
                    f"socketcan {self.channel}: CAN FD frame 0x{msg.arbitration_id:X} "
                    f"({len(msg.data)} bytes) refused: this socket is classic CAN; open the "
                    f"bus as CAN FD (--fd, python-can fd=True) on an interface of MTU "
                    f"{CANFD_MTU} (ip link set {self.channel} mtu {CANFD_MTU})")
            check_frame(msg, fd=True)
        super().send(msg, timeout)


def check_fd_mtu(channel: str) -> None:
    """Refuse an FD bus on an interface that carries classic CAN only: its socket would open
    but every FD frame sent on it fail.  An interface this process cannot see in /sys is left
    to python-can's bind to report."""
    try:
        mtu = int(Path(f"/sys/class/net/{channel}/mtu").read_text())
    except (OSError, ValueError):
        return
    if mtu < CANFD_MTU:
        raise ValueError(f"MTU {mtu} carries classic CAN only; for CAN FD: ip link set "
                         f"{channel} down; ip link set {channel} mtu {CANFD_MTU}; ip link set "
                         f"{channel} up")
