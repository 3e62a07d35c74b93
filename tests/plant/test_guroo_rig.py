"""GuRoo high-power board on its plant: fast = reference, step tracking, trip, encoder."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.firmware import guroo_memory as g
from servobus.plant import guroo_build as b
from servobus.plant.guroo_rig import GurooRig, filtered, sample
from servobus.presets import guroo as pre


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["2002", "2khz"]), st.integers(0, 2**31),
       st.lists(st.tuples(st.integers(-8000, 8000), st.integers(-8000, 8000),
                          st.integers(-8000, 8000), st.integers(1, 1200)),
                min_size=1, max_size=4))
def test_fast_path_equals_reference_bit_for_bit(loop: str, seed: int,
                                                steps: list[tuple[int, int, int, int]]) -> None:
    fast, ref = GurooRig(2, loop, seed), GurooRig(2, loop, seed)
    fast.params[b.TRIP_A] = ref.params[b.TRIP_A] = 3.0  # trips happen too
    for w0, w1, w2, periods in steps:
        for rig, is_fast in ((fast, True), (ref, False)):
            rig.set_velocity((w0, w1, w2))
            rig.run(periods, fast=is_fast)
    np.testing.assert_array_equal(fast.ram, ref.ram)
    assert fast.state.tobytes() == ref.state.tobytes()
    np.testing.assert_array_equal(fast.istate, ref.istate)


def settle_ms(loop: str, word: int) -> tuple[float, float]:
    """Time for joint 1 to get within 2 % of a velocity step, and the largest error after."""
    rig = GurooRig(1, loop)
    rig.set_velocity((word, 0, 0))
    target = 16.0 * word
    speeds = []
    for _ in range(100):  # 0.2 s, 2 ms apart
        rig.run(200)
        speeds.append(rig.joint_velocity_cnt_s()[0])
    err = np.abs(np.array(speeds) - target)
    outside = np.nonzero(err > 0.02 * abs(target))[0]
    return 2.0 * (outside[-1] + 1), float(err[80:].max())


def test_velocity_step_is_tracked() -> None:
    # 48000 cnt/s at the motor = 0.96 rad/s at the joint, from rest
    t2002, e2002 = settle_ms("2002", 3000)
    t2k, e2k = settle_ms("2khz", 3000)
    assert 40.0 <= t2002 <= 120.0 and e2002 < 0.01 * 48000  # measured 82 ms, 205 cnt/s
    assert 10.0 <= t2k <= 40.0 and e2k < 0.01 * 48000  # measured 24 ms, 77 cnt/s
    assert t2k < t2002  # the redesign's 2 kHz loop is faster


def test_encoder_counts_and_index() -> None:
    rig = GurooRig(1, "2002")
    assert round(pre.COUNTS_PER_JOINT_DEG) == 867
    rig.set_velocity((-2500, 0, 0))  # -40000 cnt/s
    rig.run(40_000)  # 0.4 s
    true = np.floor(rig.state[0, b.S_THETA] * rig.params[b.CPR])
    assert abs(int(rig.ram[g.POS]) - true) < 40000 * 0.004 * 1.2  # read up to a loop ago
    assert int(rig.ram[g.POS]) < -10_000
    assert rig.ram[g.INDEX_COUNT] >= 5
    assert int(rig.ram[g.INDEX_POS]) > int(rig.ram[g.POS])


def test_pdpint_trip_floats_all_outputs() -> None:
    rig = GurooRig(3, "2002")
    rig.params[b.TRIP_A] = 1.0  # trimmer at 1 A: a step trips it
    rig.set_velocity((4000, 4000, 4000))
    rig.run(2000)
    assert rig.ram[g.TRIPS] == 1 and rig.ram[g.TRIPPED] == 1
    rig.run(3000)  # 30 ms later: the diodes returned the current, shafts coast
    assert np.all(rig.state[:, b.S_I] == 0.0)
    assert rig.ram[g.TRIPS] == 1
    omega = rig.state[:, b.S_OMEGA].copy()
    rig.run(1000)
    assert np.all(np.abs(rig.state[:, b.S_OMEGA]) <= np.abs(omega))
    assert np.all(rig.state[:, b.S_I] == 0.0)


def cosine_move_rms(loop: str) -> tuple[float, int, int]:
    """RMS velocity error (cnt/s) of joints 1, 2 over a 20-degree move out and back in 2 x 0.5 s
    (SPEC 5's cosine profile, set-points every 2 ms), trips, and joint 1's final position."""
    rig = GurooRig(1, loop)
    theta, period = 20 * pre.COUNTS_PER_JOINT_DEG, 0.5
    errors = []
    for sign in (1.0, -1.0):
        for k in range(250):
            w = sign * theta / period * (1 - np.cos(2 * np.pi * k * 0.002 / period))
            rig.set_velocity((round(w / 16), round(-w / 16), 0))
            rig.run(200)
            errors.extend(rig.joint_velocity_cnt_s()[:2] - (w, -w))
    rms = float(np.sqrt(np.mean(np.square(errors))))
    return rms, int(rig.ram[g.TRIPS]), int(rig.ram[g.POS])


def test_walking_velocity_profile_is_tracked() -> None:
    peak = 2 * 20 * pre.COUNTS_PER_JOINT_DEG / 0.5  # 69 333 cnt/s at the motor
    # out and back: the words sum to 0, so the joint ends at 0 within the PI's static error
    # against Coulomb friction (70 mA x 2 ohm = 5.3 output units of 26.25 mV: 5.3 x 256 / KI
    # Q4 = 3.7 counts at KI 23, 1.5 at KI 57)
    rms, trips, pos = cosine_move_rms("2002")
    assert rms < 0.005 * peak and trips == 0 and abs(pos) <= 5  # measured 192 cnt/s, -4
    rms, trips, pos = cosine_move_rms("2khz")
    assert rms < 0.002 * peak and trips == 0 and abs(pos) <= 2  # measured 89 cnt/s, -2


def test_current_sense_path_numbers() -> None:
    params = b.build_params()
    assert b.build_rom(1)[g.R_ILIM_MA] == 4000  # the motors' 4 A peak rating
    rig = GurooRig(1)
    rig.state[:, b.S_VC] = 2.0  # 2 A of supply current: (2000 - 152) / 17 = 108.7 codes
    for _ in range(50):
        sample(rig.ram, rig.params, rig.state, rig.istate)
        codes = {int(w) >> 6 for w in rig.ram[g.REG_ADC:g.REG_ADC + 3]}
        assert codes <= set(range(106, 112))  # +-2 codes of amplifier noise, +-0.5 conversion
        assert rig.ram[g.REG_ADC] & 0x3F == 0  # left-justified: the low 6 bits read 0
    rig.state[:, b.S_VC] = 0.1  # below the amplifier's offset: clipped at code 0
    sample(rig.ram, rig.params, rig.state, rig.istate)
    assert set(rig.ram[g.REG_ADC:g.REG_ADC + 3]) == {0}
    # a step of shunt current reaches 1 - e^-2 = 86 % after 3 periods (30.15 us ~ 2 tau)
    vc = 0.0
    for _ in range(3):
        vc = filtered(params[b.RC_ALPHA], vc, 1.0)
    assert vc == pytest.approx(1 - np.exp(-3 * 10.05e-6 / 15e-6))


def sense_gain(hz: float) -> float:
    """Steady amplitude of the sense RC's output for a unit sine of shunt voltage at `hz`,
    sampled once per 10.05 us period as the rig does."""
    alpha = b.build_params()[b.RC_ALPHA]
    t = np.arange(4000) * 10.05e-6
    vc, out = 0.0, []
    for vs in np.sin(2 * np.pi * hz * t) + 1.0:  # offset: the filter flushes negatives
        vc = filtered(alpha, vc, vs)
        out.append(vc)
    tail = np.array(out[2000:])
    return float((tail.max() - tail.min()) / 2)


def test_current_sense_corner_is_the_rc_s() -> None:
    corner = 1 / (2 * np.pi * 150e3 * 100e-12)  # SPEC 5: 150 kohm, 100 pF: 10.6 kHz
    assert sense_gain(corner / 10) > 0.99
    # at the corner: 1/sqrt 2 for the RC; the once-per-period sampled input leaves it at 0.72
    assert sense_gain(corner) == pytest.approx(2 ** -0.5, rel=0.03)
    assert sense_gain(3 * corner) < 0.45


def test_pdpint_trips_at_the_trimmer_current_on_a_ramp() -> None:
    rig = GurooRig(1, "2002")
    rig.rom[g.R_LOOP_TICKS] = 1 << 40  # no control loop: the current is driven from outside
    before = 0.0
    for step in range(2000):
        rig.state[0, b.S_I] = 8.0 + 0.001 * step  # the period's start; decays ~6 % within it
        rig.run(1)
        if rig.ram[g.TRIPS]:
            break
        before = rig.state[0, b.S_I]
    tripped = rig.state[0, b.S_I]
    assert rig.ram[g.TRIPS] == 1
    assert before <= pre.PDPINT_TRIP_A < tripped < before + 0.002  # SPEC 5's trimmer: 8 A


def test_the_readings_change_what_they_name() -> None:
    """The period: 10.05 us (T1PR + 1) or 10 us; the bridge's zero: compare 100.5 or 100, so
    set_PWM(0) drives -V/201 or nothing; no trip with PDPINT masked."""
    plus_one, plain = GurooRig(1), GurooRig(1, t1_period="txpr")
    assert (plus_one.period_ns, plain.period_ns) == (10_050, 10_000)
    assert b.loop_hz("2002") == pytest.approx(248.756, abs=1e-3)
    for rig, volts in ((plus_one, -42.0 / 201), (plain, 0.0)):
        rig.run(400)  # set_PWM(k, 0) from boot: compare 100 every period
        assert rig.ram[g.CMPR] == 100
        d = rig.params[b.P_CLOCKS]
        assert 42.0 * (2 * 100 / d - 1) == pytest.approx(volts)
    masked, latched = GurooRig(3, pdpint="masked-no-trip"), GurooRig(3)
    assert masked.params[b.TRIP_A] == np.inf
    latched.params[b.TRIP_A] = 1.0  # a trimmer at 1 A: the step below trips it
    for rig in (masked, latched):
        rig.set_velocity((4000, 4000, 4000))
        rig.run(2000)
    assert (masked.ram[g.TRIPS], latched.ram[g.TRIPS]) == (0, 1)
    with pytest.raises(ValueError, match="adc_fifo"):
        GurooRig(1, adc_fifo="old")
