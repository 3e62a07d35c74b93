"""The compiled host step equals the numpy reference bit for bit: PID bank, resets, playback."""

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.host.host_step import pid_reset, pid_step, trajectory_position
from servobus.host.pid import ANTI_WINDUP, PidBank, PidBankNumpy
from servobus.host.trajectory import Player, PlayerNumpy, Trajectory

# errors around the limits and far beyond, exact and signed zeros, and non-finite values
VALUES = st.one_of(st.floats(-3.0, 3.0), st.floats(-5000.0, 5000.0),
                   st.sampled_from([0.0, -0.0, 1e300, -1e300, np.inf, -np.inf, np.nan]))
GAIN = st.one_of(st.floats(0.0, 2.0), st.sampled_from([0.0, -0.0, 1e-9]))


@st.composite
def bank_runs(draw: st.DrawFn) -> tuple:
    """A bank (gains, i_max, variant, a_aw) and steps of (reference, measured, reset mask)."""
    n = draw(st.integers(1, 12))
    gains = np.array(draw(st.lists(st.tuples(GAIN, GAIN, GAIN), min_size=n, max_size=n)))
    i_max = draw(st.one_of(st.floats(0.0, 3.0), st.just(1.0), st.just(1e9)))
    variant = draw(st.sampled_from(ANTI_WINDUP))
    a_aw = draw(st.floats(-1.0, 2.0))
    vector = st.lists(VALUES, min_size=n, max_size=n).map(np.array)
    mask = st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n).map(np.array))
    steps = draw(st.lists(st.tuples(vector, vector, st.booleans(), mask), min_size=1,
                          max_size=40))
    return gains, i_max, variant, a_aw, steps


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and bytes (-0.0 included); a NaN matches any NaN: IEEE 754 leaves
    the sign and payload of a NaN result open, and numpy's SIMD loops and LLVM choose them
    differently (only inputs that are themselves NaN or infinite produce one)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return a.tobytes() == b.tobytes()
    nan = np.isnan(a)
    return bool((nan == np.isnan(b)).all()) and a[~nan].tobytes() == b[~nan].tobytes()


@settings(max_examples=150, deadline=None)
@given(bank_runs())
def test_compiled_pid_bank_equals_numpy_bitwise(run: tuple) -> None:
    gains, i_max, variant, a_aw, steps = run
    new, ref = PidBank(gains, i_max, variant, a_aw), PidBankNumpy(gains, i_max, variant, a_aw)
    for reference, measured, do_reset, mask in steps:
        integ = new.integ
        with np.errstate(invalid="ignore"):  # inf - inf: the non-finite inputs are drawn
            u_new, u_ref = new.step(reference, measured), ref.step(reference, measured)
        assert new.integ is integ  # the compiled path ran (it updates in place)
        assert same_bits(u_new, u_ref)
        assert same_bits(new.integ, ref.integ) and same_bits(new.e_prev, ref.e_prev)
        assert same_bits(new.saturated, ref.saturated)
        if do_reset:
            new.reset(mask)
            ref.reset(mask)
            assert same_bits(new.integ, ref.integ) and same_bits(new.e_prev, ref.e_prev)


def test_saturating_errors_flag_and_clamp_like_numpy() -> None:
    gains = np.tile([0.05, 0.004, 0.2], (4, 1))
    for variant in ANTI_WINDUP:
        new, ref = PidBank(gains, anti_windup=variant), PidBankNumpy(gains, anti_windup=variant)
        for e in ([40.0, -40.0, 0.0, -0.0], [-40.0, 40.0, -0.0, 0.0], [3.0, -3.0, 25.0, -25.0]):
            u = new.step(np.array(e), np.zeros(4))
            assert same_bits(u, ref.step(np.array(e), np.zeros(4)))
            assert same_bits(new.integ, ref.integ) and same_bits(new.saturated, ref.saturated)
        assert np.abs(u).max() <= 1.0  # hard: I keeps P + I + D inside, nothing saturates
        assert not new.saturated.any() if variant == "hard" else new.saturated.all()


def test_inputs_the_compiled_path_does_not_take_go_through_numpy() -> None:
    gains = np.tile([0.05, 0.004, 0.2], (3, 1))
    new, ref = PidBank(gains, anti_windup="dynamic"), PidBankNumpy(gains, anti_windup="dynamic")
    for reference, measured in (([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]), (np.arange(3), 0.5),
                                (np.ones(3, dtype=np.float32), np.zeros(3))):
        assert same_bits(new.step(reference, measured), ref.step(reference, measured))
        assert same_bits(new.integ, ref.integ) and same_bits(new.e_prev, ref.e_prev)
    new.reset([True, False, True])  # type: ignore[arg-type]
    ref.reset([True, False, True])  # type: ignore[arg-type]
    assert same_bits(new.integ, ref.integ) and same_bits(new.e_prev, ref.e_prev)


@numba.njit
def _engine_periods(gains: np.ndarray, i_max: float, mode: int, a_aw: float,
                    refs: np.ndarray, meas: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """What a compiled period engine does: the PID step and resets from its own numba code."""
    n = gains.shape[1]
    integ, e_prev = np.zeros(n), np.full(n, np.nan)
    out, saturated = np.empty((refs.shape[0], n)), np.zeros(n, dtype=np.bool_)
    for k in range(refs.shape[0]):
        pid_step(gains[0], gains[1], gains[2], i_max, mode, a_aw, integ, e_prev, refs[k],
                 meas[k], out[k], saturated)
        pid_reset(masks[k], integ, e_prev)
    return out


def test_the_plain_functions_run_inside_another_compiled_function() -> None:
    rng = np.random.default_rng(11)
    gains = np.array([[0.05] * 12, [0.004] * 12, [0.2] * 12])
    refs, meas = rng.normal(500.0, 40.0, (200, 12)), rng.normal(500.0, 40.0, (200, 12))
    masks = rng.random((200, 12)) < 0.05
    for mode, variant in enumerate(ANTI_WINDUP):
        ref = PidBankNumpy(gains.T, 1.0, variant, 0.3)
        expected = []
        for k in range(200):
            expected.append(ref.step(refs[k], meas[k]))
            ref.reset(masks[k])
        assert same_bits(_engine_periods(gains, 1.0, mode, 0.3, refs, meas, masks),
                         np.array(expected))


@st.composite
def playbacks(draw: st.DrawFn) -> tuple:
    """A trajectory (lines x joints, durations) and playback operations."""
    lines, joints = draw(st.integers(1, 30)), draw(st.integers(1, 12))
    poses = np.array(draw(st.lists(st.lists(st.integers(0, 1023), min_size=joints,
                                            max_size=joints), min_size=lines, max_size=lines)),
                     dtype=float)
    durations = np.array(draw(st.lists(st.one_of(st.floats(1e-3, 10.0),
                                                 st.sampled_from([0.1, 0.004, 0.3])),
                                       min_size=lines, max_size=lines)))
    op = st.one_of(st.tuples(st.just("advance"), st.floats(0.0, 30.0)),
                   st.tuples(st.just("advance"), st.sampled_from([0.0, 0.004, 0.1])),
                   st.tuples(st.just("scrub"), st.floats(0.0, 1.0)),
                   st.tuples(st.just("pause"), st.booleans()))
    return Trajectory(poses, durations), draw(st.lists(op, min_size=1, max_size=40))


def _position(player: PlayerNumpy) -> np.ndarray | str:
    """The pose, or the error numpy indexing gives (a time in the cumsum/sum rounding gap)."""
    try:
        return player.position()
    except IndexError:
        return "IndexError"


@settings(max_examples=150, deadline=None)
@given(playbacks())
def test_compiled_playback_equals_numpy_bitwise(run: tuple) -> None:
    trajectory, ops = run
    new, ref = Player(trajectory), PlayerNumpy(trajectory)
    wall = 0.0
    for kind, value in ops:
        if kind == "advance":
            wall += value
            new.advance_to(wall)
            ref.advance_to(wall)
        elif kind == "scrub":
            new.scrub(value)
            ref.scrub(value)
        else:
            new.paused = ref.paused = value
        got, want = _position(new), _position(ref)
        assert isinstance(got, str) == isinstance(want, str)
        if not isinstance(got, str):
            assert not isinstance(want, str) and same_bits(got, want)
            assert new.index() == ref.index()


@numba.njit
def _poses_at(poses: np.ndarray, starts: np.ndarray, durations: np.ndarray, period_s: float,
              times: np.ndarray) -> np.ndarray:
    out = np.empty((times.shape[0], poses.shape[1]))
    for k in range(times.shape[0]):
        trajectory_position(poses, starts, durations, period_s, times[k], out[k])
    return out


def test_playback_from_compiled_code_wraps_like_the_player() -> None:
    poses = np.array([[100.0] * 12, [200.0] * 12, [150.0] * 12])
    durations = np.array([1.0, 0.5, 0.25])
    trajectory = Trajectory(poses, durations)
    starts = np.concatenate(([0.0], np.cumsum(durations)))
    times = np.array([0.0, 0.25, 1.25, 1.6, 1.75 + 0.125, 17.5 + 1.0])
    got = _poses_at(poses, starts, durations, trajectory.period_s, times)
    assert got[:, 0].tolist() == pytest.approx([100.0, 125.0, 175.0, 130.0, 112.5, 200.0])
    for t, row in zip(times, got, strict=True):
        ref = PlayerNumpy(trajectory)
        ref.advance_to(0.0)
        ref.advance_to(float(t))
        assert same_bits(row, ref.position())
