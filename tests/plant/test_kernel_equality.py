"""The lean bank kernel against today's kernel on varied hardware: other ADC sample counts (the
ADC instants not dividing the period), dead times down to 0, low over-current thresholds (the
trip), saturating duties (one-segment periods), stuck and turning-over shafts; every RAM word,
plant state and RNG state equal bit for bit."""

from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant.bank_kernel import run_bank_lean_fast
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
    alpha=st.sampled_from([0.2, 1.0]),
    load_torque=st.sampled_from([0.0, 0.05, -2.0]),
    theta0=st.floats(-3.0, 3.0),
    temp0_c=st.sampled_from([None, 84.99, 90.0]),
    seed=st.integers(0, 2**32 - 1),
    offset_stage=st.sampled_from(OFFSET_STAGES),
)
# per call and board: an actuation (A, or Q12 duty: up to saturation) with its tick, or none
ACTUATION = st.one_of(st.none(), st.floats(-3.0, 3.0), st.sampled_from([0.0, 0.74, -1.0]))


def _stack(rigs: list[BoardRig]) -> list[np.ndarray]:
    """The kernel's arguments for a bank of these boards (fresh copies)."""
    return [np.stack([getattr(r, name) for r in rigs]) for name in
            ("ram", "rom", "params", "state", "istate", "tables")]


def _assert_same(ref: list[np.ndarray], lean: list[np.ndarray]) -> None:
    for a, b in zip(ref, lean, strict=True):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))  # floats: bitwise


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(HARDWARE, OPTIONS, st.sampled_from(MODES)), min_size=1, max_size=6),
       st.lists(st.tuples(st.lists(st.sampled_from([1, 3, 80, 400]), min_size=6, max_size=6),
                          st.lists(ACTUATION, min_size=6, max_size=6)), min_size=1, max_size=5))
def test_lean_kernel_equals_todays_kernel_on_varied_hardware(boards, calls) -> None:
    rigs = [BoardRig(hw=hw, options=o, mode=mode) for hw, o, mode in boards]
    ref, lean = _stack(rigs), _stack(rigs)
    n = len(rigs)
    traces = [(np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF))) for _ in range(2)]
    for counts, actuations in calls:
        for k, amps in enumerate(actuations[:n]):
            if amps is not None:
                for rams, roms, *_ in (ref, lean):
                    board.can_actuation(rams[k], round(amps * 4096))
                    board.can_tick(rams[k], roms[k])
        c = np.array(counts[:n], dtype=np.int64)
        run_bank_fast(*ref, c, *traces[0])
        run_bank_lean_fast(*lean, c, *traces[1])
        _assert_same(ref, lean)


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
