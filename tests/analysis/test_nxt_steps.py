"""The paper's experiment on the emulated NXT (SPEC 6.2): stepped from rest at power levels 1, 4
and 5, speed as the brick measures it, first-order output-error models.  The identified gains
and time constants are asserted against Table 3 at the precision stated with each test."""

import math

import numpy as np
import pytest

from servobus.analysis import nxt_steps
from servobus.analysis.first_order_fit import FirstOrderModel
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant.build import PlantOptions
from servobus.plant.rig import TF_OMEGA, BoardRig
from servobus.presets.nxt import GAIN, LEVEL_VOLTS, OFFSET, PAPER_MODELS, TAU_S
from servobus.presets.servos import NXT

HW = nxt_steps.tachometer_board()


@pytest.fixture(scope="module")
def models() -> dict[int, tuple[FirstOrderModel, int]]:
    """The emulator's models at the paper's three levels, default record (20 s, 0.5 degree)."""
    return {level: nxt_steps.identify_level(level) for level in PAPER_MODELS}


def line_gain(volts: float) -> float:
    """The preset's motor: w = GAIN V - OFFSET, per volt."""
    return (GAIN * volts - OFFSET) / volts


@pytest.mark.parametrize("level", sorted(PAPER_MODELS))
def test_the_measured_gain_is_the_presets_motor_to_the_measurements_resolution(
        models: dict[int, tuple[FirstOrderModel, int]], level: int) -> None:
    # what limits it: one tachometer count over the record's travel, and the duty's one count
    # (2.5 mV) between the level's voltage and the terminal voltage it gives
    model, counts = models[level]
    volts = LEVEL_VOLTS[level]
    travel = line_gain(volts) * volts * nxt_steps.DEFAULT_SECONDS
    count_rel = math.radians(1.0) / travel
    duty_rel = (abs(nxt_steps.terminal_volts(NXT, HW, counts) - volts) / volts
                * GAIN * volts / (GAIN * volts - OFFSET))
    assert model.gain == pytest.approx(line_gain(volts), rel=count_rel + duty_rel)


def test_the_presets_line_passes_the_papers_three_gains_within_a_tenth_of_a_percent() -> None:
    # three measured gains, two constants (K, Coulomb friction): the least-squares line misses
    # them by -0.048, +0.094, -0.066 %
    errors = [line_gain(LEVEL_VOLTS[lv]) / p.gain - 1.0 for lv, p in PAPER_MODELS.items()]
    assert max(abs(e) for e in errors) < 1e-3
    volts = np.array([LEVEL_VOLTS[lv] for lv in PAPER_MODELS])
    speeds = np.array([p.gain for p in PAPER_MODELS.values()]) * volts
    assert np.polyfit(volts, speeds, 1) == pytest.approx([GAIN, -OFFSET], abs=2e-6)


@pytest.mark.parametrize("level", sorted(PAPER_MODELS))
def test_the_identified_gain_is_the_papers(models: dict[int, tuple[FirstOrderModel, int]],
                                           level: int) -> None:
    # 0.15 %: the paper prints b to 4 digits (+-0.033 % of its gain), the preset's line misses
    # the three printed gains by up to 0.094 % (test above), the measurement's resolution (test
    # before) is below 0.04 %; printed as the paper prints them, the gains differ by at most 2
    # in the last digit (level 4: 1.522 against 1.520)
    model, _ = models[level]
    assert model.gain == pytest.approx(PAPER_MODELS[level].gain, rel=1.5e-3)
    assert abs(round(model.gain, 3) - round(PAPER_MODELS[level].gain, 3)) <= 0.0021


@pytest.mark.parametrize("level", sorted(PAPER_MODELS))
def test_the_identified_time_constant_is_the_papers(
        models: dict[int, tuple[FirstOrderModel, int]], level: int) -> None:
    # 10 %: the time constant rests on the first sample's count alone (the motor settles in
    # ~10 ms, well inside one 0.1 s sample); one count more or less in it changes |p| by one
    # over the counts per sample (57 at level 4, 66 at level 5) and the time constant by ~20 %
    # (level 4: 24.7 ms at one count short, 29.8 ms at two); at level 1 (2.1 counts per 0.01 s)
    # by more.  Measured: -6.0, +5.3, -2.3 %
    model, _ = models[level]
    assert model.tau_s == pytest.approx(PAPER_MODELS[level].tau_s, rel=0.10)


def test_the_emulators_poles_are_positive_where_the_papers_are_negative(
        models: dict[int, tuple[FirstOrderModel, int]]) -> None:
    # started from rest, the first mean-speed sample falls short of the final speed: p > 0.
    # The paper prints z + f with f > 0 and gains b / (1 + f) consistent with it: its first
    # samples overshot (docs/presets.md, "NXT")
    assert all(model.pole > 0.0 for model, _ in models.values())
    assert all(paper.f > 0.0 for paper in PAPER_MODELS.values())
    assert all(model.pole == pytest.approx(paper.f, abs=0.011)
               for (model, _), paper in zip(models.values(), PAPER_MODELS.values(), strict=True))


def test_on_the_board_the_motor_is_4_percent_slower_through_the_dead_time() -> None:
    # the bridge's open segments (2 x 1 us in 50 us) carry no current: 4 % less electrical
    # damping; the emulated speed's exponential has the time constant that says
    rig = BoardRig(NXT, HW, PlantOptions(), mode=m.MODE_DUTY)
    board.can_actuation(rig.ram, nxt_steps.q12_duty(nxt_steps.level_duty(NXT, HW, 6.57), HW))
    board.can_tick(rig.ram, rig.rom)
    rig.run(1, record=False)
    w = rig.run(1000).floats[:, TF_OMEGA]  # 50 ms from the first driven period
    final = rig.run(2000).floats[-1, TF_OMEGA]
    k = np.arange(1, 201)  # 10 ms: 4 time constants
    tau = -1.0 / HW.pwm_hz / np.polyfit(k, np.log(1.0 - w[:200] / final), 1)[0]
    conducting = 1.0 - 2.0 * HW.dead_counts / HW.pwm_top
    expected = NXT.j / (NXT.kt ** 2 / NXT.r_a * conducting + NXT.b)
    assert tau == pytest.approx(expected, rel=2e-3)
    assert expected / TAU_S == pytest.approx(1.04, abs=0.005)


@pytest.mark.parametrize("volts", LEVEL_VOLTS.values())
def test_a_levels_duty_gives_its_voltage_at_the_terminals(volts: float) -> None:
    counts = nxt_steps.level_duty(NXT, HW, volts)
    step = NXT.supply_v / HW.pwm_top  # one duty count, less the back-EMF's small share
    assert abs(nxt_steps.terminal_volts(NXT, HW, counts) - volts) <= step / 2
    q12 = nxt_steps.q12_duty(counts, HW)
    assert (q12 * HW.pwm_top) >> 12 == counts


def test_the_speed_is_count_differences_over_the_sample_time() -> None:
    u, y, _ = nxt_steps.step_record(LEVEL_VOLTS[4], 0.1, 1.0)
    assert len(u) == len(y) == 11 and y[0] == 0.0 and np.all(u == LEVEL_VOLTS[4])
    counts = y * 0.1 / math.radians(1.0)
    assert np.allclose(counts, np.round(counts))  # whole degrees per sample
    assert 56 <= counts[1] < counts[2] <= 58  # 57.2 degrees per sample at the final speed


@pytest.mark.parametrize(("args", "message"), [
    ((2.5, 0.01, 0.05), "at least 10"), ((2.5, 0.00001, 1.0), "whole number"),
    ((9.0, 0.1, 2.0), "duty counts"), ((2.5, 0.01, 1.0, 1.0), "start-deg")])
def test_impossible_experiments_are_refused(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        nxt_steps.step_record(*args)
