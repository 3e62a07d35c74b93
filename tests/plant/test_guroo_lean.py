"""GuRoo's lean board kernel (hot state in locals) against the reference kernel, bit for bit."""

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.plant import guroo_build as b
from servobus.plant.guroo_rig import GurooRig, run_periods, run_periods_lean_fast
from servobus.plant.kernel_cache import cached_njit

run_periods_fast = cached_njit(run_periods)  # the reference, compiled (only the tests run it)
STEP = st.tuples(st.integers(-9000, 9000), st.integers(-9000, 9000), st.integers(-9000, 9000),
                 st.integers(0, 2500), st.booleans())


def rigs(loop: str, seed: int, trip_a: float, latency: int,
         **readings: Any) -> tuple[GurooRig, GurooRig]:
    """Two equal rigs: a trip threshold of trip_a amperes, the outputs' latency in periods and
    the listing's readings (GurooRig's keywords)."""
    pair = GurooRig(3, loop, seed, **readings), GurooRig(3, loop, seed, **readings)
    for rig in pair:
        rig.params[b.TRIP_A] = trip_a
        rig.rom[g.R_LATENCY] = latency
    return pair


def assert_same(lean: GurooRig, ref: GurooRig) -> None:
    """RAM, plant state (as bytes) and noise generator identical."""
    np.testing.assert_array_equal(lean.ram, ref.ram)
    assert lean.state.tobytes() == ref.state.tobytes()
    np.testing.assert_array_equal(lean.istate, ref.istate)


READINGS = st.fixed_dictionaries({"t1_period": st.sampled_from(["txpr+1", "txpr"]),
                                  "dead_band": st.booleans(),
                                  "adc_fifo": st.sampled_from(["fresh", "stale"])})


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["2002", "2khz"]), st.integers(0, 2**31),
       st.sampled_from([3.0, 8.0, 1e6]), st.sampled_from([0, 1, 7, 128]),
       st.lists(STEP, min_size=1, max_size=6), READINGS)
def test_lean_kernel_equals_reference(loop: str, seed: int, trip_a: float, latency: int,
                                      steps: list[tuple[int, int, int, int, bool]],
                                      readings: dict[str, Any]) -> None:
    lean, ref = rigs(loop, seed, trip_a, latency, **readings)
    for w0, w1, w2, periods, clear in steps:
        for rig, kernel in ((lean, run_periods_lean_fast), (ref, run_periods_fast)):
            rig.set_velocity((w0, w1, w2))
            if clear:
                fw.clear_trip(rig.ram)
            kernel(rig.ram, rig.rom, rig.params, rig.state, rig.istate, periods)
        assert_same(lean, ref)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.integers(0, 450), min_size=5, max_size=40))
def test_lean_kernel_split_anywhere_equals_one_call(seed: int, cuts: list[int]) -> None:
    split, whole = rigs("2002", seed, 3.0, 128)
    for rig in (split, whole):
        rig.set_velocity((6000, -4000, 2500))
    for n in cuts:
        run_periods_lean_fast(split.ram, split.rom, split.params, split.state, split.istate, n)
    run_periods_fast(whole.ram, whole.rom, whole.params, whole.state, whole.istate, sum(cuts))
    assert_same(split, whole)


def test_lean_kernel_trips_floats_and_feathers_like_reference() -> None:
    lean, ref = rigs("2002", 7, 3.0, 128)
    for rig, kernel in ((lean, run_periods_lean_fast), (ref, run_periods_fast)):
        rig.set_velocity((8000, -8000, 3000))
        kernel(rig.ram, rig.rom, rig.params, rig.state, rig.istate, 40_000)
    assert ref.ram[g.TRIPS] == 1 and ref.ram[g.TRIPPED] == 1  # the case is exercised
    assert ref.ram[g.FEATHERED] > 0 and ref.ram[g.LOOPS] == 100
    assert_same(lean, ref)
