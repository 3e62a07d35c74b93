"""A python-can-remote server on 127.0.0.1 (unless told otherwise) in front of any bus."""

import threading

from can_remote.server import RemoteServer

from servobus.bus.factory import INTERFACES, open_bus

DEFAULT_PORT = 54701


def make_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT, interface: str = "virtual",
                channel: str = "servobus", fd: bool = False) -> RemoteServer:
    """The websocket server; clients connect with channel ws://host:port/.  With `fd` every
    client's bus is CAN FD, whatever the client asks.

    The bus is opened once here (and closed) so that an unusable one (no AF_CAN for socketcan,
    an unknown interface) is an error before serving, not a failure of the first client."""
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is outside 0..65535 (0: any free port)")
    if interface == "servobus":
        raise ValueError("the simulated bus lives inside one process: serve "
                         f"{', '.join(INTERFACES[1:])} instead")
    open_bus(interface, channel, fd=fd).shutdown()
    forced = {"fd": True} if fd else {}
    return RemoteServer(host, port, interface=interface, channel=channel, **forced)


def serve_in_thread(host: str = "127.0.0.1", port: int = 0, interface: str = "virtual",
                    channel: str = "servobus") -> RemoteServer:
    """Start a server in a daemon thread (port 0: any free port, see server.server_port)."""
    server = make_server(host, port, interface, channel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
