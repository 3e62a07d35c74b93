"""The board on its plant: fast path == reference path bit for bit, determinism, behaviour."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.firmware import memory as m
from servobus.plant.build import PlantOptions
from servobus.plant.rig import TF_I_WINDING, TF_THETA, TI_MEAS, TI_POS, TI_STATUS, BoardRig

CONFIGS = st.builds(
    PlantOptions,
    sensing=st.sampled_from(["supply-unipolar", "winding-bipolar"]),
    adc_window=st.sampled_from(["ends-at-edge", "previous-period"]),
    plant=st.sampled_from(["switching", "averaged"]),
    pwm=st.sampled_from(["edge", "centre"]),
    rotor=st.sampled_from(["locked", "free"]),
    alpha=st.sampled_from([1.0, 7.5]),
    load_torque=st.sampled_from([0.0, 0.3]),
    seed=st.integers(0, 2**31),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONFIGS, st.lists(st.floats(-1.2, 1.2), min_size=1, max_size=3),
       st.sampled_from([m.MODE_CURRENT, m.MODE_LOCAL_P]))
def test_fast_path_equals_reference_path(options, refs, mode) -> None:
    fast, ref = BoardRig(options=options, mode=mode), BoardRig(options=options, mode=mode)
    for k, iw in enumerate(refs):
        for rig in (fast, ref):
            rig.command_current(iw)
            rig.ram[m.XW_REF] = 512 + 60 * (k + 1)
        a = fast.run(30, fast=True)
        b = ref.run(30, fast=False)
        assert np.array_equal(a.ints, b.ints)
        assert np.array_equal(a.floats.view(np.int64), b.floats.view(np.int64))
    assert np.array_equal(fast.ram, ref.ram)
    assert np.array_equal(fast.state.view(np.int64), ref.state.view(np.int64))


@pytest.mark.parametrize(("window", "newest"), [("ends-at-edge", 0), ("previous-period", 1)])
def test_controller_reads_the_window_that_ends_at_the_chosen_sample(window, newest) -> None:
    """Sample history rebuilt from the decimator's ring after each period: the PI input at
    edge k is the sum of the 12 samples ending with sample kN - newest (kN: taken at kT)."""
    rig = BoardRig(options=PlantOptions(sensing="winding-bipolar", rotor="locked",
                                        adc_window=window))
    zero = int(rig.rom[m.ADC_ZERO_SUM]) // m.MA_LEN
    samples = [zero] * m.MA_LEN  # the reset preload: samples -12..-1
    rig.command_current(0.8)
    meas = []
    for _ in range(12):
        tr = rig.run(1, fast=False)
        meas.append(int(tr.ints[0, TI_MEAS]))
        head = int(rig.ram[m.MA_HEAD])
        ring = [int(v) for v in rig.ram[m.MA_BUF0:m.MA_BUF0 + m.MA_LEN]]
        samples += (ring[head:] + ring[:head])[-6:]  # this period's six samples, in order
    assert len(set(samples)) > 20  # the current is rising: every sample differs
    for k, got in enumerate(meas):
        end = m.MA_LEN + 6 * k - newest  # index of sample kN - newest in the list
        assert got == sum(samples[end - m.MA_LEN + 1:end + 1]) - m.MA_LEN * zero


def test_same_seed_same_trace_other_seed_other_noise() -> None:
    def trace(seed: int) -> np.ndarray:
        rig = BoardRig(options=PlantOptions(rotor="free", seed=seed), mode=m.MODE_LOCAL_P)
        rig.ram[m.XW_REF] = 600
        return rig.run(2000).ints

    assert np.array_equal(trace(7), trace(7))
    assert not np.array_equal(trace(7), trace(8))


def test_locked_step_settles_at_the_reference_in_every_configuration() -> None:
    for sensing in ("supply-unipolar", "winding-bipolar"):
        for pwm in ("edge", "centre"):
            rig = BoardRig(options=PlantOptions(sensing=sensing, pwm=pwm, rotor="locked",
                                                zero_offset_a=0.0))
            rig.command_current(0.5)
            tr = rig.run(400)
            assert abs(rig.amps(tr.ints[-100:, TI_MEAS]).mean() - 0.5) < 0.005
            assert abs(tr.floats[-100:, TF_I_WINDING].mean() - 0.5) < 0.02


def test_as_built_offset_after_the_rc_shifts_the_true_current() -> None:
    """-20 mA at the filtered signal: the loop makes the measurement right, the winding 20 mA
    higher; a current below 20 mA reads zero (the dead band at zero)."""
    rig = BoardRig(options=PlantOptions(rotor="locked", zero_offset_a=-0.02))
    rig.command_current(0.5)
    tr = rig.run(400)
    assert abs(rig.amps(tr.ints[-100:, TI_MEAS]).mean() - 0.5) < 0.005
    assert abs(tr.floats[-100:, TF_I_WINDING].mean() - 0.52) < 0.003
    small = BoardRig(options=PlantOptions(rotor="locked", zero_offset_a=-0.02))
    small.command_current(0.01)
    tr = small.run(400)
    assert abs(tr.floats[-100:, TF_I_WINDING].mean() - 0.03) < 0.003


def test_motor_turns_over_when_the_torque_beats_friction() -> None:
    """A load torque of 0.2 N m against 1 A (0.83 N m): the shaft accelerates forward; a
    reversal inside a PWM segment must not stop it (stiction only inside +-F_c)."""
    rig = BoardRig(options=PlantOptions(rotor="free", load_torque=0.2, zero_offset_a=0.0))
    rig.command_current(1.0)
    tr = rig.run(4000)
    assert tr.floats[-1, 2] > 3.0


def test_local_p_mode_moves_the_joint_to_the_reference() -> None:
    rig = BoardRig(options=PlantOptions(rotor="free"), mode=m.MODE_LOCAL_P)
    rig.ram[m.XW_REF] = 640  # 128 LSB = 0.48 rad away
    tr = rig.run(8000)  # 0.4 s
    assert abs(int(tr.ints[-1, TI_POS]) - 640) <= 3
    assert abs(tr.floats[-1, TF_THETA] - 128 * np.pi / 832) < 0.02


def test_stalled_local_p_mode_trips_on_over_current_after_5_ms() -> None:
    rig = BoardRig(options=PlantOptions(rotor="locked", sensing="winding-bipolar"),
                   mode=m.MODE_LOCAL_P)
    rig.ram[m.XW_REF] = 900
    tr = rig.run(400)
    tripped = np.nonzero(tr.ints[:, TI_STATUS] & m.STATUS_OVER_CURRENT)[0]
    assert 100 < tripped[0] < 140  # 5 ms above 2.5 A after the 1 kHz loop saturates
    assert np.all(tr.floats[tripped[0] + 2:, TF_I_WINDING] == 0.0)


@pytest.mark.parametrize("temp0", [84.0, 90.0])
def test_over_temperature_trip(temp0: float) -> None:
    rig = BoardRig(options=PlantOptions(rotor="locked", temp0_c=temp0))
    rig.command_current(0.5)
    tr = rig.run(100)
    hot = bool(tr.ints[-1, TI_STATUS] & m.STATUS_OVER_TEMPERATURE)
    assert hot == (temp0 > 85.0)


def test_unipolar_sign_workaround_is_wrong_while_braking_a_moving_shaft() -> None:
    """As built, a board braking a shaft driven by the load sees no current at all."""
    for sensing, blind in (("supply-unipolar", True), ("winding-bipolar", False)):
        rig = BoardRig(options=PlantOptions(sensing=sensing, rotor="free", load_torque=-1.0))
        rig.command_current(0.0)
        tr = rig.run(600)
        winding = tr.floats[-50:, TF_I_WINDING].mean()
        measured = rig.amps(tr.ints[-50:, TI_MEAS]).mean()
        if blind:
            assert abs(measured - winding) > 0.3
        else:
            assert abs(measured - winding) < 0.02
