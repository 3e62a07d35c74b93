"""The lean kernel under numpy's error model keeps the reference's ZeroDivisionError: a board
with a zero divisor (no viscous friction, no thermal capacity or resistance, a ROM block of 0,
no winding resistance, an infinite clock) raises where ``rig.run_bank`` raises, leaving every
array as the reference leaves it, and gives its results bit for bit where it does not raise."""

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.firmware import memory as m
from servobus.plant import layout as p
from servobus.plant.bank_kernel import run_bank_lean_fast
from servobus.plant.build import PlantOptions
from servobus.plant.rig import N_TF, N_TI, BoardRig, run_bank_fast

TRACE = (np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF)))
Arrays = list[np.ndarray]


def _no_viscous(arrays: Arrays, b: int) -> None:
    arrays[2][b, p.B_VISC] = 0.0  # rate_o = 0: an open segment of a turning shaft divides by it


def _no_thermal_c(arrays: Arrays, b: int) -> None:
    arrays[2][b, p.THERMAL_C] = 0.0  # every period's thermal step


def _no_thermal_r(arrays: Arrays, b: int) -> None:
    arrays[2][b, p.THERMAL_R] = 0.0


def _no_resistance(arrays: Arrays, b: int) -> None:
    arrays[2][b, p.R_A] = 0.0  # only a conducting segment divides by it


def _pos_block_zero(arrays: Arrays, b: int) -> None:
    arrays[1][b, m.POS_BLOCK] = 0  # the block ends when the count wraps to 0: from -1, at once
    arrays[0][b, m.POS_COUNT] = -1


def _clock_infinite(arrays: Arrays, b: int) -> None:
    arrays[2][b, p.PCLK_HZ] = np.inf  # dt = k / pclk = 0: a turning shaft's current divides
    arrays[5][b, p.TAB_DT] = np.arange(arrays[5].shape[2]) / np.inf


ZEROS: dict[str, Callable[[Arrays, int], None]] = {
    "no_viscous": _no_viscous, "no_thermal_c": _no_thermal_c, "no_thermal_r": _no_thermal_r,
    "no_resistance": _no_resistance, "pos_block_zero": _pos_block_zero,
    "clock_infinite": _clock_infinite}
OPTIONS = st.builds(
    PlantOptions,
    plant=st.sampled_from(["switching", "averaged"]),
    pwm=st.sampled_from(["edge", "centre"]),
    rotor=st.sampled_from(["free", "locked"]),
    load_torque=st.sampled_from([0.0, 0.3]),
    theta0=st.floats(-1.0, 1.0),
    seed=st.integers(0, 2**31),
)
MODES = [m.MODE_CURRENT, m.MODE_FLOAT, m.MODE_DUTY, m.MODE_LOCAL_P]


def _bank(options: list[PlantOptions], modes: list[int], amps: float) -> Arrays:
    rigs = [BoardRig(options=o, mode=mode) for o, mode in zip(options, modes, strict=True)]
    for rig, mode in zip(rigs, modes, strict=True):
        rig.command_current(amps)
        rig.state[p.OMEGA] = 3.0  # a turning shaft: the motor's divisions are reached
        if mode == m.MODE_FLOAT:  # as after its first period: the bridge open from the start
            rig.ram[m.BRIDGE_SHADOW] = m.BRIDGE_FLOAT
    return [np.stack([getattr(r, name) for r in rigs]) for name in
            ("ram", "rom", "params", "state", "istate", "tables")]


def _outcome(kernel: Callable[..., None], arrays: Arrays, counts: np.ndarray) -> str:
    try:
        kernel(*arrays, counts, *TRACE)
    except ZeroDivisionError:
        return "ZeroDivisionError"
    return "ok"


def _compare(arrays: Arrays, counts: np.ndarray) -> str:
    """Both kernels on copies: the same outcome and the same bits in every array after it."""
    ref = [a.copy() for a in arrays]
    lean = [a.copy() for a in arrays]
    outcome = _outcome(run_bank_fast, ref, counts)
    assert _outcome(run_bank_lean_fast, lean, counts) == outcome
    for a, b in zip(ref, lean, strict=True):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))
    return outcome


@pytest.mark.parametrize(("zero", "mode", "rotor", "raises"), [
    ("no_viscous", m.MODE_FLOAT, "free", True),
    ("no_viscous", m.MODE_FLOAT, "locked", False),  # the old kernel raised at its first call
    ("no_thermal_c", m.MODE_CURRENT, "locked", True),
    ("no_thermal_r", m.MODE_DUTY, "free", True),
    ("no_resistance", m.MODE_CURRENT, "free", True),
    ("no_resistance", m.MODE_FLOAT, "free", False),  # open segments only: no division by r
    ("pos_block_zero", m.MODE_FLOAT, "locked", True),
    ("clock_infinite", m.MODE_CURRENT, "free", True),
    ("clock_infinite", m.MODE_CURRENT, "locked", False),
])
def test_zero_divisor_as_reference(zero: str, mode: int, rotor: str, raises: bool) -> None:
    """Board 1 of 3 has the zero divisor: boards 0 and 2 advance as the reference advances
    them (board 2 not at all when board 1 raises), board 1 raises or not where the reference
    does, its arrays left as the reference leaves them."""
    opts = [PlantOptions(seed=1), PlantOptions(rotor=rotor, seed=2), PlantOptions(seed=3)]
    arrays = _bank(opts, [m.MODE_CURRENT, mode, m.MODE_DUTY], 0.6)
    ZEROS[zero](arrays, 1)
    counts = np.array([80, 80, 80], dtype=np.int64)
    assert _compare(arrays, counts) == ("ZeroDivisionError" if raises else "ok")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.lists(OPTIONS, min_size=3, max_size=3),
       modes=st.lists(st.sampled_from(MODES), min_size=3, max_size=3),
       zeros=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(sorted(ZEROS))),
                      max_size=3),
       counts=st.lists(st.sampled_from([0, 1, 7, 80, 81]), min_size=3, max_size=3),
       amps=st.floats(-1.2, 1.2), b_visc=st.sampled_from([None, 0.0, 1e-3]))
def test_zero_divisors_any_hardware(options: list[PlantOptions], modes: list[int],
                                    zeros: list[tuple[int, str]], counts: list[int],
                                    amps: float, b_visc: float | None) -> None:
    """Any set of zero divisors on any boards of varied hardware: same outcome, same bits."""
    arrays = _bank([replace(o) for o in options], modes, amps)
    if b_visc is not None:
        arrays[2][:, p.B_VISC] = b_visc
    for b, zero in zeros:
        ZEROS[zero](arrays, b)
    _compare(arrays, np.array(counts, dtype=np.int64))
