"""Endpoints that are not what they claim, on 127.0.0.1 (port 0), each stopping itself on the
way out: a port that accepts and never answers, an HTTP server, a websocket server that
upgrades and then sends what it is given (a huge frame length, garbage)."""

import base64
import contextlib
import hashlib
import socket
import threading
import time
from collections.abc import Callable, Iterator

WEBSOCKET_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
HELD_S = 30.0  # the longest a test server keeps a connection open (tests are far shorter)


@contextlib.contextmanager
def serving(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """A TCP server on 127.0.0.1 that runs `answer` on each connection; yields its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(conn)
            conn.settimeout(HELD_S)
            threading.Thread(target=_quietly, args=(answer, conn), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        listener.close()


def _quietly(answer: Callable[[socket.socket], None], conn: socket.socket) -> None:
    with contextlib.suppress(OSError):  # the client gave up and closed: what these are for
        answer(conn)


def silent(conn: socket.socket) -> None:
    """Accept and never answer (read what comes, say nothing)."""
    while conn.recv(4096):
        pass


def greeting(data: bytes) -> Callable[[socket.socket], None]:
    """A server that speaks first: `data` on connecting, then silence."""

    def answer(conn: socket.socket) -> None:
        conn.sendall(data)
        silent(conn)

    return answer


def http(status: str, body: bytes) -> Callable[[socket.socket], None]:
    """An HTTP server: `status` ('404 Not Found') and `body` to any request."""

    def answer(conn: socket.socket) -> None:
        _request(conn)
        conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                     + body)
        silent(conn)

    return answer


def upgraded(then: bytes) -> Callable[[socket.socket], None]:
    """A websocket server that accepts the upgrade (python-can-remote's binary protocol), reads
    the client's bus request and answers it with `then`, and nothing more."""

    def answer(conn: socket.socket) -> None:
        request = _request(conn)
        key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
                   if line.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + WEBSOCKET_GUID).digest())
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept +
                     b"\r\nSec-WebSocket-Protocol: can.binary+json.v1\r\n\r\n")
        conn.recv(4096)  # the bus request
        conn.sendall(then)
        silent(conn)

    return answer


def trickle(conn: socket.socket) -> None:
    """An HTTP answer one byte at a time, a byte every 0.2 s (it never ends in a test)."""
    _request(conn)
    for byte in b"HTTP/1.1 101 Switching Protocols\r\n" * 100:
        conn.sendall(bytes([byte]))
        time.sleep(0.2)


def _request(conn: socket.socket) -> bytes:
    """An HTTP request's head."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data
