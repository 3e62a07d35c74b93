"""The lean kernel's bank: boards share a call but not their results (a bank of mixed plants
equals each board advanced alone, in any order), and the bitwise comparison the identity tests
rely on does see a one-ulp change in one board's arithmetic."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.firmware import memory as m
from servobus.plant import layout as p
from servobus.plant.bank_kernel import run_bank_lean_fast
from servobus.plant.build import PlantOptions
from servobus.plant.rig import N_TF, N_TI, BoardRig, run_bank_fast

TRACE = (np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF)))
# averaged and switching plants side by side: the averaged one computes its piece's constants
# every period, the switching ones once per call
KINDS = [PlantOptions(plant="averaged", seed=1), PlantOptions(seed=2),
         PlantOptions(plant="averaged", pwm="centre", seed=3),
         PlantOptions(rotor="locked", sensing="winding-bipolar", seed=4),
         PlantOptions(pwm="centre", load_torque=-1.0, seed=5)]


def _arrays(rigs: list[BoardRig]) -> list[np.ndarray]:
    """The kernel's arguments for a bank of these boards (fresh copies)."""
    return [np.stack([getattr(r, name) for r in rigs]) for name in
            ("ram", "rom", "params", "state", "istate", "tables")]


def _rigs(order: list[int], amps: float) -> list[BoardRig]:
    rigs = [BoardRig(options=KINDS[k]) for k in order]
    for rig in rigs:
        rig.command_current(amps)
    return rigs


def _bits(arrays: list[np.ndarray], row: int) -> list[bytes]:
    return [a[row].tobytes() for a in arrays]


@settings(max_examples=10, deadline=None)
@given(st.permutations(range(len(KINDS))), st.sampled_from([0.3, -0.9]),
       st.lists(st.integers(1, 200), min_size=1, max_size=3))
def test_a_bank_equals_each_board_alone(order: list[int], amps: float, calls: list[int]) -> None:
    bank = _arrays(_rigs(order, amps))
    alone = [_arrays(_rigs([k], amps)) for k in order]
    for n in calls:
        counts = np.full(len(order), n, dtype=np.int64)
        counts[0] = n // 2  # unequal counts too
        run_bank_lean_fast(*bank, counts, *TRACE)
        for b, one in enumerate(alone):
            run_bank_lean_fast(*one, counts[b:b + 1], *TRACE)
    for b, one in enumerate(alone):
        assert _bits(bank, b) == _bits(one, 0)


def test_one_ulp_in_one_board_shows() -> None:
    """The winding resistance of board 2 of 4 one ulp higher in the lean kernel's copy: after
    one 4 ms tick its plant state differs from the reference kernel's, the others' do not."""
    rigs = _rigs([1, 2, 4, 3], 0.8)
    ref, lean = _arrays(rigs), _arrays(rigs)
    lean[2][2, p.R_A] = np.nextafter(lean[2][2, p.R_A], np.inf)
    counts = np.full(4, 80, dtype=np.int64)
    run_bank_fast(*ref, counts, *TRACE)
    run_bank_lean_fast(*lean, counts, *TRACE)
    differs = [_bits(ref, b)[3] != _bits(lean, b)[3] for b in range(4)]  # plant states
    assert differs == [False, False, True, False]
    assert np.array_equal(ref[0][:, m.STATUS], lean[0][:, m.STATUS])
