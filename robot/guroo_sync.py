"""The hand-over between a cyclic robot's Python nodes (GuRoo's kinds: a central, high-power
boards, at most one servo board) and its compiled period engine (``guroo_compiled``).

The robot runs on the period engine's LeanBus; the central's broadcast timer calls
``GurooEngine.on_broadcast`` instead of ``CentralNode.broadcast`` (its ``on_due`` hook), and the
boards' and the servo board's timers are armed through a ``TimerClock`` that keeps their handles.
At a broadcast due now, n whole periods (GuRoo's 2 ms) run in one compiled call when

* the bus is idle (nothing queued or in flight, no arbitration pending, the wire free by now);
* the broadcast is on the central's grid (none late) and every node timer is on that grid;
* no other event is due before T_n (the heap's next event once the nodes' timers are set
  aside), T_n is within the run's limit (``env.until + 1``): a run's end never cuts a batch;

else this broadcast and its period run in Python on the LeanBus (``counts["period"]``).  The
configuration must be one the compiled loop models (``unsupported`` says why not): a central,
then its high-power boards in its order, then its servo board (if any), as ``described`` builds
them; frames with distinct IDs; a period whose frames at their longest end before the next
broadcast.  The nodes' objects stay the truth and the engine uses their public interfaces only:
each node packs its own state into the arrays the compiled call takes and takes them back
(``CentralNode.batch_state`` / ``take_batch_state``, the servo board's likewise, the high-power
boards' rigs run in place and ``ran_to``); their timers are re-armed (``arm_broadcast``,
``arm_feedback``, ``arm_status`` at their ``next_*due``), the frames charged to the load meter
and handed to the taps (a log writer) in order, as LeanBus delivers them.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from servobus.bus.deferred_signals import deferred_signals
from servobus.bus.period_engine import LeanBus
from servobus.bus.scheduler import Environment, Handle
from servobus.host.guroo_central import CentralNode
from servobus.plant.guroo_node import GurooBoardNode
from servobus.plant.servo_board import ServoBoardNode
from servobus.robot import guroo_compiled as gc
from servobus.robot.frame_rows import COLUMNS, F_END, hand_over
from servobus.robot.period_loop import (
    B_FRAMES,
    B_FREE,
    T_ID,
    message_table,
    payload_width,
)

if TYPE_CHECKING:
    from servobus.robot.described import DescribedRobot

BATCH = 250  # periods per compiled call at most (0.5 s)


def names(central: CentralNode) -> tuple[str, ...]:
    """The nodes in the engine's order: the central, its high-power boards, its servo board."""
    return (central.name, *(b.name for b in central.hp),
            *((central.servo.name,) if central.servo else ()))


def frame_names(central: CentralNode) -> tuple[str, ...]:
    """The engine's messages in its order (``guroo_compiled``'s message indices)."""
    ids = [b.board for b in central.hp]
    return (*(f"VEL_SP_{b}" for b in ids),
            *(f"SERVO_SP_{k}" for k in range(1, central.servo_frames + 1)),
            *(f"FEEDBACK_{b}" for b in ids), *(("SERVO_STATUS",) if central.servo else ()))


def senders(central: CentralNode) -> list[int]:
    """Who sends each of ``frame_names`` (indices into ``names``)."""
    hp = len(central.hp)
    return [0] * (hp + central.servo_frames) + list(range(1, hp + 1 + bool(central.servo)))


class TimerClock:
    """A node's clock on the Environment that keeps its last timer's handle (one per node)."""

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.handle: Handle | None = None

    def now_ns(self) -> int:
        """Simulated time (ns)."""
        return self.env.now

    def call_at(self, at: int, action: Callable[[], None]) -> Handle:
        """Arm the node's timer and keep its handle."""
        self.handle = self.env.call_at(at, action)
        return self.handle


def unsupported(robot: "DescribedRobot") -> str | None:
    """Why the compiled engine cannot run this robot's steady periods (None: it can)."""
    nodes = list(robot.nodes.values())
    if not nodes or type(nodes[0]) is not CentralNode:
        return "no central node first"
    central: Any = nodes[0]
    kinds = (CentralNode, *([GurooBoardNode] * len(central.hp)),
             *([ServoBoardNode] if central.servo else []))
    order = names(central)
    if tuple(robot.nodes) != order or any(type(robot.nodes[n]) is not k for n, k in zip(
            order, kinds, strict=True)):
        return "nodes other than a central, its high-power boards and its servo board, in order"
    boards: list[Any] = [robot.nodes[n] for n in order[1:1 + len(central.hp)]]
    if [(b.board, tuple(b.joints)) for b in boards] != [(b.board, b.joints)
                                                        for b in central.hp]:
        return "high-power boards other than the central's"
    servo: Any = robot.nodes[order[-1]] if central.servo else None
    if servo is not None and (servo.board_id, servo.joints) != (central.servo.board,
                                                                central.servo.joints):
        return "a servo board other than the central's"
    schema = robot.schema
    try:
        table = message_table(schema, order, frame_names(central), senders(central))
    except ValueError as exc:
        return str(exc)
    if len(set(table[T_ID].tolist())) != table.shape[1]:  # Python nodes tell them apart by ID
        # and the loop by message: not shown equal for GuRoo, so its periods run in Python
        return "frames that share an ID"
    period = central.period_ns
    if sum(schema.worst_case_ns(n) for n in frame_names(central)) >= period:
        return "a period whose frames at their longest may end after the next broadcast"
    if len({b.feedback_period_ns for b in boards}) != 1 or \
            central.feedback_period_ns != boards[0].feedback_period_ns:
        return "high-power boards whose feedback periods differ"
    if len({b.period_ns for b in boards}) != 1:
        return "high-power boards whose PWM periods differ"
    if any(b.feedback_period_ns % period for b in boards) or (
            servo is not None and servo.status_period_ns % period):
        return "node timers off the broadcast grid"
    return None


class GurooEngine:
    """Runs a cyclic robot's steady periods in compiled batches, the rest on its LeanBus."""

    def __init__(self, robot: "DescribedRobot") -> None:
        """Take over the central's broadcast timer (before the nodes start); ``bind`` once the
        robot is on its LeanBus."""
        self.robot = robot
        self.env = robot.env
        self.central: Any = cast(Any, next(iter(robot.nodes.values())))
        central = self.central
        self.names = names(central)
        hp = len(central.hp)
        self.boards: list[Any] = [robot.nodes[n] for n in self.names[1:1 + hp]]
        self.servo: Any = robot.nodes[self.names[-1]] if central.servo else None
        self.clocks = {n: TimerClock(robot.env) for n in self.names[1:]}
        self.counts = {"compiled": 0, "period": 0}
        self.lean: LeanBus = None  # type: ignore[assignment]
        central.on_due = self.on_broadcast  # its timers from now on
        schema = robot.schema
        self.table = message_table(schema, self.names, frame_names(central))
        self.frames = np.zeros((BATCH * self.table.shape[1], COLUMNS), dtype=np.int64)
        self.data = np.zeros((BATCH * self.table.shape[1], payload_width(self.table)),
                             dtype=np.uint8)
        slots = len(central.slot_joints)
        self.samples_i = np.zeros((BATCH * slots, 2), dtype=np.int64)
        self.samples_f = np.zeros((BATCH * slots, 2))
        self.hp_ids = np.array([b.board for b in central.hp], dtype=np.int64)
        self.joints = np.array([len(b.joints) for b in central.hp], dtype=np.int64)
        self.slot_joints = np.array(central.slot_joints, dtype=np.int64)
        self.shape = np.array([central.servo_joints, central.servo_frames], dtype=np.int64)
        none = np.zeros(1)  # the servo arguments without a servo board (never reached)
        self.no_servo = (none, none, none, none, 1, np.zeros(6), np.zeros(1, dtype=np.int64),
                         np.zeros(1, dtype=np.int64), np.zeros(6, dtype=np.int64), 0, 1)

    def clock(self, name: str) -> Any:
        """The clock node `name` starts on: the boards' and servo board's keep their timers."""
        return self.clocks.get(name, self.env)

    def bind(self, lean: LeanBus) -> None:
        """The LeanBus the robot runs on (its senders in ``names`` order)."""
        if tuple(lean.names) != self.names:
            raise ValueError(f"the compiled engine needs the nodes {self.names} in that order")
        self.lean = lean

    def on_broadcast(self) -> None:
        """The central's timer: a compiled batch from here, or this period in Python."""
        if self._batch() == 0:
            self.counts["period"] += 1
            self.central.broadcast()

    def _batch(self) -> int:
        """Run as many periods compiled as may from now (the module docstring); how many."""
        env, lean, central = self.env, self.lean, self.central
        now, period = env.now, central.period_ns
        if not lean.idle(now) or central.next_due() != now:
            return 0
        handles = [c.handle for c in self.clocks.values()]
        if any(h is None or h.time < now or not central.on_grid(h.time) for h in handles):
            return 0
        with deferred_signals():  # a batch and its write-back are one step for an interrupt
            for h in handles:
                h.cancel()  # type: ignore[union-attr]
            nxt = env.peek()
            limit = min(x for x in (nxt, None if env.until is None else env.until + 1,
                                    now + BATCH * period) if x is not None)
            n = max(0, (limit - now) // period)
            if n:
                self._run(n, *central.plan_arrays(central.armed, n))
                self.counts["compiled"] += n
            self._rearm()
        return n

    def _rearm(self) -> None:
        """The boards' and servo board's next timers (as their own code arms them)."""
        for board in self.boards:
            board.arm_feedback(board.next_feedback_due())
        if self.servo is not None:
            self.servo.arm_status(self.servo.next_status_due())

    def _run(self, n: int, plan_w: np.ndarray, plan_raw: np.ndarray, plan_p: np.ndarray
             ) -> None:
        """n periods compiled; the nodes' state handed back, the frames charged and tapped."""
        env, lean, central, servo = self.env, self.lean, self.central, self.servo
        boards = self.boards
        t0 = env.now
        rigs = [b.rig for b in boards]
        periods = np.array([r.periods for r in rigs], dtype=np.int64)
        fb_sent = np.array([b.feedback_sent for b in boards], dtype=np.int64)
        servo_state = servo.batch_state() if servo is not None else None
        state = central.batch_state()
        bus = np.zeros(gc.B_SENT + 1, dtype=np.int64)
        bus[B_FREE], bus[gc.B_SENT] = lean.free_at, state.sent
        gc.forward_c(
            n, t0, central.period_ns, lean.bit_ns, self.table, bus, plan_w, plan_raw, plan_p,
            tuple(r.ram for r in rigs), tuple(r.rom for r in rigs),
            tuple(r.params for r in rigs), tuple(r.state for r in rigs),
            tuple(r.istate for r in rigs), periods,
            np.array([b.boot_ns for b in boards], dtype=np.int64), boards[0].period_ns, fb_sent,
            boards[0].feedback_period_ns,
            *(servo_state.arrays() if servo_state is not None else self.no_servo),
            state.ints, state.floats, state.last_seen, state.silent, state.faults,
            state.tripped, state.trips, state.limits,
            (central.silent_after + 1) * central.feedback_period_ns,
            central.samples is not None, self.frames, self.data, self.samples_i,
            self.samples_f, self.hp_ids, self.joints, self.slot_joints, self.shape)
        for board, p, sent in zip(boards, periods.tolist(), fb_sent.tolist(), strict=True):
            board.ran_to(p, sent)
        if servo_state is not None:
            servo.take_batch_state(servo_state)
        state.sent = int(bus[gc.B_SENT])
        s = int(bus[gc.B_SAMPLES])
        central.take_batch_state(state, (self.samples_i[:s], self.samples_f[:s]))
        self._deliver(int(bus[B_FRAMES]))
        lean.free_at = int(bus[B_FREE])
        env.advance(int(self.frames[int(bus[B_FRAMES]) - 1, F_END]))
        central.arm_broadcast(central.next_due())

    def _deliver(self, count: int) -> None:
        """The batch's frames to the load meter and the taps, in order (as LeanBus._deliver)."""
        self.lean.frames += count
        self.robot.flush_charges()
        hand_over(self.frames[:count], self.data[:count], self.robot.meter, self.lean.taps)
