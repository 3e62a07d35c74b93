"""PWM segments: they tile the period, dead time eats the pulse, centre alignment is centred."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from servobus.plant import hbridge
from servobus.plant import layout as p
from servobus.plant.build import PlantOptions, build_params
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import HSR_5995TG

TOP, DEAD = DEFAULT_BOARD.pwm_top, DEFAULT_BOARD.dead_counts


def _segments(duty: int, pwm: str = "edge", floating: bool = False, plant: str = "switching"):
    params = build_params(HSR_5995TG, DEFAULT_BOARD, PlantOptions(pwm=pwm, plant=plant))
    ends = np.zeros(hbridge.MAX_SEGMENTS, dtype=np.int64)
    states = np.zeros(hbridge.MAX_SEGMENTS, dtype=np.int64)
    n = hbridge.build_segments(duty, floating, params, ends, states)
    starts = np.concatenate(([0], ends[:n - 1]))
    return list(zip(starts.tolist(), ends[:n].tolist(), states[:n].tolist(), strict=True))


def _time_in(segments, state: int) -> int:
    return sum(e - s for s, e, st_ in segments if st_ == state)


@given(st.integers(-TOP, TOP), st.sampled_from(["edge", "centre"]))
def test_segments_tile_the_period_and_dead_time_eats_the_pulse(duty: int, pwm: str) -> None:
    segs = _segments(duty, pwm)
    assert segs[0][0] == 0 and segs[-1][1] == TOP
    assert all(s < e for s, e, _ in segs)
    assert all(segs[i][1] == segs[i + 1][0] for i in range(len(segs) - 1))
    drive = hbridge.DRIVE_POS if duty > 0 else hbridge.DRIVE_NEG
    mag = abs(duty)
    if mag in (0, TOP):
        assert len(segs) == 1 and _time_in(segs, hbridge.OPEN) == 0
        return
    pulse_end = (TOP - mag) // 2 + mag if pwm == "centre" else mag
    assert _time_in(segs, drive) == max(mag - DEAD, 0)
    assert _time_in(segs, hbridge.OPEN) == min(mag, DEAD) + min(DEAD, TOP - pulse_end)


@given(st.integers(1, TOP - 1))
def test_centre_aligned_pulse_is_centred(duty: int) -> None:
    segs = _segments(duty, "centre")
    on = [(s, e) for s, e, st_ in segs if st_ != hbridge.BRAKE]
    start, end = on[0][0], on[-1][1]
    assert start == (TOP - duty) // 2
    assert end == min(start + duty + DEAD, TOP)


def test_float_and_averaged_are_one_segment() -> None:
    assert _segments(1234, floating=True) == [(0, TOP, hbridge.OPEN)]
    assert _segments(-1234, plant="averaged") == [(0, TOP, hbridge.AVERAGED)]
    params = build_params(HSR_5995TG, DEFAULT_BOARD, PlantOptions(plant="averaged"))
    assert hbridge.winding_voltage(hbridge.AVERAGED, -1500, params) == -3.5
    assert hbridge.winding_voltage(hbridge.BRAKE, 1500, params) == 0.0
    assert params[p.DEAD_COUNTS] == 60
