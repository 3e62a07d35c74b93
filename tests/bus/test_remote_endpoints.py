"""`--interface remote` against endpoints that are not python-can-remote servers (issue 25,
class 2): each ends within the connect timeout with an error saying what the endpoint did, never
a hang, an AssertionError or an allocation of the length a peer announced."""

import struct
import time
from collections.abc import Callable

import pytest

from servobus.bus import factory
from servobus.bus.factory import BusUnavailable, open_bus
from servobus.bus.remote_server import serve_in_thread
from servobus.tools.cli import main
from tests import endpoints

TIMEOUT_S = 0.5  # the connect timeout these tests give (the default is factory's 5 s)


def _frame(opcode: int, data: bytes) -> bytes:
    """A server's (unmasked) websocket frame of up to 125 bytes."""
    return bytes([0x80 | opcode, len(data)]) + data


@pytest.mark.parametrize("answer, message", [
    (endpoints.silent, f"no python-can-remote server answered within {TIMEOUT_S:g} s"),
    (endpoints.trickle, f"no python-can-remote server answered within {TIMEOUT_S:g} s"),
    (endpoints.http("404 Not Found", b"no such page"),
     "answered HTTP 404 Not Found instead of a websocket upgrade"),
    (endpoints.http("200 OK", b"\x00\xffgarbage"),
     "answered HTTP 200 OK instead of a websocket upgrade"),
    (endpoints.upgraded(b""), f"no python-can-remote server answered within {TIMEOUT_S:g} s"),
    (endpoints.upgraded(bytes([0x82, 127]) + struct.pack(">Q", 2**62)),
     "a frame of 4611686018427387904 bytes"),
    (endpoints.upgraded(bytes([0x82, 126]) + struct.pack(">H", 60_000) + b"x" * 10),
     f"no python-can-remote server answered within {TIMEOUT_S:g} s"),  # a frame cut short
    (endpoints.upgraded(_frame(1, b"{{{")), "not a python-can-remote server (JSONDecodeError"),
    (endpoints.upgraded(_frame(1, b"\xff\xfe")), "(UnicodeDecodeError"),
    (endpoints.upgraded(_frame(1, b"[]")), "answered the bus request with 'None'"),
    (endpoints.upgraded(_frame(1, b'{"type": "error", "payload": "no"}')), "(RemoteError: no"),
    (endpoints.upgraded(_frame(1, b'{"type": "bus_response"}')),
     "answered the bus request with"),
    (endpoints.upgraded(_frame(2, b"")), "(IndexError"),
    (endpoints.upgraded(_frame(2, bytes(15))), "answered the bus request with"),
    (endpoints.upgraded(_frame(8, b"")), "(WebsocketClosed"),
])
def test_an_endpoint_of_another_protocol_is_an_error_within_the_timeout(
        answer: Callable, message: str) -> None:
    with endpoints.serving(answer) as port:
        start = time.monotonic()
        with pytest.raises(BusUnavailable, match=f"remote ws://127.0.0.1:{port}/: .*") as err:
            open_bus("remote", f"ws://127.0.0.1:{port}/", connect_timeout=TIMEOUT_S)
        assert time.monotonic() - start < TIMEOUT_S + 0.5
    assert message in str(err.value)


def test_a_node_command_on_a_silent_endpoint_ends_with_an_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(factory, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    with endpoints.serving(endpoints.silent) as port:
        start = time.monotonic()
        assert main(["node", "time-trigger", "--interface", "remote", "--channel",
                     f"ws://127.0.0.1:{port}/", "--duration", "0.2"]) == 2
        assert time.monotonic() - start < TIMEOUT_S + 1.0
    err = capsys.readouterr().err
    assert err.startswith("error: remote ws://127.0.0.1:") and "answered within 0.5 s" in err


def test_a_server_that_stops_answering_after_the_handshake_ends_at_the_duration(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    answer = _frame(1, b'{"type": "bus_response", "payload": {"channel_info": "x"}}')
    with endpoints.serving(endpoints.upgraded(answer)) as port:
        start = time.monotonic()
        assert main(["node", "time-trigger", "--interface", "remote", "--channel",
                     f"ws://127.0.0.1:{port}/", "--duration", "0.3"]) == 0
        # the run's 0.3 s, then at most the connect timeout for the close never answered
        assert time.monotonic() - start < 0.3 + TIMEOUT_S + 1.0


def test_a_real_server_still_connects_and_a_node_runs_its_duration() -> None:
    server = serve_in_thread()
    try:
        start = time.monotonic()
        assert main(["node", "time-trigger", "--interface", "remote", "--duration", "0.3",
                     "--channel", f"ws://127.0.0.1:{server.server_port}/"]) == 0
        assert 0.3 <= time.monotonic() - start < 3.0
    finally:
        server.shutdown()
        server.server_close()


def test_remote_server_on_an_unusable_bus_is_an_error_at_once(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(factory, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    with endpoints.serving(endpoints.silent) as port:
        start = time.monotonic()
        assert main(["remote-server", "--port", "0", "--interface", "remote", "--channel",
                     f"ws://127.0.0.1:{port}/"]) == 2
        assert time.monotonic() - start < TIMEOUT_S + 1.0
    assert "no python-can-remote server answered" in capsys.readouterr().err
