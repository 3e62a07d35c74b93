"""The lean kernel's straight-line pieces against the reference kernel, layout by layout: duties
near 0, near the dead time, near and at the period's top and beyond it, dead times longer than
the pulse, both signs, edge and centre alignment, a floating bridge, the averaged plant, free
and locked rotors, every sensing; RAM, plant state and RNG state equal bit for bit."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant import layout as p
from servobus.plant.bank_kernel import run_bank_lean_fast
from servobus.plant.build import PlantOptions
from servobus.plant.rig import N_TF, N_TI, BoardRig, run_bank_fast
from servobus.presets.board import SENSING_CHOICES

OPTIONS = st.builds(
    PlantOptions,
    sensing=st.sampled_from(SENSING_CHOICES),
    plant=st.sampled_from(["switching", "switching", "averaged"]),
    pwm=st.sampled_from(["edge", "centre"]),
    rotor=st.sampled_from(["free", "free", "locked"]),
    load_torque=st.sampled_from([0.0, 0.02, -0.3]),
    theta0=st.floats(-1.5, 1.5),
    seed=st.integers(0, 2**31),
)
# the dead time in PCLK counts: none, short, the default's order, about half or all of the period
DEAD = st.sampled_from([0, 1, 60, 1499, 2999, 3000, 4000])
# a duty relative to the period's top and the dead time (the pieces' boundaries), or anywhere
EDGES = {"0": lambda top, dead: 0, "1": lambda top, dead: 1, "2": lambda top, dead: 2,
         "dead-1": lambda top, dead: dead - 1, "dead": lambda top, dead: dead,
         "dead+1": lambda top, dead: dead + 1, "top-dead-1": lambda top, dead: top - dead - 1,
         "top-dead": lambda top, dead: top - dead, "top-1": lambda top, dead: top - 1,
         "top": lambda top, dead: top, "top+1": lambda top, dead: top + 1}
EDGE = st.sampled_from(sorted(EDGES))
DUTY = st.one_of(st.tuples(st.just("at"), EDGE), st.tuples(st.just("any"),
                                                            st.integers(0, 3100)))
# per call and board: a duty with its sign, or the bridge floating, and the periods to run
STEP = st.tuples(DUTY, st.sampled_from([1, -1]), st.booleans(),
                 st.sampled_from([0, 1, 2, 7, 80, 81]))


def _duty(duty: tuple[str, object], sign: int, top: int, dead: int) -> int:
    """The signed duty a step names."""
    kind, value = duty
    if kind == "any":
        return sign * int(value)  # type: ignore[call-overload]
    return sign * max(0, EDGES[str(value)](top, dead))


def _stack(rigs: list[BoardRig]) -> list[np.ndarray]:
    """The kernels' arguments for a bank of these boards (fresh copies)."""
    return [np.stack([getattr(r, name) for r in rigs]) for name in
            ("ram", "rom", "params", "state", "istate", "tables")]


def _assert_same(ref: list[np.ndarray], lean: list[np.ndarray]) -> None:
    for a, b in zip(ref, lean, strict=True):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))  # floats: bitwise


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(OPTIONS, DEAD), min_size=1, max_size=4),
       st.lists(st.lists(STEP, min_size=4, max_size=4), min_size=1, max_size=6))
def test_every_layout_equals_the_reference(boards, calls) -> None:
    rigs = [BoardRig(options=o, mode=m.MODE_DUTY) for o, _ in boards]
    for rig, (_, dead) in zip(rigs, boards, strict=True):
        rig.params[p.DEAD_COUNTS] = dead
    ref, lean = _stack(rigs), _stack(rigs)
    n = len(rigs)
    trace = (np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF)))
    for steps in calls:
        counts = np.zeros(n, dtype=np.int64)
        for b in range(n):
            duty, sign, driven, counts[b] = steps[b]
            top, dead = int(ref[2][b, p.PWM_TOP]), int(ref[2][b, p.DEAD_COUNTS])
            for rams, *_ in (ref, lean):
                board.set_mode(rams[b], m.MODE_DUTY if driven else m.MODE_FLOAT)
                rams[b, m.DUTY_REF] = _duty(duty, sign, top, dead)  # the next periods' duty
                rams[b, m.PWM_SHADOW] = rams[b, m.DUTY_REF]  # and this one's
                rams[b, m.BRIDGE_SHADOW] = m.BRIDGE_PWM if driven else m.BRIDGE_FLOAT
        run_bank_fast(*ref, counts, *trace)
        run_bank_lean_fast(*lean, counts, *trace)
        _assert_same(ref, lean)


def test_a_pulse_inside_the_dead_time_moves_no_current_and_matches() -> None:
    """Edge-aligned, duty 50 with a 60-count dead time: the drive piece is empty, the bridge is
    open then braking, so a rotor at rest carries no current (the reference's segments, bit
    for bit); duty 1,500 drives a current (a kernel skipping pieces would fail one of them)."""
    rig = BoardRig(options=PlantOptions(rotor="locked", sensing="winding-bipolar"),
                   mode=m.MODE_DUTY)
    rig.params[p.DEAD_COUNTS] = 60
    trace = (np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF)))
    for duty, driven in ((50, False), (1500, True)):
        ref, lean = _stack([rig]), _stack([rig])
        for rams, *_ in (ref, lean):
            rams[0, m.DUTY_REF] = rams[0, m.PWM_SHADOW] = duty
        counts = np.array([80], dtype=np.int64)
        run_bank_fast(*ref, counts, *trace)
        run_bank_lean_fast(*lean, counts, *trace)
        _assert_same(ref, lean)
        assert (abs(lean[3][0, p.I_MEAN]) > 0.1) == driven
