"""Speed of one board at full fidelity: simulated seconds per wall second, fast and reference."""

import time

from servobus.plant.build import PlantOptions
from servobus.plant.rig import BoardRig


def _drive(rig: BoardRig, ticks: int, fast: bool) -> float:
    """Run `ticks` CAN periods with a reversing 0.8 A reference; return wall seconds."""
    start = time.perf_counter()
    for k in range(ticks):
        rig.command_current(0.8 if (k // 25) % 2 == 0 else -0.8)
        rig.run(rig.hw.periods_per_tick, record=False, fast=fast)
    return time.perf_counter() - start


def bench_board(seconds: float = 10.0, reference_seconds: float = 0.05) -> dict:
    """Full fidelity (switching plant, 120 kHz ADC, 20 kHz PI, free rotor) on one core."""
    options = PlantOptions(plant="switching", rotor="free")
    rig = BoardRig(options=options)
    _drive(rig, 1, fast=True)  # compile (or load the numba cache)
    ticks = max(1, round(seconds * rig.hw.can_hz))
    wall = _drive(rig, ticks, fast=True)
    ref_ticks = max(1, round(reference_seconds * rig.hw.can_hz))
    ref_wall = _drive(BoardRig(options=options), ref_ticks, fast=False)
    sim = ticks / rig.hw.can_hz
    ref_sim = ref_ticks / rig.hw.can_hz
    return {
        "sim_s": sim, "wall_s": wall, "sim_s_per_wall_s": sim / wall,
        "pwm_periods_per_s": sim * rig.hw.pwm_hz / wall,
        "reference_sim_s_per_wall_s": ref_sim / ref_wall,
        "speedup_vs_reference": (sim / wall) / (ref_sim / ref_wall),
    }
