"""Speed of the GuRoo board kernel and the feathering demonstration for the closing note."""

import time

import numpy as np

from servobus.firmware import guroo_memory as g
from servobus.plant.guroo_rig import GurooRig
from servobus.presets import guroo as pre

WALK_WORDS = (2000, -1500, 800)  # 32000, -24000, 12800 cnt/s: walking-pattern speeds


def bench_guroo_board(seconds: float = 1.0, loop: str = "2002", repeats: int = 5) -> dict:
    """Wall time of the compiled kernel per timer period of one 3-motor board (min/median/max
    over `repeats` runs of `seconds` simulated each, after a warm-up that compiles)."""
    rig = GurooRig(1, loop)
    rig.set_velocity(WALK_WORDS)
    rig.run(1000)
    periods = max(1, round(seconds * pre.PWM_HZ))
    ns = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        rig.run(periods)
        ns.append((time.perf_counter_ns() - t0) / periods)
    period_ns = 1e9 / pre.PWM_HZ
    return {
        "loop": loop, "simulated_s_per_repeat": periods / pre.PWM_HZ, "repeats": repeats,
        "ns_per_period": {"min": min(ns), "median": float(np.median(ns)), "max": max(ns)},
        "real_time_fraction": {"min": min(ns) / period_ns, "median": float(np.median(ns))
                               / period_ns, "max": max(ns) / period_ns},
        "periods_per_s_median": 1e9 / float(np.median(ns)),
    }


def feathering_step(loop: str = "2002", word: int = 1000, step: int = 1,
                    loops: int = 3) -> dict:
    """The feathering resolution shown with a small set-point step: after 0.5 s at `word`
    (16 cnt/s per LSB) the set-point moves by `step`; for `loops` control loops before and
    after, the controller output and the mean compare value of every 16-period window the
    timer interrupt applied (exactly output/16: steps of 1/16 of a compare count)."""
    rig = GurooRig(1, loop)
    rig.set_velocity((word, 0, 0))
    rig.run(50_000)
    ticks = int(rig.rom[g.R_LOOP_TICKS])
    rig.run((ticks - int(rig.ram[g.TIMER_COUNT])) % ticks)  # to a loop boundary
    rows = []
    for phase, w in (("before", word), ("after", word + step)):
        rig.set_velocity((w, 0, 0))
        for _ in range(loops):
            out = int(rig.ram[g.OUT])  # computed at the last boundary, applied after R_LATENCY
            compares = []
            for _ in range(ticks):
                rig.run(1)
                compares.append(int(rig.ram[g.DIR]) * int(rig.ram[g.CMPR]))
            windows = sorted({sum(compares[a:a + 16]) / 16
                              for a in range(0, ticks - 15, 16) if a >= int(rig.rom[g.R_LATENCY])})
            rows.append({"phase": phase, "setpoint_cnt_s": 16 * w,
                         "output_q4": out, "output_counts": out / 16,
                         "window_mean_compares": windows})
    return {"loop": loop, "pwm_period_counts": g.PERIOD, "feather_cycles": 16,
            "resolution_counts": 1 / 16, "loops": rows}
