"""The lean bank kernel against today's kernel: every RAM word, plant state and RNG state equal
bit for bit after random sequences of calls with the firmware's CAN handlers in between, on
varied hardware (ADC sample counts not dividing the period, dead times down to 0, low
over-current thresholds, pot noise, zero offsets) and through the protection trips."""

from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.firmware import board, protection
from servobus.firmware import memory as m
from servobus.plant.bank_kernel import run_bank_lean_fast
from servobus.plant.board_bank import BoardBank
from servobus.plant.build import OFFSET_STAGES, PlantOptions
from servobus.plant.rig import N_TF, N_TI, BoardRig, run_bank_fast
from servobus.presets.board import ADC_WINDOW_CHOICES, DEFAULT_BOARD, SENSING_CHOICES

MODES = [m.MODE_CURRENT, m.MODE_LOCAL_P, m.MODE_FLOAT, m.MODE_DUTY]
HARDWARE = st.builds(
    replace, st.just(DEFAULT_BOARD),
    adc_per_pwm=st.sampled_from([4, 5, 6, 7]),
    dead_time_s=st.sampled_from([0.0, 1e-6, 3e-6]),
    over_current_a=st.sampled_from([2.5, 0.4]),
    pot_noise_lsb=st.sampled_from([0.0, 0.5, 3.0]),
    zero_offset_a=st.sampled_from([-0.02, 0.05]),
)
OPTIONS = st.builds(
    PlantOptions,
    sensing=st.sampled_from(SENSING_CHOICES),
    adc_window=st.sampled_from(ADC_WINDOW_CHOICES),
    plant=st.sampled_from(["switching", "averaged"]),
    pwm=st.sampled_from(["edge", "centre"]),
    rotor=st.sampled_from(["free", "locked"]),
    alpha=st.sampled_from([0.5, 1.0, 7.5]),
    load_torque=st.sampled_from([0.0, 0.3, -1.0]),
    theta0=st.floats(-1.5, 1.5),
    temp0_c=st.sampled_from([None, 84.9, 90.0]),  # above 85: the over-temperature trip
    seed=st.integers(0, 2**31),
    zero_offset_a=st.sampled_from([None, 0.0, 0.03]),
    offset_stage=st.sampled_from(OFFSET_STAGES),
)
# between two calls, on one board: an actuation (A, or Q12 duty) then a tick, a mode switch,
# a position reference, or the operator's fault reset
ACTION = st.one_of(
    st.tuples(st.just("actuate"), st.floats(-1.5, 1.5)),
    st.tuples(st.just("mode"), st.sampled_from(MODES)),
    st.tuples(st.just("posref"), st.integers(200, 820)),
    st.tuples(st.just("clear"), st.just(0)),
)
CALL = st.tuples(st.lists(st.sampled_from([0, 0, 1, 7, 79, 80, 81, 160, 400]), min_size=12,
                          max_size=12),
                 st.lists(st.tuples(st.integers(0, 11), ACTION), max_size=6))


def _stack(rigs: list[BoardRig]) -> list[np.ndarray]:
    """The kernel's arguments for a bank of these boards (fresh copies)."""
    return [np.stack([getattr(r, name) for r in rigs]) for name in
            ("ram", "rom", "params", "state", "istate", "tables")]


def _act(ram: np.ndarray, rom: np.ndarray, action: tuple[str, float]) -> None:
    kind, value = action
    if kind == "actuate":
        board.can_actuation(ram, round(value * 4096))
        board.can_tick(ram, rom)
    elif kind == "mode":
        board.set_mode(ram, int(value))
    elif kind == "posref":
        board.can_posref(ram, int(value))
    else:
        protection.clear_faults(ram)


def _assert_same(ref: list[np.ndarray], lean: list[np.ndarray]) -> None:
    for a, b in zip(ref, lean, strict=True):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))  # floats: bitwise


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.one_of(st.just(DEFAULT_BOARD), HARDWARE), OPTIONS,
                          st.sampled_from(MODES)), min_size=1, max_size=12),
       st.lists(CALL, min_size=1, max_size=6))
def test_lean_kernel_equals_todays_kernel(boards, calls) -> None:
    rigs = [BoardRig(hw=hw, options=o, mode=mode) for hw, o, mode in boards]
    ref, lean = _stack(rigs), _stack(rigs)
    n = len(rigs)
    traces = [(np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF))) for _ in range(2)]
    for counts, actions in calls:
        for k, action in actions:
            for rams, roms, *_ in (ref, lean):
                _act(rams[k % n], roms[k % n], action)
        c = np.array(counts[:n], dtype=np.int64)
        run_bank_fast(*ref, c, *traces[0])
        run_bank_lean_fast(*lean, c, *traces[1])
        _assert_same(ref, lean)
    _assert_same(list(traces[0]), list(traces[1]))


def test_both_kernels_trip_over_current_and_over_temperature_alike() -> None:
    """A locked rotor at 0.9 A with a 0.4 A over-current threshold trips over-current, a board
    started at 90 degC trips over-temperature: the fault paths run and agree."""
    hw = replace(DEFAULT_BOARD, over_current_a=0.4)
    rigs = [BoardRig(hw=hw, options=PlantOptions(rotor="locked")),
            BoardRig(options=PlantOptions(temp0_c=90.0))]
    for rig in rigs:
        rig.command_current(0.9)
    ref, lean = _stack(rigs), _stack(rigs)
    counts = np.array([2000, 40_000], dtype=np.int64)
    trace = (np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF)))
    run_bank_fast(*ref, counts, *trace)
    run_bank_lean_fast(*lean, counts, *trace)
    _assert_same(ref, lean)
    status = lean[0][:, m.STATUS]
    assert status[0] & m.STATUS_OVER_CURRENT and not status[0] & m.STATUS_OVER_TEMPERATURE
    assert status[1] & m.STATUS_OVER_TEMPERATURE


def test_bank_runs_the_lean_kernel_and_moves_the_plant() -> None:
    """BoardBank's default kernel gives today's kernel's plant, which does move: 0.5 A on a
    locked rotor settles near 0.5 A of winding current (a kernel doing nothing would fail)."""
    opts = [PlantOptions(rotor="locked", sensing="winding-bipolar")] * 2
    fast = BoardBank(opts, [m.MODE_CURRENT] * 2, seed=3)
    ref = BoardBank(opts, [m.MODE_CURRENT] * 2, seed=3)
    for bank in (fast, ref):
        for rig in bank.rigs:
            rig.command_current(0.5)
    fast.advance_to(20_000_000)
    run_bank_fast(ref.rams, ref.roms, ref.params, ref.states, ref.istates, ref.tables,
                  fast.done - ref.done, ref._ti, ref._tf)
    assert np.array_equal(fast.rams, ref.rams)
    assert np.array_equal(fast.states.view(np.int64), ref.states.view(np.int64))
    assert abs(fast.states[0, 4] - 0.5) < 0.05  # I_MEAN, amperes
