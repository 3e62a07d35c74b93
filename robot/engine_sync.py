"""The hand-over between the robot's Python nodes and the compiled period engine.

The robot runs on the period engine's bus (``robot.engine_run``); the time trigger's timer calls
``CompiledEngine.on_tick`` instead of ``TickNode.fire`` (its ``on_due`` hook), the boards' STATUS
timers ``on_status`` (their ``on_status_due``).  At a tick due now it decides how many
whole periods may run compiled (``fast_forward``): none unless this instant is a steady period
boundary, and then only up to the next event Python must handle.  Otherwise the tick runs in
Python on the LeanBus (``engine_periods["period"]`` counts those).

A batch of n periods from the tick due at T_0 is taken only when

* the bus is idle: nothing queued, no arbitration pending, the wire free by T_0;
* the host is idle and done with its period (no backlog, no computation pending, no skipped
  ticks being drained), its player has seen a tick;
* no other event is due before T_n (the heap's next event: an operator action, a pending
  timeout, a STATUS timer not on a tick), T_n is within the run's limit, no tick drop is near
  and no host delay fault is pending before T_n; the boards' STATUS timers that fire on a tick
  wait for its decision (``on_status``) and run inside the batch every 100 ms;
* a run paced to wall time (``--realtime``) takes one period per batch, so that the clock is
  paced at every period's last event and next tick, as on the LeanBus.

The configuration must be one the compiled loop models (``unsupported`` says why not; cascade or
local-P mode, 2- or 6-byte measurements): the compiled PID bank with a current limit inside the
ACTUATION signal's range, the default supervisor, a time trigger without drift or jitter, and a
host whose computation and frames end within the period. The nodes' objects stay the truth:
after a batch the supervisor takes the periods' figures (``steady_periods``), the
host's counters, player and period number, the tick node's count and timer, the bank's clock,
the bus's free instant and frame count are written back, and the frames are charged to the load
meter and handed to the taps (a log writer) in order, as LeanBus delivers them.
"""

from collections.abc import Iterator
from functools import cache, partial
from typing import TYPE_CHECKING, Any

import numpy as np

from servobus.bus.deferred_signals import deferred_signals
from servobus.bus.period_engine import LeanBus
from servobus.bus.scheduler import NS_PER_S
from servobus.bus.schema import MODE_NAMES, TICK, actuation_name, meas_name, posref_name
from servobus.host.pid import ANTI_WINDUP, PidBank
from servobus.plant.board_node import STATUS_PERIOD_NS
from servobus.robot import engine_compiled as ec
from servobus.robot.advance import CHUNK_S
from servobus.robot.frame_rows import COLUMNS, hand_over
from servobus.robot.period_loop import B_FRAMES, B_FREE, message_table, payload_width

if TYPE_CHECKING:
    from servobus.robot.assembly import Robot

def period_names(schema: Any, meas_bytes: int, local_p: bool) -> list[str]:
    """The period's frames: TICK, a MEAS per joint, an ACTUATION (POSREF) per group."""
    return [m.name for m in schema.period_messages(meas_bytes, local_p)]


@cache
def frame_ns(schema: Any, meas_bytes: int, local_p: bool) -> tuple[int, int]:
    """The period's frames (``period_names``) and one STATUS frame at their longest
    (``Schema.worst_case_ns``, interframe space included), in ns."""
    names = period_names(schema, meas_bytes, local_p)
    period = sum(schema.worst_case_ns(n) for n in names)
    return period, max(schema.worst_case_ns(f"STATUS_{j}") for j in range(1, schema.joints + 1))


def frame_budget_ns(robot: "Robot", statuses: int = 0) -> int:
    """How long the period's frames and `statuses` STATUS frames may hold the wire: once the
    computation ends the wire is busy until the last of them, so a period whose computation
    plus this budget ends before the next tick has every frame sent before that TICK."""
    period, status = frame_ns(robot.schema, robot.meas_bytes, robot.mode == "local-p")
    return period + statuses * status


def _node_faults(robot: "Robot") -> Iterator[str]:
    """What the nodes are not, of what a compiled period needs, lazily (a caller may swap the
    controller or change the host's times after the robot is built: checked at every batch)."""
    host, tick = robot.host, robot.tick
    if host.local_p != (robot.mode == "local-p"):
        yield "a host in another mode than its boards"
    if host.meas_bytes != robot.meas_bytes:
        yield "a host with another MEAS size than its boards"
    if type(host.controller) is not PidBank:
        yield "a controller other than the compiled PID bank"
    elif not _iw_range(robot.schema, host.controller.i_max):
        yield "a current limit outside the ACTUATION signal's range"
    if host.supervisor.expected != frozenset(range(1, robot.joints + 1)):
        yield "a partial supervisor"
    if tick.jitter_ns != 0 or tick.drift_ppm != 0.0:
        yield "a time trigger with jitter or drift"
    if host.compute_ns < 0 or host.compute_ns + frame_budget_ns(robot) >= tick.period_ns:
        yield "a host computation that may not end within the period"
    if host.meas_timeout_ns >= tick.period_ns:
        yield "a measurement timeout beyond the period"


def _iw_range(schema: Any, i_max: float) -> bool:
    """Whether currents within +-i_max fit the ACTUATION signal's range."""
    lo, hi = schema.codec(actuation_name(1)).limits[0]
    return bool(lo <= -i_max and i_max <= hi)


def signals(schema: Any) -> np.ndarray:
    """The DBC's iw signal (scale, offset, range) and MEAS6 current (scale, offset), as
    ``fast_forward`` takes them (``unsupported`` checks that every joint's are the same)."""
    iw, meas6 = schema.codec(actuation_name(1)), schema.codec(meas_name(1, 6))
    return np.array([iw.scales[0], iw.offsets[0], *iw.limits[0], meas6.scales[2],
                     meas6.offsets[2]])


def message_table_of(robot: "Robot") -> np.ndarray:
    """The loop's message table (``period_loop.message_table``: TICK, MEAS_1..N or MEAS6_j,
    ACTUATION_1..G or POSREF_k, STATUS_1..N); ValueError unless the DBC's transmitters are the
    nodes that send them (the time trigger, board j, the host, board j)."""
    n, groups = robot.joints, len(robot.schema.layout.groups)
    names = [*period_names(robot.schema, robot.meas_bytes, robot.mode == "local-p"),
             *(f"STATUS_{j}" for j in range(1, n + 1))]
    nodes = [robot.tick.name, *(b.name for b in robot.boards), robot.host.name]
    boards = list(range(1, n + 1))
    return message_table(robot.schema, nodes, names, [0, *boards, *[n + 1] * groups, *boards])


def _table_error(robot: "Robot") -> str | None:
    """Why the DBC's messages do not fit the loop (``message_table_of``'s error), else None."""
    try:
        message_table_of(robot)
    except ValueError as exc:
        return str(exc)
    return None


def _status_as_packed(schema: Any) -> bool:
    """Whether STATUS_j encodes as ``_status_payload`` packs it: mode, then over-current,
    over-temperature and watchdog in bits 0..2, then CAN state, TEC and REC (0 here)."""
    for j in range(1, schema.joints + 1):
        for mode, flags in ((3, 0), (0, 1), (0, 2), (0, 4), (2, 7)):
            values = {f"mode_{j}": mode, f"over_current_{j}": flags & 1,
                      f"over_temperature_{j}": flags >> 1 & 1, f"watchdog_{j}": flags >> 2,
                      f"can_state_{j}": 0, f"tec_{j}": 0, f"rec_{j}": 0}
            try:
                if schema.encode_data(f"STATUS_{j}", values)[1] != bytes((mode, flags, 0, 0)):
                    return False
            except ValueError:
                return False
    return True


def _same_signals(schema: Any) -> bool:
    """Whether every joint's iw and MEAS6 current signals are the first joint's, and the
    integer signals (seq, position, supply's format, x_w) unscaled."""
    n, groups = schema.joints, len(schema.layout.groups)
    iw = [(c.scales, c.offsets, c.limits) for c in
          (schema.codec(actuation_name(k)) for k in range(1, groups + 1))]
    meas6 = [schema.codec(meas_name(j, 6)) for j in range(1, n + 1)]
    ints = [schema.codec(TICK), *(schema.codec(meas_name(j, 2)) for j in range(1, n + 1)),
            *(schema.codec(posref_name(k)) for k in range(1, groups + 1))]
    first = (iw[0][0][:1], iw[0][1][:1], iw[0][2][:1])
    return all(x == tuple(f * len(x[0]) for f in first) for x in iw) and \
        all((c.scales[0], c.offsets[0], c.scales[2], c.offsets[2]) ==
            (1.0, 0.0, meas6[0].scales[2], meas6[0].offsets[2]) for c in meas6) and \
        all(set(c.scales) == {1.0} and set(c.offsets) == {0.0} for c in ints)


def unsteady(robot: "Robot") -> bool:
    """Whether the nodes are, at this moment, not what a compiled period models."""
    return next(_node_faults(robot), None) is not None


def unsupported(robot: "Robot") -> str | None:
    """Why the compiled engine cannot run this robot's periods (None: it can)."""
    schema = robot.schema
    groups = schema.layout.groups
    table_error = _table_error(robot)
    checks = [
        (STATUS_PERIOD_NS % robot.tick.period_ns != 0,
         "a tick period that does not divide the STATUS period"),
        (any(node.joint != node.index + 1 for node in robot.boards), "boards out of joint order"),
        (schema.codec(TICK).layout.format != "<B", "the TICK layout"),
        (any(schema.codec(actuation_name(k)).layout.format != "<" + "h" * len(group)
             for k, group in enumerate(groups, start=1)), "the ACTUATION layout"),
        (any(schema.codec(meas_name(j, 2)).layout.format != "<H" or
             schema.codec(meas_name(j, 6)).layout.format != "<HHh"
             for j in range(1, robot.joints + 1)), "the MEAS layout"),
        (not _same_signals(schema), "signals scaled differently per joint"),
        (table_error is not None, str(table_error)),
        (not _status_as_packed(schema), "the STATUS layout"),
        (any(schema.codec(posref_name(k)).layout.format != "<" + "H" * len(group)
             for k, group in enumerate(groups, start=1)), "the POSREF layout"),
    ]
    reasons = [*_node_faults(robot), *(why for failed, why in checks if failed)]
    return ", ".join(reasons) + " run on the period engine" if reasons else None


def group_table(groups: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """The actuation groups as ``fast_forward`` takes them: row g the 0-based joints of
    ACTUATION_g+1 in frame order, -1 after its last."""
    table = np.full((len(groups), max(map(len, groups))), -1, dtype=np.int64)
    for g, group in enumerate(groups):
        table[g, :len(group)] = [j - 1 for j in group]
    return table


def _supply_raw(schema: Any, node: Any) -> int:
    """The raw supply value of the board's MEAS6 frame (its DBC encoding of a constant)."""
    codec = schema.codec(meas_name(node.joint, 6))
    values = {f"position_{node.joint}": 0, f"supply_{node.joint}": node.rig.servo.supply_v,
              f"current_{node.joint}": 0.0}
    return int(codec.layout.unpack(codec.encode(values))[1])


class CompiledEngine:
    """Runs the robot's steady periods in compiled batches, the rest on its LeanBus."""

    def __init__(self, robot: "Robot") -> None:
        """Take over the time trigger's and the boards' STATUS timers (before the nodes start,
        so that their first timers come here too); the bus is bound once the robot is wired."""
        self.robot = robot
        self.lean: LeanBus = None  # type: ignore[assignment]
        schema = robot.schema
        self.local_p = robot.mode == "local-p"
        self.meas_dlc = robot.meas_bytes
        self.groups = group_table(schema.layout.groups)
        self.table = message_table_of(robot)
        self.supply_raw = np.array([_supply_raw(schema, b) for b in robot.boards],
                                   dtype=np.int64)
        self.cpa = np.array([b.rig.counts_per_amp for b in robot.boards], dtype=float)
        self.signals = signals(schema)
        # periods per compiled call at most: every period of a CHUNK_S chunk in one call
        self.batch = round(CHUNK_S * NS_PER_S) // robot.tick.period_ns + 1
        self.periods = np.zeros((self.batch, 3), dtype=np.int64)
        self.frames = np.zeros((self.batch * self.table.shape[1], COLUMNS), dtype=np.int64)
        self.data = np.zeros((self.batch * self.table.shape[1], payload_width(self.table)),
                             dtype=np.uint8)
        self.bus = np.zeros(ec.B_LIMIT + 1, dtype=np.int64)
        self.player = np.zeros(2)
        self.counts = {"compiled": 0, "period": 0}
        self.status = np.zeros((robot.joints, 4), dtype=np.uint8)
        self.status_due = np.zeros(robot.joints, dtype=bool)
        self.status_at = np.zeros(1, dtype=np.int64)
        self._due: list[Any] = []  # boards whose STATUS timer fired at this tick's instant
        robot.tick.on_due = self.on_tick  # its timers from now on
        for node in robot.boards:
            node.on_status_due = partial(self.on_status, node)

    def bind(self, lean: LeanBus) -> None:
        """The period engine's bus the nodes are on (the batches' frames go out on it)."""
        self.lean = lean

    def clock(self, name: str) -> Any:
        """A node's clock: the robot's environment (its timers come here through the hooks)."""
        return self.robot.env

    def on_status(self, node: Any) -> None:
        """A board's STATUS timer: at a tick's instant the frame waits for that tick's decision
        (compiled, or sent first on the LeanBus); else it goes out now."""
        if self.robot.tick.next_due() == self.robot.env.now:
            self._due.append(node)
        else:
            node.send_status()

    def on_tick(self) -> None:
        """The time trigger's timer: a compiled batch from here, or this period in Python."""
        n = self._batch()
        if n == 0:
            self.counts["period"] += 1
            due, self._due = self._due, []
            for node in due:  # in timer order, as they fired (each re-arms)
                node.send_status()
            self.robot.tick.fire()
            return
        with deferred_signals():  # a batch and its write-back are one step for an interrupt
            self.counts["compiled"] += n
            self._run(n)

    def _batch(self) -> int:
        """How many periods from now may run compiled (see the module docstring)."""
        robot, lean = self.robot, self.lean
        env, tick, host = robot.env, robot.tick, robot.host
        now, period = env.now, tick.period_ns
        if unsteady(robot) or tick.due(tick.armed) != now or not lean.idle(now) or \
                not host.between_periods(now):
            return 0
        # every event of a period comes before the next tick: a period may end at until + 1
        bounds = [x for x in (env.peek(), None if env.until is None else env.until + 1)
                  if x is not None]
        limit = min(bounds) if bounds else now + self.batch * period
        for at in tick.skip_at_ns:
            if at + period > now:
                limit = min(limit, at - period)
        for at, _ in robot.host_delays:
            limit = min(limit, at)
        if self._due and host.compute_ns + frame_budget_ns(robot, len(self._due)) >= period:
            return 0  # STATUS frames that may end after the next tick: this period in Python
        most = 1 if env.realtime_factor is not None else self.batch  # paced period by period
        return max(0, min(most, (limit - now) // period))

    def _run(self, n: int) -> None:
        """Run n periods compiled and write their results back into the nodes."""
        robot, lean = self.robot, self.lean
        env, tick, host, bank = robot.env, robot.tick, robot.host, robot.bank
        ctl: Any = host.controller
        player: Any = host.player
        k0, t0 = tick.armed, env.now
        due, self._due = self._due, []
        self.status_due[:] = False
        for node in due:
            self.status_due[node.index] = True
        self.status_at[0] = t0 if due else -1
        refs, meas, currents = (np.empty((n, robot.joints)) for _ in range(3))  # kept by the log
        self.bus[B_FREE] = lean.free_at
        self.player[:] = player.clock
        ec.fast_forward_c(
            n, t0, tick.period_ns, k0, lean.bit_ns, self.table, self.bus, self.meas_dlc,
            self.supply_raw, self.cpa, self.local_p,
            bank.rams, bank.roms, bank.params, bank.states, bank.istates, bank.tables,
            bank.phase_ns, bank.done, bank.period_ns,
            *player.arrays(), self.player,
            player.paused, host.hold, host.engaged, host.measured, ctl.r_p, ctl.r_i, ctl.r_d,
            float(ctl.i_max), ANTI_WINDUP.index(ctl.anti_windup), float(ctl.a_aw), ctl.integ,
            ctl.e_prev, ctl.saturated, host.compute_ns, self.status, self.status_due,
            self.status_at, self.periods, refs, meas, currents, self.frames,
            self.data, self.signals, self.groups)
        count = int(self.bus[B_FRAMES])
        self._deliver(count)
        periods = self.periods[:n]
        tick_end, last = periods[:, ec.P_TICK_END], periods[:, ec.P_LAST_MEAS]
        host.ran_periods(k0 & 0xFF, tick_end, last, refs, meas, currents,
                         int(self.bus[ec.B_LIMIT]))
        player.clock = (float(self.player[0]), float(self.player[1]))
        bank.advanced_to(int(tick_end[-1]))
        lean.free_at = int(self.bus[B_FREE])
        lean.frames += count
        env.advance(int(periods[-1, ec.P_LAST_EVENT]))
        for node in due:  # as BoardNode.send_status re-arms, before the tick's timer
            host.board_modes[node.index] = MODE_NAMES[int(self.status[node.index, 0])]
            node.arm_status(int(self.status_at[0]))
        tick.sent_by_engine(n)

    def _deliver(self, count: int) -> None:
        """The batch's frames to the load meter and the taps, in order (as LeanBus._deliver):
        the frames the LeanBus delivered before the batch are charged first."""
        self.robot.flush_charges()
        hand_over(self.frames[:count], self.data[:count], self.robot.meter, self.lean.taps)
