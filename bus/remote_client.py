"""The python-can-remote client as a node's bus: with python-can's receive filters applied, and
bounded against an endpoint that is not a python-can-remote server.

python-can-remote's own client waits forever for a server that accepts and never answers,
asserts on an HTTP server's answer and allocates whatever frame length a peer announces.  Here
the whole connection (TCP connect, websocket upgrade, the bus request's answer) ends within
``connect_timeout`` seconds, every later socket operation within the same time, and a frame
longer than MAX_FRAME_BYTES is an error: each is a ``can.CanError`` naming the server.
"""

import base64
import contextlib
import os
import socket
import sys
import threading
import time
from http.client import HTTPConnection, HTTPException, HTTPSConnection
from typing import Any, NoReturn
from urllib.parse import urlparse

import can
from can_remote.client import DEFAULT_SSL_CONTEXT, RemoteBus, RemoteClientProtocol
from can_remote.protocol import RemoteError, RemoteProtocolBase
from can_remote.websocket import WebSocket, WebsocketClosed, get_accept_key

# python-can-remote's messages are a CAN frame or a short JSON event: a longer frame is no
# message of that protocol (a peer of another protocol, or a corrupt length)
MAX_FRAME_BYTES = 1 << 20
PROTOCOLS = ["can.binary+json.v1", "can.json.v1"]
# what a peer of another protocol makes the handshake raise (a bad JSON text or binary frame:
# ValueError, IndexError, TypeError)
HANDSHAKE_ERRORS = (OSError, HTTPException, WebsocketClosed, RemoteError, ValueError,
                    IndexError, TypeError)


class RemoteEndpointError(can.CanInitializationError):
    """The remote endpoint is not a python-can-remote server (or stopped answering)."""


class _BoundedWebSocket(WebSocket):
    """python-can-remote's client websocket, its handshake within a deadline (a timer shuts
    the socket at the deadline, so a server that trickles bytes cannot stretch it), every
    socket operation after it within `timeout`, and frame lengths bounded."""

    def __init__(self, url: str, timeout: float) -> None:
        self._timeout, self.expired = timeout, False
        self._timer = threading.Timer(timeout, self._expire)
        self._timer.start()
        try:
            super().__init__(url, PROTOCOLS, ssl_context=DEFAULT_SSL_CONTEXT)
        except BaseException as err:
            self.fail(err)

    def fail(self, err: BaseException) -> NoReturn:
        """End a failed handshake: the socket closed, a timeout said as one."""
        self.end_handshake()
        sock = getattr(self, "socket", None)
        if sock is not None:
            sock.close()
        if isinstance(err, RemoteEndpointError) or not isinstance(err, HANDSHAKE_ERRORS):
            raise err
        if self.expired or isinstance(err, TimeoutError):
            raise RemoteEndpointError(f"no python-can-remote server answered within "
                                      f"{self._timeout:g} s") from err
        raise RemoteEndpointError(f"not a python-can-remote server ({type(err).__name__}: "
                                  f"{err})") from err

    def end_handshake(self) -> None:
        """The handshake is over (answered or failed): no deadline any more."""
        self._timer.cancel()

    def _expire(self) -> None:
        """The deadline passed: shut the socket, so that the blocked read fails."""
        self.expired = True
        sock = getattr(self, "socket", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def connect(self, protocols: list[str], headers: Any = None,
                ssl_context: Any = None) -> None:
        """The websocket upgrade, every answer checked (never an assert)."""
        parts = urlparse(self.url, scheme="ws")
        if parts.scheme not in ("ws", "wss") or not parts.netloc:
            raise RemoteEndpointError(f"{self.url!r}: use ws://HOST:PORT/ (or wss://)")
        self._ssl = parts.scheme == "wss"
        conn = (HTTPSConnection(parts.netloc, timeout=self._timeout, context=ssl_context)
                if self._ssl else HTTPConnection(parts.netloc, timeout=self._timeout))
        conn.connect()
        self.socket = conn.sock  # from now on the deadline can shut it
        if self.expired:  # it passed while connecting, before there was a socket to shut
            raise TimeoutError("the deadline passed while connecting")
        key = base64.b64encode(os.urandom(16)).decode()
        conn.request("GET", parts.path or "/", headers={
            "User-Agent": f"python-can/{can.__version__} ({sys.platform})",
            "Upgrade": "WebSocket", "Connection": "Upgrade", "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Protocol": ",".join(protocols)})
        res = conn.getresponse()
        if res.status != 101:
            raise RemoteEndpointError(f"answered HTTP {res.status} {res.reason} "
                                      f"instead of a websocket upgrade: not a python-can-remote "
                                      f"server")
        if ((res.getheader("Upgrade") or "").lower() != "websocket"
                or res.getheader("Sec-WebSocket-Accept") != get_accept_key(key)
                or res.getheader("Sec-WebSocket-Protocol") not in protocols):
            raise RemoteEndpointError(f"a websocket upgrade without the "
                                      f"python-can-remote protocol ({', '.join(protocols)})")
        self.protocol = res.getheader("Sec-WebSocket-Protocol")
        self.socket = conn.sock

    def _read_exactly(self, n: int) -> bytearray:
        """`n` bytes, refused beyond MAX_FRAME_BYTES before anything is allocated."""
        if n > MAX_FRAME_BYTES:
            raise RemoteEndpointError(f"a frame of {n} bytes (at most "
                                      f"{MAX_FRAME_BYTES}): not a python-can-remote server")
        return super()._read_exactly(n)


class _BoundedProtocol(RemoteClientProtocol):
    """The bus request, its answer awaited at most `timeout` s and checked."""

    def __init__(self, config: dict[str, Any], websocket: _BoundedWebSocket,
                 timeout: float) -> None:
        RemoteProtocolBase.__init__(self, websocket)
        self.send_bus_request(config)
        start = time.monotonic()
        event = self.recv(timeout)
        payload = event.get("payload") if isinstance(event, dict) else None
        if (not isinstance(event, dict) or event.get("type") != "bus_response"
                or not isinstance(payload, dict) or "channel_info" not in payload):
            if event is None and time.monotonic() - start >= timeout:
                raise TimeoutError("no answer to the bus request")
            raise RemoteEndpointError(f"answered the bus request with {str(event)[:80]!r}: "
                                      f"not a python-can-remote server")
        self.channel_info = f"{payload['channel_info']} on {websocket.url}"


class FilteringRemoteBus(RemoteBus):
    """python-can-remote's client overrides recv() and so skips python-can's receive filters;
    this applies them, so nodes behave the same on every backend.  Connecting ends within
    `connect_timeout` s (module docstring)."""

    def __init__(self, channel: str, connect_timeout: float, **config: Any) -> None:
        url = channel if "://" in channel else "ws://" + channel
        websocket = _BoundedWebSocket(url, connect_timeout)
        try:
            self.remote_protocol = _BoundedProtocol(config, websocket, connect_timeout)
        except BaseException as err:
            websocket.fail(err)
        websocket.end_handshake()
        if websocket.expired:  # the deadline shut the socket just as the answer came
            websocket.fail(TimeoutError("the deadline passed as the handshake ended"))
        self._timeout = connect_timeout
        self.socket = websocket.socket
        self.channel_info = self.remote_protocol.channel_info
        self.channel = channel
        can.BusABC.__init__(self, channel)

    def shutdown(self) -> None:
        """Close the connection, the server's close awaited at most the connect timeout
        (python-can-remote's own shutdown waits for it forever)."""
        if self._is_shutdown:
            return
        deadline = time.monotonic() + self._timeout
        try:
            self.remote_protocol.close()
            while (left := deadline - time.monotonic()) > 0:
                self.remote_protocol.recv(left)
        except HANDSHAKE_ERRORS:  # closed (WebsocketClosed), or a peer past answering
            pass
        finally:
            self.socket.close()
            can.BusABC.shutdown(self)

    def recv(self, timeout: float | None = None) -> can.Message | None:
        """Next frame that passes the filters, within the timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                msg = super().recv(left)
            except (WebsocketClosed, ValueError, IndexError) as err:
                raise can.CanOperationError(f"{self.channel}: {err}") from err
            if msg is None or self._matches_filters(msg):
                return msg
            if deadline is not None and left == 0.0:
                return None

