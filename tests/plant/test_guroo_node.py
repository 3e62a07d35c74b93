"""The GuRoo high-power board node on a simulated bus with a tiny VEL_SP sender."""

import can

from servobus.bus.frame_bits import IFS_BITS
from servobus.bus.medium import FrameRecord, Medium
from servobus.bus.node import Clock, attach_sim
from servobus.bus.scheduler import Environment
from servobus.bus.schema import Schema, shipped_dbc
from servobus.bus.sim_interface import SimBus
from servobus.firmware import guroo_memory as g
from servobus.plant.guroo_node import GurooBoardNode
from tests.fakes import LateClock, ListBus

SCHEMA = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))


class Sender:
    """Broadcasts VEL_SP_2 every 2 ms (joints 4..6), a foreign frame and one bad frame."""

    name = "CENTRAL"

    def __init__(self, words: tuple[int, int, int]) -> None:
        self.words, self.seq, self.tx_faults = words, 0, 0

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        self.bus, self.clock = bus, clock
        clock.call_at(0, self.send)
        short = can.Message(arbitration_id=SCHEMA.message("VEL_SP_2").frame_id, data=b"\x01",
                            is_extended_id=False)  # undecodable: counted by the board
        clock.call_at(1_000_000, lambda: bus.send(short))
        clock.call_at(1_500_000, lambda: bus.send(SCHEMA.encode("VEL_SP_3", {
            "w_7": 1600, "w_8": 0, "w_9": 0, "seq_3": 0})))

    def send(self) -> None:
        w = self.words
        self.bus.send(SCHEMA.encode("VEL_SP_2", {"w_4": 16 * w[0], "w_5": 16 * w[1],
                                                 "w_6": 16 * w[2], "seq_2": self.seq}))
        self.seq = (self.seq + 1) & 0xFFFF
        self.clock.call_at(self.clock.now_ns() + 2_000_000, self.send)

    def on_message(self, msg: can.Message) -> None:
        """The sender listens to nothing."""


def test_board_node_tracks_broadcast_setpoints() -> None:
    medium = Medium(Environment())
    listener = SimBus(channel="LISTENER", medium=medium)
    node = GurooBoardNode(SCHEMA, 2)
    attach_sim(node, medium)
    attach_sim(Sender((2000, -1000, 0)), medium)
    medium.env.run(until=300_000_000)
    frames = []
    while (m := listener.recv(0)) is not None:
        frames.append(m)
    announce = [m for m in frames if m.arbitration_id == 0x22]
    assert len(announce) == 1 and announce[0].data == bytes([2, 0]) * 4
    feedback = [SCHEMA.decode(m).values for m in frames
                if m.arbitration_id == SCHEMA.message("FEEDBACK_2").frame_id]
    assert len(feedback) == 74  # 4, 8, ..., 296 ms (the 300 ms frame is still on the wire)
    last = feedback[-1]
    # 32000 and -16000 cnt/s for ~0.3 s less the start-up lag: positions within 2 %
    assert 0.98 * 32000 * 0.3 - 600 < last["x_4"] < 32000 * 0.3
    assert -16000 * 0.3 < last["x_5"] < 0.98 * -16000 * 0.3 + 300
    assert abs(last["x_6"]) <= 8
    status = int(last["status_2"])
    assert status >> 4 & 15 == 2 and status & 1 == 0
    assert status >> 8 == 74  # loops run: one per 4 ms
    report = node.report()
    assert report["rx_faults"] == 1 and report["tx_faults"] == 0 and report["can_errors"] == 0
    node.on_message(can.Message(is_error_frame=True))
    assert node.report()["can_errors"] == 1 and node.rx_faults == 1
    assert report["setpoints_received"] == 150 and report["pdpint_trips"] == 0
    assert report["loops_run"] == 75 and report["feathering_counts_applied"] > 0
    assert node.name == "HP_2"


def test_the_boot_announce_is_the_printed_four_words_of_the_board_id() -> None:
    """Appendix B: id[0..3] = BOARD; can_transmit(p_id, (BOARD | 0x20) << 2).  Board 3: a
    standard frame of ID 0x23, DLC 8, words 3, 3, 3, 3, each low byte first."""
    clock, bus = LateClock(0), ListBus()
    GurooBoardNode(SCHEMA, 3, filter_bus=False).start(bus, clock)
    bus.shutdown()
    announce = bus.sent[0]
    assert announce.arbitration_id == 0x23 and not announce.is_extended_id
    assert announce.dlc == 8 and bytes(announce.data) == b"\x03\x00\x03\x00\x03\x00\x03\x00"


def test_board_node_on_a_real_time_runner() -> None:
    from servobus.bus.realtime import RealtimeRunner

    channel = "guroo_node_rt_test"
    with can.Bus(interface="virtual", channel=channel) as central, \
            can.Bus(interface="virtual", channel=channel) as board_bus:
        node = GurooBoardNode(SCHEMA, 1)
        central.send(SCHEMA.encode("VEL_SP_1", {"w_1": 32000, "w_2": 0, "w_3": -8000,
                                                "seq_1": 7}))
        RealtimeRunner(board_bus, [node]).run(duration_s=0.2)
        frames = []
        while (m := central.recv(0)) is not None:
            frames.append(m)
    assert frames[0].arbitration_id == 0x21 and frames[0].data == bytes([1, 0]) * 4
    feedback = [SCHEMA.decode(m).values for m in frames[1:]]
    # every 4 ms from the node's start (t0, just after the clock's) to the end of the 0.2 s,
    # however late the process ran: 49 (50 if it started at 0)
    assert len(feedback) == (200_000_000 - node._t0) // 4_000_000
    last = feedback[-1]
    t = 0.004 * len(feedback)
    # the state at the last 4 ms instant: each joint short of its set-point's travel; both set
    # off when the process first read the set-point (a stall delays both alike), so they keep
    # the set-points' ratio -4 to within the loop's lag (272 counts at 0.2 s in lockstep)
    assert 0.25 * 32000 * t < last["x_1"] < 32000 * t
    assert -8000 * t < last["x_3"] < 0
    assert abs(last["x_1"] + 4 * last["x_3"]) <= 400
    assert node.report()["setpoints_received"] == 1


def test_a_late_feedback_timer_carries_the_state_at_its_own_instant() -> None:
    """CI's failure: a feedback fired 1 ms late carried 1 ms more travel (x_3 = -1608 at 0.2 s
    for -8000 cnt/s); the frame is late, the positions are those of its 4 ms instant."""
    payloads = []
    for late_ns in (0, 1_000_000, 3_900_000):
        clock, bus = LateClock(late_ns), ListBus()
        node = GurooBoardNode(SCHEMA, 1, filter_bus=False)
        node.start(bus, clock)
        node.on_message(SCHEMA.encode("VEL_SP_1", {"w_1": 32000, "w_2": 0, "w_3": -8000,
                                                   "seq_1": 7}))
        for _ in range(10):
            clock.fire_next()
        bus.shutdown()
        payloads.append([bytes(m.data) for m in bus.sent[1:]])
        assert node.rig.periods == 3980  # 40 ms of 10.05 us periods, whatever the lateness
        last = SCHEMA.decode(bus.sent[-1]).values
        # the travel, give or take a few ms: the step's lag, then its overshoot (measured 70 %
        # at 248.8 Hz with the outputs 1.28 ms late)
        assert -8000 * 0.045 < last["x_3"] < -8000 * 0.030
    assert payloads[0] == payloads[1] == payloads[2]


def test_mailbox_2_answers_a_remote_frame_with_the_words_main_last_wrote() -> None:
    """Appendix B: mailbox 2 is configured for remote requests and main copies data[0..3] into
    it after every loop (as compiled 0x0123, 0x4567, 0x89AB, 0xCDEF); the CAN module answers a
    remote frame of its ID by itself.  Board 3: MBX2_3, ID 0x033, DLC 8, words low byte first,
    one interframe space after the request on an idle bus; before main's first loop the
    mailbox holds what RAM starts with, zeros."""
    medium = Medium(Environment())
    records: list[FrameRecord] = []
    medium.taps.append(records.append)
    requester = SimBus(channel="REQUESTER", medium=medium)
    node = GurooBoardNode(SCHEMA, 3)
    attach_sim(node, medium)
    mbx2 = SCHEMA.message("MBX2_3").frame_id
    assert mbx2 == 0x033
    request = can.Message(arbitration_id=mbx2, is_extended_id=False, is_remote_frame=True, dlc=8)
    replies = []
    for at_ns in (300_000, 10_000_000):  # the bus idle: the announce over, no feedback due
        medium.env.call_at(at_ns, lambda: requester.send(request))
        medium.env.run(until=at_ns + 1_000_000)
        frames = []
        while (m := requester.recv(0)) is not None:
            frames.append(m)
        reply = [m for m in frames if m.arbitration_id == mbx2]
        assert len(reply) == 1 and not reply[0].is_remote_frame and reply[0].dlc == 8
        replies.append((int(node.rig.ram[g.LOOPS]), bytes(reply[0].data)))
        last = reply[0]
        asked, answered = [r for r in records if r.msg.arbitration_id == mbx2][-2:]
        assert asked.msg.is_remote_frame and asked.start_ns == at_ns and asked.sender == \
            "REQUESTER"
        assert answered.sender == "HP_3" and answered.ok
        assert answered.start_ns == asked.end_ns + IFS_BITS * medium.bit_ns == asked.busy_until_ns
    (loops_before, before), (loops_after, after) = replies  # main's loops at each request
    assert loops_before == 0 and before == bytes(8)
    assert loops_after >= 1 and after == bytes.fromhex("23 01 67 45 AB 89 EF CD")
    assert node.rx_faults == node.tx_faults == 0
    assert SCHEMA.decode(last).values == {
        "mbx2_3_0": 0x0123, "mbx2_3_1": 0x4567, "mbx2_3_2": 0x89AB, "mbx2_3_3": 0xCDEF}
