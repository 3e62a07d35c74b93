"""A python-can-remote server on 127.0.0.1 (unless told otherwise) in front of any bus."""

import threading

from can_remote.server import RemoteServer

DEFAULT_PORT = 54701


def make_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT, interface: str = "virtual",
                channel: str = "servobus") -> RemoteServer:
    """The websocket server; clients connect with channel ws://host:port/."""
    return RemoteServer(host, port, bustype=interface, channel=channel)


def serve_in_thread(host: str = "127.0.0.1", port: int = 0, interface: str = "virtual",
                    channel: str = "servobus") -> RemoteServer:
    """Start a server in a daemon thread (port 0: any free port, see server.server_port)."""
    server = make_server(host, port, interface, channel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
