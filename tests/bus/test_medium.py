"""The simulated wire: arbitration order and exact times, error frames, fault confinement,
bus-off and recovery, node faults.  Expected times come from the can-utils length oracle."""

import can
import pytest

from servobus.bus.controller import ErrorState
from servobus.bus.fault_runner import apply_script
from servobus.bus.faults import (
    CORRUPT,
    NO_ACK,
    FaultPlan,
    FaultScriptError,
    FrameFault,
    parse_fault,
)
from servobus.bus.medium import Medium
from servobus.bus.scheduler import Environment
from servobus.bus.sim_interface import SimBus
from tests.bus.canutils_oracle import cfl_exact

BIT = 1000  # ns at 1 Mbit/s


def msg(can_id: int, data: bytes) -> can.Message:
    return can.Message(arbitration_id=can_id, data=data, is_extended_id=False)


def stuffed(can_id: int, data: bytes) -> int:
    """SOF..CRC with stuff bits = total - trailer(10) - IFS(3)."""
    return cfl_exact(can_id, data) - 13


def make(n: int, faults: FaultPlan | None = None) -> tuple[Medium, list[SimBus]]:
    medium = Medium(Environment(), faults=faults)
    return medium, [SimBus(channel=f"N{i}", medium=medium) for i in range(n)]


def drain(bus: SimBus) -> list[can.Message]:
    out = []
    while (m := bus.recv(0)) is not None:
        out.append(m)
    return out


def test_arbitration_lowest_id_first_with_exact_end_of_frame_times() -> None:
    medium, (a, b, c, rx) = make(4)
    frames = {a: msg(0x300, b"\x01\x02"), b: msg(0x100, b"\x07"), c: msg(0x200, bytes(8))}
    for bus, frame in frames.items():
        bus.send(frame)
    medium.env.run()
    got = drain(rx)
    assert [m.arbitration_id for m in got] == [0x100, 0x200, 0x300]
    t, expected = 0, []
    for can_id, data in ((0x100, b"\x07"), (0x200, bytes(8)), (0x300, b"\x01\x02")):
        expected.append(t + (cfl_exact(can_id, data) - 3) * BIT)
        t += cfl_exact(can_id, data) * BIT
    assert [round(m.timestamp * 1e9) for m in got] == expected


def test_frame_queued_during_transmission_waits_then_wins_by_priority() -> None:
    medium, (a, b, c, rx) = make(4)
    a.send(msg(0x300, bytes(8)))
    medium.env.run(until=10 * BIT)  # 0x300 is on the wire
    b.send(msg(0x200, b""))
    c.send(msg(0x100, b""))
    medium.env.run()
    got = drain(rx)
    assert [m.arbitration_id for m in got] == [0x300, 0x100, 0x200]
    first = cfl_exact(0x300, bytes(8)) * BIT
    assert round(got[1].timestamp * 1e9) == first + (cfl_exact(0x100, b"") - 3) * BIT


def test_late_node_enters_arbitration_after_its_delay() -> None:
    medium, (a, b, rx) = make(3)
    apply_script(medium, ["late N0 by 300us"])
    medium.env.run(until=1)
    a.send(msg(0x001, b""))
    b.send(msg(0x700, b""))
    medium.env.run()
    got = drain(rx)
    assert [m.arbitration_id for m in got] == [0x700, 0x001]
    assert round(got[1].timestamp * 1e9) == 1 + 300_000 + (cfl_exact(0x001, b"") - 3) * BIT


def test_corrupted_frame_gives_error_frame_counters_and_retransmission() -> None:
    plan = FaultPlan(rules=[FrameFault(CORRUPT, 0x123, 0, count=1)])
    medium, (a, b, _c) = make(3, plan)
    a.send(msg(0x123, b"\xAA\x55"))
    medium.env.run(until=1)
    flag = (stuffed(0x123, b"\xAA\x55") + 3) * BIT
    medium.env.run(until=flag)
    assert (medium.controller("N0").tec, medium.controller("N1").rec) == (8, 1)
    medium.env.run()
    retry = flag + (14 + 3) * BIT
    got = drain(b)
    assert len(got) == 1 and round(got[0].timestamp * 1e9) == retry + (
        cfl_exact(0x123, b"\xAA\x55") - 3) * BIT
    assert medium.controller("N0").tec == 7 and medium.controller("N1").rec == 0
    assert medium.error_frames == 1 and plan.injected == [(0, CORRUPT, 0x123, "N0")]


def test_repeated_errors_go_passive_then_bus_off_then_recover_after_128x11_bits() -> None:
    data = b"\x01"
    plan = FaultPlan(rules=[FrameFault(CORRUPT, 0x050, 0, count=32)])
    medium, (a, b) = make(2, plan)
    a.send(msg(0x050, data))
    s = stuffed(0x050, data)
    t, states = 0, []
    for k in range(1, 33):
        flag = t + (s + 3) * BIT
        medium.env.run(until=flag)
        ctrl = medium.controller("N0")
        assert ctrl.tec == min(8 * k, 255)  # the 8-bit register reads 255 while bus-off
        states.append(ctrl.state)
        t = flag + 17 * BIT + (8 * BIT if ctrl.state is ErrorState.PASSIVE else 0)
    assert states[14] is ErrorState.ACTIVE and states[15] is ErrorState.PASSIVE
    assert states[31] is ErrorState.BUS_OFF
    recovered = flag + (6 + 128 * 11) * BIT
    medium.env.run(until=recovered - 1)
    assert medium.controller("N0").state is ErrorState.BUS_OFF
    medium.env.run(until=recovered)
    assert medium.controller("N0").state is ErrorState.ACTIVE
    medium.env.run()
    got = drain(b)
    assert len(got) == 1
    assert round(got[0].timestamp * 1e9) == recovered + (cfl_exact(0x050, data) - 3) * BIT
    assert medium.controller("N0").counters.bus_off_events == 1


def test_lone_node_without_ack_stays_error_passive() -> None:
    medium, (a,) = make(1)
    a.send(msg(0x010, b"\x00"))
    medium.env.run(until=40_000_000)
    ctrl = medium.controller("N0")
    assert ctrl.state is ErrorState.PASSIVE and ctrl.tec == 128
    assert ctrl.counters.tx_errors > 100 and ctrl.counters.bus_off_events == 0


def test_noack_rule_counts_a_transmit_error_only() -> None:
    plan = FaultPlan(rules=[FrameFault(NO_ACK, None, 0, count=2)])
    medium, (a, b) = make(2, plan)
    a.send(msg(0x010, b"\x00"))
    medium.env.run()
    assert medium.controller("N0").tec == 16 - 1 and medium.controller("N1").rec == 0
    assert len(drain(b)) == 1


def test_silenced_node_neither_sends_nor_receives_and_babbler_starves_the_bus() -> None:
    medium, (a, b, c) = make(3)
    apply_script(medium, ["silence N2 at 0s for 5ms", "babble 0x001 at 1ms for 2ms"])
    medium.env.run(until=1)
    c.send(msg(0x100, b"\x01"))
    medium.env.run(until=1_500_000)
    a.send(msg(0x010, b"\x02"))
    medium.env.run(until=3_000_000)
    assert [m.arbitration_id for m in drain(b) if m.arbitration_id != 0x001] == []
    medium.env.run(until=10_000_000)
    ids = [m.arbitration_id for m in drain(b) if m.arbitration_id != 0x001]
    assert ids == [0x010, 0x100]


def test_queue_limits_raise_or_count() -> None:
    medium = Medium(Environment())
    a = SimBus(channel="A", medium=medium, tx_queue_size=2)
    b = SimBus(channel="B", medium=medium, rx_queue_size=3)
    a.send(msg(1, b""))
    a.send(msg(2, b""))
    with pytest.raises(can.CanOperationError, match="queue full"):
        a.send(msg(3, b""))
    for k in range(4):
        medium.env.run()
        a.send(msg(10 + k, b""))
    medium.env.run()
    assert len(drain(b)) == 3 and medium.controller("B").counters.rx_overruns == 3


@pytest.mark.parametrize("line", ["explode 0x1 at 1s", "corrupt 0x1", "babble zz at 1s for 1ms",
                                  "silence N0 at soon", "random-corrupt 2", ""])
def test_bad_fault_lines_are_clear_errors(line: str) -> None:
    with pytest.raises(FaultScriptError):
        parse_fault(line)


def test_fault_on_unknown_node_names_the_nodes() -> None:
    medium, _ = make(2)
    with pytest.raises(FaultScriptError, match="N0, N1"):
        apply_script(medium, ["silence GHOST at 1s"])


def test_random_corruption_is_seeded() -> None:
    def errors(seed: int) -> list:
        medium, (a, _b) = make(2, FaultPlan(corrupt_probability=0.2, seed=seed))
        for k in range(50):
            a.send(msg(0x100 + k, b"\x00"))
            medium.env.run()
        return medium.faults.injected

    assert errors(3) == errors(3) and errors(3) != errors(4) and len(errors(3)) > 0
