"""Open any bus a node can run on: our simulated bus or a python-can backend, with clear errors.

    servobus    the simulated bus in this process (channel name -> a shared simulated bus)
    virtual     python-can's in-process virtual bus
    socketcan   Linux SocketCAN (can0, vcan0); needs a kernel with AF_CAN
    remote      python-can-remote websocket client, e.g. ws://127.0.0.1:54701/ (receive
                filters applied on the client, which python-can-remote itself skips; connected
                within CONNECT_TIMEOUT_S, an endpoint of another protocol an error)

Opened with ``fd=True`` a bus carries CAN FD frames as well as classic ones: socketcan sets
CAN_RAW_FD_FRAMES on its socket and needs an interface of MTU 72 (``socketcan_bus``), servobus
makes its channel an FD bus (data phase at the nominal rate unless a ``data_bitrate`` is
given), virtual says CAN FD as its protocol, remote asks the server's bus for it.  A classic
socketcan socket neither sends nor receives FD frames: sending one is a
``can.CanOperationError`` that says so.
"""

import socket
from typing import Any

import can

INTERFACES = ("servobus", "virtual", "socketcan", "remote")
SO_RCVBUFFORCE = 33  # Linux <asm-generic/socket.h>; Python's socket module does not name it
SOCKET_RCVBUF = 8 * 1024 * 1024  # bytes of a socketcan receive queue: tens of thousands of frames
CONNECT_TIMEOUT_S = 5.0  # a network bus (remote) is connected and answering within this


class BusUnavailable(RuntimeError):
    """The requested bus cannot be opened here (and why)."""


def socketcan_available() -> bool:
    """Whether this kernel offers AF_CAN raw sockets."""
    if not hasattr(socket, "AF_CAN"):
        return False
    try:
        socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW).close()
    except OSError:
        return False
    return True


def open_bus(interface: str, channel: Any, connect_timeout: float | None = None, *,
             fd: bool = False, **kwargs: Any) -> can.BusABC:
    """A python-can bus, CAN FD when `fd`, or BusUnavailable with the reason it cannot be
    opened (a network bus that does not answer as its protocol within `connect_timeout` s,
    default CONNECT_TIMEOUT_S, too; an FD socketcan bus on an interface whose MTU is classic
    CAN's)."""
    if interface not in INTERFACES:
        raise BusUnavailable(f"unknown interface {interface!r}: use one of {', '.join(INTERFACES)}")
    if interface == "socketcan" and not socketcan_available():
        raise BusUnavailable(
            "socketcan: this kernel has no AF_CAN sockets (needs Linux with the can and can_raw "
            "modules; for a virtual test bus: modprobe vcan; ip link add dev vcan0 type vcan; "
            "ip link set up vcan0)")
    if fd and interface == "virtual":
        kwargs["protocol"] = can.CanProtocol.CAN_FD
    elif fd:
        kwargs["fd"] = True
    try:
        if interface == "remote":
            from servobus.bus.remote_client import FilteringRemoteBus  # its library: only here

            return FilteringRemoteBus(channel, connect_timeout or CONNECT_TIMEOUT_S, **kwargs)
        if interface == "socketcan":
            from servobus.bus.socketcan_bus import CheckedSocketcanBus, check_fd_mtu  # Linux's

            if fd:
                check_fd_mtu(str(channel))
            bus: can.BusABC = CheckedSocketcanBus(channel=channel, **kwargs)
        else:
            bus = can.Bus(interface=interface, channel=channel, **kwargs)
    except (OSError, can.CanError, ValueError) as err:
        raise BusUnavailable(f"{interface} {channel}: {err}") from err
    if interface == "socketcan":
        _enlarge_receive_queue(bus)
    return bus


def _enlarge_receive_queue(bus: can.BusABC) -> None:
    """A receive queue of SOCKET_RCVBUF bytes (a few hundred frames by default): a recorder or a
    node that is briefly descheduled must not lose frames the kernel already received.  As root
    the size is forced past net.core.rmem_max; otherwise the kernel caps it there."""
    sock = bus.socket  # type: ignore[attr-defined]
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, SOCKET_RCVBUF)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_RCVBUF)
