"""The compiled tick driver against the per-tick Python path: after random reference sequences
(beyond the board's current limit and the frame's 16 bits too) every RAM word, plant state and
RNG state equal bit for bit, on varied hardware, plant options, sensing variants and modes."""


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant import layout as p
from servobus.plant.board_drive import as_bank, drive_lean, drive_today
from servobus.plant.build import PlantOptions
from servobus.plant.rig import N_TF, N_TI, BoardRig, run_periods_fast
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.firmware_image import Q12_AMP
from tests.plant.test_lean_kernel import HARDWARE, OPTIONS

MODES = [m.MODE_CURRENT, m.MODE_LOCAL_P, m.MODE_DUTY, m.MODE_FLOAT]
AMPS = st.lists(st.one_of(st.floats(-1.5, 1.5), st.floats(-40.0, 40.0)), min_size=1,
                max_size=40)
Q12 = st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=10)
TRACE = (np.zeros((1, N_TI), dtype=np.int64), np.zeros((1, N_TF)))
NAMES = ("ram", "rom", "params", "state", "istate", "tables")


def _per_tick(rig: BoardRig, refs: list[int]) -> None:
    """The Python path: each tick's handlers interpreted, then its periods on the issue-time
    kernel (the one ``run`` keeps where a trace is recorded)."""
    for q12 in refs:
        board.can_actuation(rig.ram, q12)
        board.can_tick(rig.ram, rig.rom)
        run_periods_fast(rig.ram, rig.rom, rig.params, rig.state, rig.istate, rig.tables,
                         rig.hw.periods_per_tick, *TRACE, False)


def _assert_same(a: BoardRig, b: BoardRig) -> None:
    for name in NAMES:
        assert np.array_equal(getattr(a, name).view(np.int64), getattr(b, name).view(np.int64))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.just(DEFAULT_BOARD), HARDWARE), OPTIONS, st.sampled_from(MODES),
       st.one_of(AMPS, Q12))
def test_drive_equals_the_per_tick_python_path(hw, options, mode, refs) -> None:
    fast, slow = (BoardRig(hw=hw, options=options, mode=mode) for _ in range(2))
    if isinstance(refs[0], float):
        fast.drive(refs)
        _per_tick(slow, [round(a * Q12_AMP) for a in refs])
        for a in refs[:3]:  # and BoardRig's own per-tick path, on the lean kernel
            slow.command_current(a)
            slow.run(hw.periods_per_tick, record=False)
        fast.drive(refs[:3])
    else:
        fast.drive_q12(np.array(refs))
        _per_tick(slow, refs)
    _assert_same(fast, slow)


def test_drive_moves_the_plant_to_the_reference() -> None:
    """0.5 A on a locked rotor for 0.2 s settles near 0.5 A of winding current (a driver that
    skipped the actuation, the tick or the periods would fail)."""
    rig = BoardRig(options=PlantOptions(rotor="locked", sensing="winding-bipolar"))
    rig.drive([0.5] * 50)
    assert rig.periods == 50 * 80
    assert rig.ram[m.IW_REF] == round(0.5 * Q12_AMP)
    assert abs(rig.state[p.I_MEAN] - 0.5) < 0.05


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPTIONS, min_size=2, max_size=4), st.lists(st.floats(-1.2, 1.2), min_size=2,
                                                            max_size=12))
def test_a_bank_driven_equals_each_board_driven_alone(options, amps) -> None:
    """Both drivers on a bank (a row of references per tick) give each board's own results."""
    alone = [BoardRig(options=o) for o in options]
    for rig in alone:
        rig.drive(amps)
    refs = np.repeat(np.array([round(a * Q12_AMP) for a in amps])[:, None], len(options), 1)
    for driver in (drive_lean, drive_today):
        rigs = [BoardRig(options=o) for o in options]
        bank = [np.stack([getattr(r, name) for r in rigs]) for name in NAMES]
        driver(*bank, refs, DEFAULT_BOARD.periods_per_tick)
        for b, rig in enumerate(alone):
            for name, arr in zip(NAMES, bank, strict=True):
                assert np.array_equal(arr[b].view(np.int64), getattr(rig, name).view(np.int64))


@pytest.mark.parametrize("rotor", ["free", "locked"])
def test_a_zero_divisor_falls_back_as_the_lean_kernel_does(rotor) -> None:
    """No viscous friction: a turning shaft on an open bridge divides by 0 (the reference's
    ZeroDivisionError, the arrays left as it leaves them); a locked one never divides by it and
    gets the reference's results."""
    rigs = [BoardRig(options=PlantOptions(rotor=rotor), mode=m.MODE_FLOAT) for _ in range(2)]
    for rig in rigs:
        rig.params[p.B_VISC] = 0.0
        rig.state[p.OMEGA] = 3.0
        rig.ram[m.BRIDGE_SHADOW] = m.BRIDGE_FLOAT  # the bridge open from the first period
    outcomes = []
    for rig, run in ((rigs[0], lambda r: r.drive([0.3] * 5)),
                     (rigs[1], lambda r: _per_tick(r, [round(0.3 * Q12_AMP)] * 5))):
        try:
            run(rig)
            outcomes.append("ran")
        except ZeroDivisionError:
            outcomes.append("raised")
    assert outcomes == (["raised"] * 2 if rotor == "free" else ["ran"] * 2)
    _assert_same(*rigs)


def test_drive_q12_rejects_amperes() -> None:
    with pytest.raises(ValueError, match="integer Q12"):
        BoardRig().drive_q12(np.array([0.5]))
    with pytest.raises(ValueError):
        BoardRig().drive([float("nan")])


def test_as_bank_views_write_through() -> None:
    ram = np.zeros(4, dtype=np.int64)
    as_bank(ram)[0][0, 2] = 7
    assert ram[2] == 7
