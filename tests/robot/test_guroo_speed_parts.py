"""The GuRoo run's fast parts equal what they replace: the RC servos' compiled steps equal the
numpy model, every node's byte path (raw payloads in, struct-packed payloads out) gives the
schema codec's bytes and the can.Message path's state, the batched load charges the meter's
per-frame ones."""

import random
import struct
from collections.abc import Callable
from typing import Any

import can
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import load_kernel
from servobus.bus.load_meter import LoadMeter
from servobus.bus.schema import Schema, shipped_dbc
from servobus.host import guroo_central as gc
from servobus.host.guroo_central import CentralNode
from servobus.host.guroo_trajectory import Gait, Moves, default_walk
from servobus.plant.guroo_node import GurooBoardNode
from servobus.plant.rc_servo import RCServoBank
from servobus.plant.servo_board import ServoBoardNode
from servobus.robot.charge_batch import BatchedCharges

SCHEMA = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))
MS = 1_000_000


class Clock:
    """A settable clock whose timers are kept, not run."""

    def __init__(self) -> None:
        self.now = 0
        self.timers: list[tuple[int, Callable[[], None]]] = []

    def now_ns(self) -> int:
        return self.now

    def call_at(self, at: int, action: Callable[[], None]) -> None:
        self.timers.append((at, action))


class Bus:
    """Collects what a node sends, as (id, bytes); `data` gives it the engine's send_data."""

    state = can.BusState.ACTIVE

    def __init__(self, data: bool) -> None:
        self.sent: list[tuple[int, bytes]] = []
        if data:
            self.send_data = lambda can_id, payload: self.sent.append((can_id, bytes(payload)))

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        self.sent.append((msg.arbitration_id, bytes(msg.data)))

    def set_filters(self, filters: Any = None) -> None:
        """Accept everything."""


def _started(node: Any, data: bool) -> tuple[Any, Clock, Bus]:
    clock, bus = Clock(), Bus(data)
    node.start(bus, clock)
    return node, clock, bus


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 400))
def test_compiled_servo_steps_equal_the_numpy_model_bit_for_bit(seed: int, steps: int) -> None:
    rng = np.random.default_rng(seed)
    compiled, model = (RCServoBank(8, theta0=rng.uniform(-0.3, 0.3, 8)) for _ in range(2))
    model.theta = compiled.theta.copy()
    for k, pulse in enumerate(rng.integers(600, 2400, 8)):
        compiled.set_pulse(k, int(pulse))
        model.set_pulse(k, int(pulse))
    compiled.advance_to(steps * compiled.step_ns + 123)
    for _ in range(steps):
        model.step()
    assert compiled.t_ns == model.t_ns == steps * model.step_ns
    for name in ("theta", "omega", "max_error"):
        assert getattr(compiled, name).tobytes() == getattr(model, name).tobytes(), name


def test_servo_words_round_trip_exactly_over_the_int16_range() -> None:
    """Every raw word the central packs (clipped to int16) encodes to the same bytes through the
    codec (p * 1 mrad scaled back rounds to p, within the DBC's limits), and the servo board's
    p * 1000 rounds back to it: the central never needs the codec."""
    codec = SCHEMA.codec("SERVO_SP_1")
    packed = struct.Struct("<hhhh")  # the four int16 words as the central packs them
    for p in range(-32768, 32768):
        words = (p, ~p, p >> 1, -(p >> 3))
        values = {f"p_{16 + i}": w * 0.001 for i, w in enumerate(words)}
        assert codec.encode(values) == packed.pack(*words)
        assert round(values["p_16"] * 1000) == p


def test_central_broadcast_bytes_equal_the_schema_codec() -> None:
    central, clock, bus = _started(CentralNode(SCHEMA, default_walk()), data=True)
    reference, ref_clock, ref_bus = _started(CentralNode(SCHEMA, default_walk()), data=False)
    # 6 s of the walk, every 7th broadcast instant, then jumps past the central's lookahead
    for k in [*range(0, 3000, 7), 3001, 3400, 3401, 9000, 8999]:
        clock.now = ref_clock.now = k * 2 * MS
        central._k = reference._k = k
        central.broadcasts = reference.broadcasts = k
        central.broadcast()
        reference.broadcast()
        w, p = _commands(central.gait.state(k * 2 * MS / 1e9))
        expected = [SCHEMA.encode_data(f"VEL_SP_{b}", {
            **{f"w_{3 * b - 2 + i}": w[3 * b - 3 + i] for i in range(3)}, f"seq_{b}": k})
            for b in range(1, 6)]
        expected += [SCHEMA.encode_data(f"SERVO_SP_{h}", {
            f"p_{12 + 4 * h + i}": p[4 * h - 4 + i] * 0.001 for i in range(4)}) for h in (1, 2)]
        assert bus.sent[-7:] == ref_bus.sent[-7:] == expected
    assert central._commanded == reference._commanded and any(central._commanded)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_gait_states_equal_state_at_every_time(seed: int) -> None:
    rng = random.Random(seed)
    chains = [Moves(tuple(rng.uniform(-1, 1) for _ in range(n)),
                    tuple(rng.uniform(0.05, 1.0) for _ in range(n)))
              for n in (rng.randrange(4) for _ in range(46))]
    gaits = [default_walk(), Gait(tuple(chains[:23]), tuple(chains[23:]))]
    for gait in gaits:
        ts = [rng.uniform(-0.5, 20.0) for _ in range(60)] + [0.0, gait.start_s, gait.cycle_s]
        velocity, position = gait.states(ts)
        for t, v, x in zip(ts, velocity, position, strict=True):
            omega, theta = gait.state(t)
            assert v.tobytes() == omega.tobytes() and x.tobytes() == theta.tobytes(), t


def _commands(state: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The set-points as first written: clip(round(w C / 16) 16), clip(round(theta / 1 mrad))."""
    omega, theta = state
    w = np.clip(np.round(omega[:15] * gc.COUNTS_PER_RAD / 16) * 16, -32768 * 16, 32767 * 16)
    return w, np.clip(np.round(theta[15:23] / 0.001), -32768, 32767)


class _Gait:
    """A gait whose state is given (to reach the clipping bounds and rounding ties)."""

    def __init__(self, omega: np.ndarray, theta: np.ndarray) -> None:
        self.omega, self.theta = omega, theta

    def state(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        return self.omega.copy(), self.theta.copy()


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1e-3, 1.0, 10.0, 1e3]))
def test_commands_equal_the_clipped_rounded_formula(seed: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    omega, theta = rng.normal(0, scale, 23), rng.normal(0, scale * 20, 23)
    omega[:3] = (np.arange(3) + 0.5) * 16 / gc.COUNTS_PER_RAD  # near rounding ties
    theta[15:18] = np.array([0.0005, -0.0015, 0.0025])
    central = CentralNode(SCHEMA, _Gait(omega, theta))  # type: ignore[arg-type]
    w, p = central.commands(0.0)
    expected_w, expected_p = _commands((omega, theta))
    assert w.tobytes() == expected_w.tobytes() and p.tobytes() == expected_p.tobytes()


@settings(max_examples=30, deadline=None)
@given(payloads=st.lists(st.binary(min_size=7, max_size=8), min_size=1, max_size=20),
       board=st.integers(1, 5))
def test_board_byte_path_equals_the_message_path(payloads: list[bytes], board: int) -> None:
    fast, clock, fast_bus = _started(GurooBoardNode(SCHEMA, board, seed=board), data=True)
    slow, slow_clock, slow_bus = _started(GurooBoardNode(SCHEMA, board, seed=board), data=False)
    (sp_id, handler), = fast.byte_handlers().items()
    for n, data in enumerate(payloads, start=1):
        clock.now = slow_clock.now = n * 1_370_000
        handler(sp_id, data, clock.now)
        slow.on_message(can.Message(arbitration_id=sp_id, data=data, is_extended_id=False))
        if n % 3 == 0:  # the feedback timer in between
            fast.send_feedback()
            slow.send_feedback()
    assert fast.report() == slow.report() and fast.rx_faults == sum(len(d) != 8 for d in payloads)
    assert np.array_equal(fast.rig.ram, slow.rig.ram)
    assert fast_bus.sent == slow_bus.sent


@settings(max_examples=30, deadline=None)
@given(payloads=st.lists(st.tuples(st.sampled_from([1, 2]), st.binary(min_size=7, max_size=8)),
                         min_size=1, max_size=20))
def test_servo_board_byte_path_equals_the_message_path(payloads: list[tuple[int, bytes]]) -> None:
    fast, clock, fast_bus = _started(ServoBoardNode(SCHEMA, seed=3), data=True)
    slow, slow_clock, slow_bus = _started(ServoBoardNode(SCHEMA, seed=3), data=False)
    handlers = fast.byte_handlers()
    for n, (frame, data) in enumerate(payloads, start=1):
        clock.now = slow_clock.now = n * 1_900_000
        can_id = int(SCHEMA.message(f"SERVO_SP_{frame}").frame_id)
        handlers[can_id](can_id, data, clock.now)
        slow.on_message(can.Message(arbitration_id=can_id, data=data, is_extended_id=False))
        if n % 2 == 0:
            fast.send_status()
            slow.send_status()
    assert fast.report() == slow.report() and fast_bus.sent == slow_bus.sent


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), frames=st.integers(1, 40))
def test_central_byte_handlers_equal_the_message_path(seed: int, frames: int) -> None:
    rng = random.Random(seed)
    fast, clock, _ = _started(CentralNode(SCHEMA, default_walk()), data=True)
    slow, slow_clock, _ = _started(CentralNode(SCHEMA, default_walk()), data=False)
    handlers = fast.byte_handlers()
    for n in range(frames):
        clock.now = slow_clock.now = n * 1_000_000 + rng.randrange(1_000_000)
        if n % 2 == 0:
            fast.broadcast()
            slow.broadcast()
        can_id = rng.choice(sorted(handlers))
        size = 2 if can_id == int(SCHEMA.message("SERVO_STATUS").frame_id) else 8
        data = rng.randbytes(size if rng.random() > 0.1 else size - 1)
        handlers[can_id](can_id, data, clock.now)
        slow.on_message(can.Message(arbitration_id=can_id, data=data, is_extended_id=False))
    assert fast.report() == slow.report()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 50), keep=st.booleans())
def test_batched_charges_leave_the_meter_as_charging_frame_by_frame(seed: int, size: int,
                                                                    keep: bool) -> None:
    """The batch kernel runs here as plain Python (its py_func): numpy's bounds checks make a
    too-small row buffer an IndexError, which the compiled kernel would silently overrun."""
    rng = random.Random(seed)
    one, batched = (LoadMeter(1_000_000, 0.002, keep_windows=keep) for _ in range(2))
    charges = BatchedCharges(batched, size)
    at = rng.randrange(10**6)
    with pytest.MonkeyPatch.context() as patch:  # every batch, flushed when full or at the end
        patch.setattr(load_kernel, "charge_frames_c", load_kernel.charge_frames_c.py_func)
        for _ in range(rng.randrange(1, 300)):
            at += rng.choice([0, rng.randrange(200_000), rng.randrange(5_000_000)])
            bits = rng.randrange(47, 160)
            start, end = at - rng.randrange(100) * rng.randrange(2), at + bits * 1000
            one.charge(start, end, bits)
            charges.add(start, end, bits)
            at = end
        charges.flush()
    assert batched.report() == one.report() and batched.report()["frames"] > 0
