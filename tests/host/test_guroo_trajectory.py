"""GuRoo trajectories: the move profile's properties, chained moves, the shipped walking pattern."""

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.host.guroo_trajectory import (
    JOINT_NAMES,
    GaitError,
    Moves,
    board_of,
    default_walk,
    load,
    move_position,
    move_velocity,
    parse,
    walk_file,
)
from servobus.host.guroo_walk import HEADER, IDX, WalkParameters, amplitudes, walk_pattern

THETAS = st.floats(-3.0, 3.0, allow_nan=False)
DURATIONS = st.floats(0.05, 5.0, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(THETAS, DURATIONS)
def test_integral_of_omega_over_a_move_is_theta(theta: float, duration: float) -> None:
    """Composite Simpson over 2000 intervals (error ~ h^4 omega'''' ~ 1e-13 here)."""
    n = 2000
    ts = np.linspace(0.0, duration, n + 1)
    w = np.array([move_velocity(theta, duration, t) for t in ts])
    integral = duration / n / 3 * (w[0] + w[-1] + 4 * w[1:-1:2].sum() + 2 * w[2:-1:2].sum())
    assert integral == pytest.approx(theta, abs=1e-9)
    assert move_position(theta, duration, duration) == pytest.approx(theta, abs=1e-12)
    assert move_position(theta, duration, duration / 2) == pytest.approx(theta / 2, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(THETAS, DURATIONS)
def test_velocity_and_acceleration_vanish_at_both_ends(theta: float, duration: float) -> None:
    h = duration * 1e-6
    for end in (0.0, duration):
        assert move_velocity(theta, duration, end) == pytest.approx(0.0, abs=1e-12)
    accel_start = (move_velocity(theta, duration, h) - 0.0) / h
    accel_end = (0.0 - move_velocity(theta, duration, duration - h)) / h
    peak_accel = 2 * math.pi * abs(theta) / duration ** 2
    assert abs(accel_start) <= 1e-5 * peak_accel + 1e-12
    assert abs(accel_end) <= 1e-5 * peak_accel + 1e-12
    assert move_velocity(theta, duration, duration / 2) == pytest.approx(2 * theta / duration)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(THETAS, DURATIONS), min_size=1, max_size=5))
def test_chained_moves_are_continuous_and_sum(moves: list[tuple[float, float]]) -> None:
    chain = Moves(tuple(m[0] for m in moves), tuple(m[1] for m in moves))
    boundary = 0.0
    for _theta, duration in moves[:-1]:
        boundary += duration
        assert chain.velocity(boundary) == pytest.approx(0.0, abs=1e-9)
        assert chain.position(boundary - 1e-9) == pytest.approx(
            chain.position(boundary + 1e-9), abs=1e-6)
    assert chain.position(chain.total_s) == pytest.approx(sum(m[0] for m in moves), abs=1e-9)


def test_joint_to_board_map() -> None:
    assert len(JOINT_NAMES) == 23
    assert [board_of(j) for j in (1, 3, 4, 15, 16, 23)] == [
        ("HP_1", 1), ("HP_1", 3), ("HP_2", 1), ("HP_5", 3), ("SERVO_BOARD", 1),
        ("SERVO_BOARD", 8)]


T0 = 2.5  # the thesis' t = 0 in the shipped walk: squat 1 s, sway in 1 s, then half a step
Q0 = 30.0  # hip yaw (deg) in double support: asin(0.100 m / 0.20 m)


def _deg(t: float) -> np.ndarray:
    """The shipped walk's joint angles (deg) at the thesis' time t (its 1 s window from double
    support: the right leg swings)."""
    return np.degrees(default_walk().position(T0 + t))


def test_squat_lift_and_sway_kinematics() -> None:
    """Squat: ankle 6, knee 12, hip 6 deg (L1898); the swing foot's ankle 20 mm higher with the
    leg vertical and the foot flat; the sway puts the hip 40 mm over the stance foot; the yaw
    puts the feet 100 mm apart (L1892) at 0.20 m between the hips."""
    a = amplitudes(WalkParameters())
    assert np.degrees(a.squat) == pytest.approx((6.0, 12.0, 6.0))
    h = 0.56 * math.cos(math.radians(6))
    hip, knee, ankle = a.lifted
    thigh, shank = hip, hip - knee  # segment angles from the vertical, torso upright
    assert 0.28 * math.cos(thigh) + 0.28 * math.cos(shank) == pytest.approx(h - 0.020)
    assert 0.28 * math.sin(thigh) + 0.28 * math.sin(shank) == pytest.approx(0.0, abs=1e-12)
    assert shank + ankle == pytest.approx(0.0, abs=1e-12)  # foot flat
    assert h * math.tan(a.roll) == pytest.approx(0.040)
    assert math.degrees(a.yaw) == pytest.approx(Q0, abs=1e-12)
    assert 0.20 * math.sin(a.yaw) == pytest.approx(0.100)


def test_the_step_s_phase_instants() -> None:
    """The right leg's step (thesis Figs. 8-10): in the squat and the yaw held until the lift
    at 0.25 s (L1910); fully lifted at the sway extreme, 0.5 s (L1914); down at 0.85 s (L1939);
    the yaw twist from +30 to -30 deg between lift and contact, halfway at 0.55 s."""
    right = [IDX[f"r_{part}"] for part in ("hip_pitch", "knee_pitch", "ankle_pitch")]
    lifted = np.degrees(amplitudes(WalkParameters()).lifted)
    for t in (0.0, 0.25, 0.85, 1.0):
        assert _deg(t)[right] == pytest.approx([6.0, 12.0, 6.0], abs=1e-9)
    assert _deg(0.5)[right] == pytest.approx(lifted, abs=1e-9)
    for t, yaw in ((0.0, Q0), (0.25, Q0), (0.55, 0.0), (0.85, -Q0), (1.0, -Q0)):
        assert _deg(t)[IDX["r_hip_yaw"]] == pytest.approx(yaw, abs=1e-9), t
    # the left leg, the support, keeps its squat through the right leg's step
    for t in np.arange(0.0, 1.0, 0.05):
        assert _deg(t)[IDX["l_knee_pitch"]] == pytest.approx(12.0, abs=1e-9)


def test_the_yaw_twists_where_the_thesis_twists() -> None:
    """Both hip yaws and the waist yaw move together (L1904: "each yaw axis motor twists"; the
    waist undoes the pelvis' turn, L1896), only between lift and contact, at 200 deg/s at most:
    60 deg in 0.6 s of the cosine profile, within the motor's 5.3 rad/s (304 deg/s, L1809)."""
    gait = default_walk()
    yaws = [IDX["l_hip_yaw"], IDX["r_hip_yaw"], IDX["waist_yaw"]]
    peak = 0.0
    for t in np.arange(0.0, 2.0, 0.01):
        velocity, position = gait.state(T0 + t)
        assert position[yaws[0]] == position[yaws[1]] == position[yaws[2]]
        moving = abs(velocity[yaws[0]]) > 1e-9
        assert moving == (0.25 < t % 1.0 < 0.85), t
        peak = max(peak, abs(math.degrees(velocity[yaws[0]])))
    assert math.degrees(gait.velocity(T0 + 0.55)[yaws[0]]) == pytest.approx(-200.0)
    assert peak == pytest.approx(200.0, rel=1e-3) and peak < math.degrees(5.3)


def test_the_legs_mirror_each_other_a_step_apart() -> None:
    """A step later the left leg does what the right did, the yaw and roll reversed, the arms
    swapped; every joint repeats after 2 s (1 Hz steps, 0.5 Hz sway)."""
    pairs = [(f"r_{part}", f"l_{part}", sign) for part, sign in (
        ("hip_pitch", 1), ("knee_pitch", 1), ("ankle_pitch", 1), ("hip_roll", -1),
        ("ankle_roll", -1), ("hip_yaw", -1), ("shoulder_pitch", 1))]
    for t in np.arange(0.0, 1.0, 0.05):
        now, later = _deg(t), _deg(t + 1.0)
        for right, left, sign in pairs:
            assert later[IDX[left]] == pytest.approx(sign * now[IDX[right]], abs=1e-9)
        assert np.allclose(_deg(t + 2.0), now, atol=1e-9)


def test_the_sway_is_one_move_from_extreme_to_extreme() -> None:
    """Vertical and at full roll speed at t = 0, "halfway through the movement that transfers
    the centre of mass" (L1908); at rest at the extreme over the left foot at 0.5 s (L1914);
    vertical again at 1.0 s, over the right foot at 1.5 s: 0.5 Hz (L1900)."""
    gait = default_walk()
    roll = IDX["l_hip_roll"]
    rho = math.degrees(amplitudes(WalkParameters()).roll)
    for t, angle in ((0.0, 0.0), (0.5, -rho), (1.0, 0.0), (1.5, rho), (2.0, 0.0)):
        assert _deg(t)[roll] == pytest.approx(angle, abs=1e-9)
        assert _deg(t)[IDX["r_ankle_roll"]] == pytest.approx(-angle, abs=1e-9)
    assert gait.velocity(T0 + 0.5)[roll] == pytest.approx(0.0, abs=1e-12)
    assert math.degrees(gait.velocity(T0)[roll]) == pytest.approx(-4 * rho)  # 2 theta / T


def test_every_cycle_closes_and_the_starts_set_the_phase() -> None:
    """Each joint's moves over a cycle sum to 0; the legs' rolls start half a step shorter."""
    gait = default_walk()
    assert gait.start_s == pytest.approx(T0) and gait.cycle_s == pytest.approx(2.0)
    rolls = {"l_hip_roll", "l_ankle_roll", "r_hip_roll", "r_ankle_roll"}
    for name, start, cycle in zip(JOINT_NAMES, gait.start, gait.cycle, strict=True):
        assert sum(cycle.thetas) == pytest.approx(0.0, abs=1e-12)
        assert cycle.total_s == pytest.approx(2.0)
        assert start.total_s == pytest.approx(2.0 if name in rolls else T0), name


def test_the_pattern_s_timing_is_checked() -> None:
    with pytest.raises(ValueError, match="two steps per sway period"):
        walk_pattern(WalkParameters(sway_hz=0.6))
    with pytest.raises(ValueError, match="lifts before the sway extreme"):
        walk_pattern(WalkParameters(lift_s=0.6))


def test_shipped_file_is_the_generator_output_and_round_trips() -> None:
    text = walk_file().read_text()
    assert text == walk_pattern().to_toml(HEADER)
    gait = parse(text)
    again = parse(gait.to_toml())
    for a, b in zip(gait.start + gait.cycle, again.start + again.cycle, strict=True):
        assert a.durations == b.durations
        assert np.allclose(a.thetas, b.thetas, atol=1e-12, rtol=0)


@pytest.mark.parametrize("text, message", [
    ("", "no [joint.<n>] tables"),
    ("[joint.1\nstart = 1", "not TOML"),
    ("[joint.24]\nstart = [[1, 1]]", "joint '24' is not a joint number"),
    ("[joint.1]\nstrat = [[1, 1]]", "a table of 'start' and 'cycle' only"),
    ("[joint.1]\nstart = [[1, 0]]", "T positive"),
    ("[joint.1]\nstart = [[1, 1, 2]]", "a pair [theta_deg, T_s]"),
    ("[joint.1]\nstart = [['a', 1]]", "a pair [theta_deg, T_s]"),
    ("[joint.1]\nstart = 3", "a list of [theta_deg, T_s] pairs"),
    ("[joint.1]\ncycle = [[5, 1], [-4, 1]]", "joint 1 cycle moves by 1 deg"),
    ("[joint.1]\ncycle = [[5, 1], [-5, 1]]\n[joint.2]\ncycle = [[5, 2], [-5, 1]]",
     "every joint's cycle must last as long: joint 2 3 s, joint 1 2 s"),
    ("[joint.1]\nstart = [[nan, 1]]", "theta must be finite"),
    ("[joint.01]\nstart = [[1, 1]]", "joint '01' is not a joint number"),
    # 400 deg in 1 s peaks at 13.96 rad/s; VEL_SP's +-32767 x 16 cnt/s is 10.56 rad/s
    ("[joint.4]\nstart = [[400, 1]]", "peak of 13.96 rad/s, VEL_SP carries 10.56 rad/s"),
    ("[joint.20]\nstart = [[1000, 10], [1000, 10]]", "reaches 2000 deg: SERVO_SP carries"),
])
def test_bad_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(GaitError) as err:
        load(path)
    assert message in str(err.value) and str(err.value).startswith(str(path))
    with pytest.raises(GaitError, match="cannot read"):
        load(tmp_path / "missing.toml")


@settings(max_examples=40, deadline=None)
@given(st.floats(0.0, 20.0, allow_nan=False))
def test_gait_arrays_equal_the_scalar_moves(t: float) -> None:
    """Gait.state (all joints at once) against Moves.velocity/position, joint by joint, each
    joint in its cycle from the end of its own start."""
    gait = default_walk()
    velocity, position = gait.state(t)
    for j, (start, cycle) in enumerate(zip(gait.start, gait.cycle, strict=True)):
        if t < start.total_s:
            want = start.velocity(t), start.position(t)
        else:
            into = (t - start.total_s) % gait.cycle_s
            want = cycle.velocity(into), sum(start.thetas) + cycle.position(into)
        assert (velocity[j], position[j]) == pytest.approx(want, rel=0, abs=1e-12)


def test_the_fastest_move_vel_sp_carries_is_accepted() -> None:
    """300 deg in 1 s peaks at 10.47 rad/s, within VEL_SP's 10.56 rad/s; servo joints may move
    faster (the servo board gets positions) but not beyond SERVO_SP's +-32.767 rad."""
    gait = parse("[joint.4]\nstart = [[300, 1]]\n[joint.20]\nstart = [[1800, 1]]\n")
    assert gait.velocity(0.5)[3] == pytest.approx(2 * math.radians(300))
