"""GuRoo's walk against the thesis' pattern (Appendix E; L = a line of
../shared/sources/guroo-thesis-hood-2002.txt): hand values at the step's phase instants, the yaw
twist, the legs' symmetry, the 2 s cycle, and a run of the walk on the emulated robot."""

import math

import numpy as np
import pytest

from servobus.host.guroo_central import COUNTS_PER_DEG
from servobus.host.guroo_trajectory import JOINT_NAMES, default_walk
from servobus.host.guroo_walk import IDX, WalkParameters, amplitudes, walk_pattern
from servobus.presets import guroo as pre
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.robot_file import load as load_robot

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
    with pytest.raises(ValueError, match=r"at least until the sway extreme, 0\.5 s"):
        walk_pattern(WalkParameters(sway_in_s=0.4))
    unequal = amplitudes(WalkParameters(thigh_m=0.30, shank_m=0.25))
    hip, knee, ankle = unequal.squat
    assert math.degrees(ankle) == pytest.approx(6.0)  # the squat's ankle pitch whatever the legs
    assert 0.30 * math.sin(hip) - 0.25 * math.sin(knee - hip) == pytest.approx(0.0, abs=1e-12)


def test_the_walk_runs_clean_on_the_emulated_robot() -> None:
    """3.6 s: the squat, the sway in, the left leg's half step, the right leg's whole step and
    the double support after it.  No faults, trips or current limits; every DC joint within
    1.5 deg of the gait as the central sees it: a lag under 1 deg, plus one stale feedback (the
    printed 4.02 ms loop slips against the 4 ms feedback grid, so a frame repeats a position
    every 0.804 s: up to speed x 4 ms, 0.8 deg at the yaws' 200 deg/s); the hip yaws and the
    waist yaw among them, which end at -30 deg (the right foot ahead)."""
    robot = DescribedRobot(load_robot("guroo"), DescribedConfig())
    robot.run(3.6)
    report = robot.report(1.0)
    central = report["nodes"]["CENTRAL"]
    assert (report["rx_faults"], report["tx_faults"], report["error_frames"]) == (0, 0, 0)
    for counts in ("servo_faults", "trips_seen", "current_limit_frames"):
        assert set(central[counts].values()) == {0}, counts
    worst = central["tracking"]["max_deg"]
    assert max(worst) < 1.5
    assert all(worst[IDX[name]] > 0.05 for name in ("l_hip_yaw", "r_hip_yaw", "waist_yaw"))
    for board, joint in (("HP_1", 1), ("HP_3", 7), ("HP_5", 13)):
        last = report["nodes"][board]["last_positions_cnt"][f"joint_{joint}"] / COUNTS_PER_DEG
        assert last == pytest.approx(-30.0, abs=1.0)
    # the arms: a PD servo lags a ramp by KD / KP x speed; 20 deg in 0.6 s peaks at 1.164 rad/s
    lag = pre.SERVO_KD_NM_S_RAD / pre.SERVO_KP_NM_RAD * 2 * math.radians(20.0) / 0.6  # 0.0623
    assert report["nodes"]["SERVO_BOARD"]["max_tracking_error_rad"] < 1.05 * lag
