"""A GuRoo high-power board (1..3 DC joints) as a CAN node: the firmware's CAN side on the
robot's DBC (guroo.dbc, or one generated for its shape).  A board of fewer joints runs the same
three-motor firmware: its VEL_SP_b and FEEDBACK_b carry its joints' words only, the motors it
has no joint on are sent 0 and not reported.

    boot         ANNOUNCE_b (11-bit ID BOARD | 0x20, from the firmware's MSGIDH register), payload
                 the printed firmware's id[0..3]: four 16-bit words, each the board ID, low
                 byte first; the acceptance filter admits VEL_SP_b and MBX2_b's ID only
    VEL_SP_b     the CAN receive interrupt: the joints' words (16 cnt/s per LSB) into the mailbox
    remote frame of MBX2_b's ID
                 mailbox 2's auto-answer (the printed board configures it for remote requests):
                 the CAN module itself sends MBX2_b, the four words CANMBX2A..D as main last
                 wrote them, low byte first; no firmware routine runs (the board is only run up
                 to the request's arrival, so RAM is what it was then).  Before main's first
                 loop (at most one loop's timer periods after boot, 400 as printed: its count's
                 power-up phase is seeded) it has written nothing there: the emulator's RAM
                 starts zeroed, so the words are 0 (on the F243 that mailbox RAM has no reset
                 value, and ``cansetup01``, not printed, may write it).  main's copy under CANMCR's
                 change-data request happens within one timer period here, so an answer never
                 waits for it
    error frame  the CAN error interrupt: flags cleared, counted (``report()["can_errors"]``)
    every 4 ms   FEEDBACK_b: the unwrapped positions (8 cnt per LSB, saturated) and the status word
                 (bit 0 PDPINT trip latched, bit 1 current check active in the last loop, bit 2
                 fallback limit I*R - K_V*omega active, bit 3 index pulse seen, bits 4..7 the
                 board ID, bits 8..15 control loops run mod 256)

The board's simulation is advanced lazily (whole 10.05 us timer periods since boot): to
``clock.now_ns()`` before every frame it handles, to the feedback's own instant at its timer (a
late process delays the frame, not the state it carries, unless a frame handled meanwhile ran
the board further), so the node runs the same in the
lockstep simulator and on a real bus (bus.realtime).  A frame that does not decode is counted in
``rx_faults``, never raised; a refused send in ``tx_faults``.

On a bus that takes bytes (the period engine's NodeBus: ``send_data``), ``byte_handlers`` gives
the receive interrupt on VEL_SP_b's raw payload (the words are the raw signal values) and the
feedback goes out as bytes packed from RAM; same frames, same state as through can.Message.
That bus carries data frames only (its NodeBus refuses a remote frame, and no node of a run sends
one: the central supervises from FEEDBACK_b, it does not poll), so mailbox 2 answers on the
python-can paths only: the reference medium, a real bus.
"""

from collections.abc import Callable

import can

from servobus.bus.node import Clock, decode_or_count, send_bytes_or_count, send_or_count
from servobus.bus.schema import Schema
from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.plant.guroo_rig import GurooRig
from servobus.presets import guroo as pre


class GurooBoardNode:
    """High-power board `board` (its firmware's BOARD_ID, 1..15) driving `joints` (GuRoo's:
    joints 3*board-2 .. 3*board) on its motors 1, 2, 3 in order; `t1_period`, `dead_band`,
    `adc_fifo`, `pdpint`: the listing's readings (guroo_rig.GurooRig)."""

    def __init__(self, schema: Schema, board: int, *, joints: tuple[int, ...] | None = None,
                 name: str | None = None, loop: str = "2002", seed: int = 0,
                 filter_bus: bool = True, t1_period: str = pre.T1_PERIOD,
                 dead_band: bool = False, adc_fifo: str = pre.ADC_FIFOS[0],
                 pdpint: str = pre.PDPINTS[0]) -> None:
        lo, hi = pre.BOARD_IDS
        if not lo <= board <= hi:
            raise ValueError(f"board must be {lo}..{hi}, not {board}")
        self.joints = list(joints if joints is not None else
                           (3 * (board - 1) + 1 + k for k in range(g.MOTORS)))
        if not 1 <= len(self.joints) <= g.MOTORS:
            raise ValueError(f"a board drives 1..{g.MOTORS} joints, not {len(self.joints)}")
        self.schema, self.board, self.filter_bus = schema, board, filter_bus
        self.name = name or f"HP_{board}"
        self.rig = GurooRig(board, loop, seed, t1_period, dead_band, adc_fifo, pdpint)
        self.period_ns = self.rig.period_ns
        self.rig.run(0)  # load the compiled kernel now, not in the first timer period
        self._pad = (0,) * (g.MOTORS - len(self.joints))  # the motors without a joint
        self._sp_name = f"VEL_SP_{board}"
        self._sp_id = int(schema.message(self._sp_name).frame_id)
        # VEL_SP_b's and FEEDBACK_b's words (three int16, one uint16) and VEL_SP's LSB (16
        # cnt/s per word) from the DBC's codecs
        sp_codec = schema.codec(self._sp_name)
        self._sp_words, self._w_lsb = sp_codec.layout, sp_codec.scales[0]
        self._fb_words = schema.codec(f"FEEDBACK_{board}").layout
        self._mbx2_id = int(schema.message(f"MBX2_{board}").frame_id)
        self._mbx2_words = schema.codec(f"MBX2_{board}").layout  # four uint16, low byte first
        self.filters = [{"can_id": can_id, "can_mask": 0x7FF, "extended": False}
                        for can_id in (self._sp_id, self._mbx2_id)]
        self.rx_faults = 0
        self.tx_faults = 0
        self.feedback_sent = 0
        self._t0 = 0
        self._feedback_id = int(schema.message(f"FEEDBACK_{board}").frame_id)
        self._feedback_ns = schema.cycle_ns(f"FEEDBACK_{board}")
        self._send_data: Callable[[int, bytes], None] | None = None

    @property
    def boot_ns(self) -> int:
        """When the board booted (ns): its timer periods and feedback grid count from there."""
        return self._t0

    @property
    def feedback_period_ns(self) -> int:
        """FEEDBACK_b's period (the DBC's cycle time, ns)."""
        return self._feedback_ns

    def start(self, bus: can.BusABC, clock: Clock) -> None:
        """Boot: acceptance filter, announce frame, the feedback timer."""
        self.bus, self.clock = bus, clock
        self._send_data = getattr(bus, "send_data", None)
        self._t0 = clock.now_ns()
        if self.filter_bus:
            bus.set_filters(self.filters)  # type: ignore[arg-type]
        ram, announce = self.rig.ram, f"ANNOUNCE_{self.board}"
        # id[0..3] = BOARD: every word of the announce the ID (the DBC's four words)
        msg = self.schema.encode(announce, {s.name: int(ram[g.BOARD_ID])
                                            for s in self.schema.message(announce).signals})
        msg.arbitration_id = fw.standard_id(int(ram[g.MSGIDH]))  # the mailbox's own ID
        send_or_count(bus, msg, self)
        self.arm_feedback(self.next_feedback_due())

    def arm_feedback(self, at: int) -> None:
        """Arm the feedback timer for `at` (ns)."""
        self.clock.call_at(at, self.send_feedback)

    def next_feedback_due(self) -> int:
        """The grid instant of the next FEEDBACK_b (ns)."""
        return self._t0 + (self.feedback_sent + 1) * self._feedback_ns

    def ran_to(self, periods: int, feedback_sent: int) -> None:
        """An engine ran the board on its behalf: its rig's timer periods since boot and the
        feedbacks sent so far (the rig's arrays it ran in place); the next feedback is the
        engine's to arm."""
        self.rig.periods, self.feedback_sent = periods, feedback_sent

    def advance(self, upto_ns: int | None = None) -> None:
        """Run the board up to the clock's now, or to `upto_ns` (whole timer periods since boot)."""
        at = self.clock.now_ns() if upto_ns is None else upto_ns
        due = (at - self._t0) // self.period_ns - self.rig.periods
        if due > 0:
            self.rig.run(due)

    def on_message(self, msg: can.Message) -> None:
        """The CAN receive interrupt for VEL_SP_b, mailbox 2's answer to a remote frame of its
        ID; every other frame fails the filter or is passed over (a data frame of that ID)."""
        if msg.is_error_frame:
            fw.can_error_isr(self.rig.ram)
            return
        if msg.is_remote_frame and msg.arbitration_id == self._mbx2_id and \
                not msg.is_extended_id:
            self.answer_remote()
            return
        if msg.arbitration_id != self._sp_id or msg.is_extended_id:
            return
        decoded = decode_or_count(self.schema, msg, self)
        if decoded is None:
            return
        v = decoded.values
        self.advance()
        words = (*(round(float(v[f"w_{j}"]) / self._w_lsb) for j in self.joints), *self._pad)
        self.rig.set_velocity((words[0], words[1], words[2]), int(v[f"seq_{self.board}"]))

    def byte_handlers(self) -> dict[int, Callable[[int, bytes, int], None]]:
        """The receive interrupt on VEL_SP_b's raw payload (a bus of bytes)."""
        def handler(can_id: int, data: bytes, now: int) -> None:
            if len(data) != self._sp_words.size:
                self.rx_faults += 1
                return
            self.advance()
            *words, seq = self._sp_words.unpack(data)
            words += self._pad
            self.rig.set_velocity((words[0], words[1], words[2]), seq)
        return {self._sp_id: handler}

    def mailbox2_words(self) -> tuple[int, ...]:
        """CANMBX2A..D as RAM holds them (unsigned 16-bit words)."""
        return tuple(w & 0xFFFF for w in self.rig.ram[g.MBX2:g.MBX2 + 4].tolist())

    def answer_remote(self) -> None:
        """The CAN module's auto-answer of mailbox 2 to a remote frame of its ID: MBX2_b from
        the mailbox's words at the request's arrival (the board run up to it, no firmware
        routine run); queued now, so on an idle bus it starts one interframe space after the
        request's end."""
        self.advance()
        send_bytes_or_count(self.bus, self._send_data, self.schema, self._mbx2_id,
                            self._mbx2_words.pack(*self.mailbox2_words()), self)

    def feedback_words(self) -> tuple[int, ...]:
        """FEEDBACK_b's raw words from the firmware's RAM: its joints' positions / 8
        (saturated), status."""
        ram = self.rig.ram
        n = len(self.joints)
        return (*(max(min(x >> 3, 32767), -32768) for x in ram[g.POS:g.POS + n].tolist()),
                int(ram[g.STATUS]) & 0xFFFF)

    def send_feedback(self) -> None:
        """The feedback timer: FEEDBACK_b from RAM, the next on the grid."""
        # the state at the feedback's own instant: a process that runs late delays the frame,
        # not the board's clock (in lockstep the two are the same); only a set-point handled in
        # the meantime has already run the board to its own, later arrival
        self.advance(self.next_feedback_due())
        send_bytes_or_count(self.bus, self._send_data, self.schema, self._feedback_id,
                            self._fb_words.pack(*self.feedback_words()), self)
        self.feedback_sent += 1
        self.arm_feedback(self.next_feedback_due())

    def report(self) -> dict:
        """Counters and last state of the board for the run report."""
        ram = self.rig.ram
        return {
            "board": self.board, "loop": self.rig.loop, "periods": self.rig.periods,
            "readings": self.rig.readings, "pwm_period_ns": self.period_ns,
            "leds": int(ram[g.LEDS]),
            "loops_run": int(ram[g.LOOPS]), "pdpint_trips": int(ram[g.TRIPS]),
            "tripped": bool(ram[g.TRIPPED]),
            "current_limit_events": int(ram[g.CLIMIT_EVENTS]),
            "fallback_limit_events": int(ram[g.FLIMIT_EVENTS]),
            "feathering_counts_applied": int(ram[g.FEATHERED]),
            "setpoints_received": int(ram[g.RX_COUNT]), "can_errors": int(ram[g.CAN_ERRORS]),
            "last_positions_cnt": {f"joint_{j}": int(ram[g.POS + k])
                                   for k, j in enumerate(self.joints)},
            "last_currents_ma": {f"joint_{j}": int(ram[g.CURRENT_MA + k])
                                 for k, j in enumerate(self.joints)},
            "bus_voltage_mv": int(ram[g.VBUS_MV]),
            "feedback_sent": self.feedback_sent, "rx_faults": self.rx_faults,
            "tx_faults": self.tx_faults,
        }
