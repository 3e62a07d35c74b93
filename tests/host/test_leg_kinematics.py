"""A SPEJBL leg's kinematics (SPEC 4.4): forward kinematics against poses worked by hand, and
the analytic inverse proven against it -- FK(IK(T)) = T for every solution of random reachable
poses, 8 distinct solutions in general with the thesis' count of distinct values per joint
(2, 4, 8, 2, 4, 2), 4 for a straight knee, an error beyond the leg's reach."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.host.leg_kinematics import LENGTH_M, Unreachable, forward, inverse

L = LENGTH_M
# joint angles away from the singular ones (a straight knee, a hip turned upright, the hip on
# the foot's axis), where the count of solutions is the general one
ANGLE = st.floats(-3.0, 3.0, allow_nan=False)
AWAY = st.floats(0.2, 2.9).flatmap(lambda x: st.sampled_from((x, -x)))


def test_forward_kinematics_of_poses_worked_by_hand() -> None:
    """Every angle 0: the leg straight along the pelvis' x, 2 L; the knee at 90 degrees: the
    ankle L along x and L along y (axes 3, 4 turn in the x-y plane when q1 = q2 = 0)."""
    straight = forward([0, 0, 0, 0, 0, 0])
    assert np.allclose(straight[:3, 3], [2 * L, 0, 0], atol=1e-15)
    bent = forward([0, 0, 0, math.pi / 2, 0, 0])
    assert np.allclose(bent[:3, 3], [L, L, 0], atol=1e-15)
    hip = forward([math.pi / 2, 0, 0, 0, 0, 0])  # the hip's yaw swings the leg about z
    assert np.allclose(hip[:3, 3], [0, 2 * L, 0], atol=1e-15)


@settings(max_examples=200, deadline=None)
@given(q1=ANGLE, q2=AWAY, q3=ANGLE, q4=AWAY, q5=ANGLE, q6=ANGLE)
def test_every_solution_reaches_the_pose(q1: float, q2: float, q3: float, q4: float, q5: float,
                                         q6: float) -> None:
    q = (q1, q2, q3, q4, q5, q6)
    pose = forward(q)
    solutions = inverse(pose)
    assert len(solutions) == 8
    for s in solutions:
        assert np.allclose(forward(s), pose, atol=1e-9), s
    # the angles the pose came from are one of the eight (mod 2 pi)
    assert min(max(abs(math.remainder(a - b, 2 * math.pi)) for a, b in zip(s, q, strict=True))
               for s in solutions) < 1e-6


def test_the_solutions_take_the_thesis_count_of_values_per_joint() -> None:
    """In general (random angles: no coincidence of values), q1 ... q6 take 2, 4, 8, 2, 4, 2
    distinct values over the 8 solutions, as the thesis counts (SPEC 4.4)."""
    rng = np.random.default_rng(4)
    for _ in range(200):
        q = rng.uniform(-3.0, 3.0, 6)
        q[1], q[3] = rng.choice([-1, 1]) * rng.uniform(0.2, 2.9, 2)
        solutions = inverse(forward(q))
        assert [len({round(s[k], 6) for s in solutions}) for k in range(6)] == \
            [2, 4, 8, 2, 4, 2]


@settings(max_examples=50, deadline=None)
@given(q1=ANGLE, q2=AWAY, q3=ANGLE, q5=ANGLE, q6=ANGLE)
def test_a_straight_knee_has_four_solutions(q1: float, q2: float, q3: float, q5: float,
                                            q6: float) -> None:
    pose = forward((q1, q2, q3, 0.0, q5, q6))
    solutions = inverse(pose)
    assert len(solutions) == 4 and all(s[3] == 0.0 for s in solutions)
    assert all(np.allclose(forward(s), pose, atol=1e-9) for s in solutions)


@pytest.mark.parametrize("reach", [2 * L + 1e-4, 0.5])
def test_a_foot_beyond_the_legs_reach_is_an_error(reach: float) -> None:
    pose = np.eye(4)
    pose[0, 3] = reach
    with pytest.raises(Unreachable, match=r"beyond the leg's 240\.0 mm"):
        inverse(pose)


def test_a_pose_at_full_stretch_is_reached() -> None:
    pose = forward([0.4, 1.0, -0.3, 0.0, 0.7, 0.2])
    assert all(np.allclose(forward(s), pose, atol=1e-9) for s in inverse(pose))
