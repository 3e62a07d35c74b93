"""GuRoo trajectories: the move profile's properties, chained moves, gait files (the shipped walk
among them)."""

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
from servobus.host.guroo_walk import HEADER, walk_pattern

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
