"""One behavioural suite run against every bus backend: our simulated bus, python-can virtual,
python-can-remote through a server on 127.0.0.1, and Linux SocketCAN on vcan0 where the kernel
has AF_CAN (marker `socketcan`; skipped with the reason elsewhere, run by ci/vcan_guest.py)."""

import itertools
import warnings
from collections.abc import Iterator

import can
import pytest

from servobus.bus.factory import BusUnavailable, open_bus, socketcan_available
from servobus.bus.medium import Medium
from servobus.bus.remote_server import serve_in_thread
from servobus.bus.scheduler import Environment
from tests.socketcan_env import CHANNEL, MARKS

_channels = itertools.count()


@pytest.fixture(scope="module")
def remote_url() -> Iterator[str]:
    server = serve_in_thread("127.0.0.1", 0)
    yield f"ws://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(params=["servobus", "virtual", "remote",
                        pytest.param("socketcan", marks=MARKS)])
def pair(request: pytest.FixtureRequest) -> Iterator[tuple[can.BusABC, can.BusABC, can.BusABC]]:
    """Three nodes on one bus of the given backend."""
    kind = request.param
    if kind == "servobus":
        medium = Medium(Environment())
        buses = [open_bus("servobus", f"N{i}", medium=medium) for i in range(3)]
    elif kind == "virtual":
        channel = f"suite{next(_channels)}"
        buses = [open_bus("virtual", channel) for _ in range(3)]
    elif kind == "socketcan":
        buses = [open_bus("socketcan", CHANNEL) for _ in range(3)]
    else:
        url = request.getfixturevalue("remote_url")
        buses = [open_bus("remote", url) for _ in range(3)]
    yield buses[0], buses[1], buses[2]
    for bus in buses:
        bus.shutdown()


def _frame(can_id: int, data: bytes) -> can.Message:
    return can.Message(arbitration_id=can_id, data=data, is_extended_id=False)


def test_a_frame_reaches_every_other_node_intact(pair) -> None:
    a, b, c = pair
    a.send(_frame(0x123, b"\x01\x02\x03"))
    for rx in (b, c):
        got = rx.recv(timeout=2.0)
        assert got is not None
        assert (got.arbitration_id, bytes(got.data), got.dlc, got.is_extended_id) == (
            0x123, b"\x01\x02\x03", 3, False)


def test_frames_of_one_sender_arrive_in_order(pair) -> None:
    a, b, _ = pair
    for k in range(20):
        a.send(_frame(0x200, bytes([k])))
    got = [b.recv(timeout=2.0) for _ in range(20)]
    assert [m.data[0] for m in got if m is not None] == list(range(20))


def test_extended_ids_and_empty_payloads(pair) -> None:
    a, b, _ = pair
    a.send(can.Message(arbitration_id=0x1ABCDE12, data=b"", is_extended_id=True))
    got = b.recv(timeout=2.0)
    assert got is not None and got.is_extended_id and got.arbitration_id == 0x1ABCDE12
    assert got.dlc == 0


def test_recv_times_out_with_none(pair) -> None:
    _, b, _ = pair
    assert b.recv(timeout=0.05) is None


def test_receive_filters_apply(pair) -> None:
    a, b, _ = pair
    b.set_filters([{"can_id": 0x300, "can_mask": 0x7FF, "extended": False}])
    a.send(_frame(0x301, b"\x01"))
    a.send(_frame(0x300, b"\x02"))
    got = b.recv(timeout=2.0)
    assert got is not None and got.arbitration_id == 0x300


@pytest.mark.parametrize("kind", ["servobus", "virtual", "remote",
                                  pytest.param("socketcan", marks=MARKS)])
def test_an_fd_bus_carries_fd_frames_intact(kind: str, request: pytest.FixtureRequest) -> None:
    """Every backend opened with fd=True passes a CAN FD frame with its flags."""
    channel = {"servobus": f"fd{next(_channels)}", "virtual": f"fd{next(_channels)}",
               "socketcan": CHANNEL}.get(kind) or request.getfixturevalue("remote_url")
    a, b = open_bus(kind, channel, fd=True), open_bus(kind, channel, fd=True)
    sent = can.Message(arbitration_id=0x1ABCDEF0, is_extended_id=True, is_fd=True,
                       bitrate_switch=True, error_state_indicator=True, data=bytes(range(20)))
    try:
        a.send(sent)
        got = b.recv(timeout=2.0)
    finally:
        a.shutdown()
        b.shutdown()
    assert got is not None
    assert (got.arbitration_id, got.is_extended_id, bytes(got.data), got.is_fd,
            got.bitrate_switch, got.error_state_indicator) == (
        0x1ABCDEF0, True, bytes(range(20)), True, True, True)


def test_socketcan_is_clear_about_this_kernel() -> None:
    if socketcan_available():
        with pytest.raises(BusUnavailable, match="socketcan"):
            open_bus("socketcan", "servobus_no_such_if0")
    else:
        with pytest.raises(BusUnavailable, match="AF_CAN"):
            open_bus("socketcan", "can0")


def test_unknown_interface_and_missing_channel() -> None:
    with pytest.raises(BusUnavailable, match="unknown interface"):
        open_bus("carrier-pigeon", "x")
    with pytest.raises(BusUnavailable, match="channel name"):
        open_bus("servobus", None)
    open_bus("servobus", "N0").shutdown()  # standalone: a shared in-process simulated bus


def test_the_remote_server_opens_a_clients_bus_without_deprecated_arguments() -> None:
    # python-can-remote's server passes its own keywords to can.interface.Bus for each client:
    # a deprecated one warns there, and as an error it closes the client's connection
    server = serve_in_thread("127.0.0.1", 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            bus = open_bus("remote", f"ws://127.0.0.1:{server.server_port}/")
            bus.send(_frame(0x100, b"\x07"))
            bus.shutdown()
    finally:
        server.shutdown()
        server.server_close()
