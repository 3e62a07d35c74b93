"""Speed of the GuRoo board kernel and the feathering demonstration for the closing note."""

import time

import numpy as np

from servobus.firmware import guroo_memory as g
from servobus.plant.guroo_rig import GurooRig

WALK_WORDS = (2000, -1500, 800)  # 32000, -24000, 12800 cnt/s: walking-pattern speeds


def bench_guroo_board(seconds: float = 1.0, loop: str = "2002", repeats: int = 5) -> dict:
    """Wall time of the compiled kernel per timer period of one 3-motor board (min/median/max
    over `repeats` runs of `seconds` simulated each, after a warm-up that compiles)."""
    rig = GurooRig(1, loop)
    rig.set_velocity(WALK_WORDS)
    rig.run(1000)
    periods = max(1, round(seconds * 1e9 / rig.period_ns))
    ns = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        rig.run(periods)
        ns.append((time.perf_counter_ns() - t0) / periods)
    period_ns = float(rig.period_ns)
    return {
        "loop": loop, "simulated_s_per_repeat": periods * period_ns / 1e9, "repeats": repeats,
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
    timer interrupt applied once set_PWM had it (exactly 100 + output/16: steps of 1/16 of a
    compare count about the bipolar bridge's zero at 100)."""
    rig = GurooRig(1, loop)
    rig.set_velocity((word, 0, 0))
    rig.run(50_000)
    ticks = int(rig.rom[g.R_LOOP_TICKS])
    rig.run((ticks - int(rig.ram[g.TIMER_COUNT])) % ticks)  # to a loop boundary
    rows = []
    for phase, w in (("before", word), ("after", word + step)):
        rig.set_velocity((w, 0, 0))
        for _ in range(loops):
            out = int(rig.ram[g.OUT])  # computed at the last boundary, set after R_LATENCY
            compares = []
            for _ in range(ticks):
                rig.run(1)
                compares.append(int(rig.ram[g.CMPR]))
            landed = int(rig.rom[g.R_LATENCY]) + 1  # c_int2's write is applied a period later
            windows = sorted({sum(compares[a:a + 16]) / 16
                              for a in range(landed, ticks - 15)})
            rows.append({"phase": phase, "setpoint_cnt_s": 16 * w,
                         "output_q4": out, "output_counts": out / 16,
                         "window_mean_compares": windows})
    return {"loop": loop, "pwm_period_counts": g.T1PR + 1, "feather_cycles": 16,
            "resolution_counts": 1 / 16, "loops": rows}
