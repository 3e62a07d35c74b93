"""CPU budgets of the GuRoo high-power board (TMS320F243, 20 MIPS): the thesis' printed firmware
by its cycle model, and the emulated firmware by its counted ops.

``printed_budget``: the 2001 board's firmware as printed (thesis Appendix B), costed as TI's C
compiler for the C2xx executes it (presets.guroo_cycles: constructs, routines, calls per loop);
per routine its cycles, the interrupts' share of the CPU, the control routine's time with the
printed ``read_enc`` and with the thesis' rewrite, beside the measured 1.28 ms and the ~700 Hz /
~1.5 kHz rates, and what the data sheets leave unexplained (the excess per external read a fit
to 1.28 ms needs), with its size; the emulated board's printed loop takes this loop time
(plant.guroo_build.latency_periods).

``measure``: the emulated firmware on the reference path under a walking-like workload (three
joints following cosine velocity profiles, VEL_SP frames every 2 ms), every int16/int32
primitive it calls and every RAM word, long, ROM constant and peripheral register it touches
tallied per entry point (timer_isr, loop_due, bl_control, can_rx) and turned into C2xx cycles
with CYCLES: one cycle per single-word instruction from on-chip memory, the multiplier
single-cycle (TI SPRU127, ch. 7 instruction pages; ch. 3 multiplier); a long is two words; a
compare is SUB + BCND (2 words, 4 cycles when taken: the worst case is charged); a read of an
external port (both HCTL-2016s' high bytes, or their low bytes) is one IN from I/O space with
IO_WAIT_STATES wait states; the event manager's compare reload at the period match is hardware,
not charged.  Interrupt entry and exit are ISR_OVERHEAD_CYCLES (assumed, not counted).  The
2 kHz loop's simulated latency is this count, rounded up to timer periods.
"""

from typing import Any

import numpy as np

from servobus.analysis.op_counter import OpCounter
from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.firmware import int16 as i16
from servobus.firmware import int32 as i32
from servobus.plant.guroo_build import latency_periods, loop_hz
from servobus.plant.guroo_rig import GurooRig
from servobus.presets import guroo as pre
from servobus.presets import guroo_cycles as cyc

IO_WAIT_STATES = cyc.IO_WAIT_STATES  # WSGR = 0x0BFF: 7 I/O wait states (presets.guroo_cycles)
ISR_OVERHEAD_CYCLES = 60  # interrupt latency, vector branch, C context save/restore (assumed)
CYCLES = {
    "load_word": 1, "store_word": 1,  # LACC/LT/ADD/SUB dma, SACL (direct addressing, DARAM)
    "load_long": 2, "store_long": 2,  # a long: two words (LACC+ADDS, SACL+SACH)
    "load_rom": 1,  # const in data memory
    "load_reg": 1, "store_reg": 1,  # memory-mapped peripheral registers (T2CNT, ADC results)
    "io_read": 2 + IO_WAIT_STATES,  # IN from I/O space: 2 cycles + wait states
    "add16": 1, "sub16": 1, "wrap16": 0, "u16": 0,  # one ALU instruction; a word wraps by itself
    "mpy": 2, "apac": 2,  # LT + MPY; PAC + APAC
    "add": 2, "sub": 2,  # long add/sub: two words
    "asr": 4,  # RPT + SFR with a shift count, or SACH with the output shifter and a reload
    "shl": 1,  # the input shifter on a load
    "bit_and": 1, "bit_or": 1, "wrap32": 0,
    "eq": 4, "ne": 4, "lt": 4, "gt": 4, "ge": 4,  # SUB + BCND, taken
    "sat16": 0,  # its two compares are counted
    "divmod_floor": 24,  # ABS, RPT #15 + SUBC (17), quotient/remainder and the sign fix-up
}
ENTRIES = ("timer_isr", "loop_due", "bl_control", "can_rx")
_I16 = ("add16", "sub16", "wrap16", "u16", "mpy", "apac")
_I32 = ("add", "sub", "asr", "bit_and", "bit_or", "wrap32", "eq", "ne", "lt", "gt", "ge")
_LONGS = {s + k for s in (g.POS, g.REF, g.INDEX_POS) for k in range(g.MOTORS)}
_SHADOW = {g.CMPR_SHADOW + k for k in range(g.MOTORS)}  # CMPRk as c_int2 writes it
_REGS = {g.REG_T2CNT, g.REG_VBUS, *(g.REG_ADC + k for k in range(g.MOTORS)),
         *(g.REG_INDEX + k for k in range(g.MOTORS)), *_SHADOW}
_HCTL = {g.REG_PORT0, g.REG_PORT1}  # one IN each: both decoders' high bytes, their low bytes
# the emulator's statistic, and the event manager's own compare reload at the period match (the
# active compare registers loaded from their shadows: hardware, no instruction)
_NOT_FIRMWARE = {g.FEATHERED, *(g.CMPR + k for k in range(g.MOTORS))}


def _classify(key: Any, verb: str) -> tuple[str, ...]:
    """A RAM access by address: a long, a peripheral register, an external port of the
    HCTL-2016s (one IN), or a word; slices, the emulator's statistic and the hardware's compare
    reload (the active register stored, its shadow loaded): nothing."""
    if not isinstance(key, int | np.integer) or key in _NOT_FIRMWARE:
        return ()
    if key in _HCTL:
        return ("io_read",)
    if key in _SHADOW and verb == "load":  # only the reload reads a shadow
        return ()
    if key in _REGS:
        return (f"{verb}_reg",)
    return (f"{verb}_long" if key in _LONGS else f"{verb}_word",)


def _classify_rom(key: Any, verb: str) -> tuple[str, ...]:
    """A ROM constant (const in data memory)."""
    return ("load_rom",) if isinstance(key, int | np.integer) else ()


def counter() -> OpCounter:
    """An OpCounter over the DSP's primitives and the board's entry points, in C2xx cycles."""
    return OpCounter(CYCLES, primitives=((i16, _I16), (i32, _I32),
                                         (fw, ("sat16", "shl", "divmod_floor"))),
                     entries=(fw, ENTRIES))


def watch(count: OpCounter, ram: np.ndarray, rom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counting views of a board's RAM and ROM; use them in place of the arrays."""
    return count.watch(ram, _classify), count.watch(rom, _classify_rom)


def walking_words(t: float) -> tuple[int, int, int]:
    """VEL_SP words of three joints moving like the walking pattern: 20, 12 and 6 degree moves
    of 0.5 s, cosine velocity profiles (SPEC 5), alternating in direction."""
    words = []
    for theta_deg, phase in ((20.0, 0.0), (12.0, 0.25), (6.0, 0.1)):
        u = (t + phase) % 1.0
        sign = 1.0 if u < 0.5 else -1.0
        cnt_s = theta_deg * pre.COUNTS_PER_JOINT_DEG / 0.5 * (1 - np.cos(4 * np.pi * u))
        words.append(round(sign * cnt_s / 16))
    return words[0], words[1], words[2]


def measure(loop: str = "2002", frames: int = 50) -> dict:
    """Count the firmware over `frames` set-point periods of the workload (2 ms each); the
    JSON-ready budget."""
    rig = GurooRig(1, loop)
    per_frame = pre.SETPOINT_PERIOD_NS // rig.period_ns
    with counter() as count:
        rig.ram, rig.rom = watch(count, rig.ram, rig.rom)
        for f in range(frames):
            rig.set_velocity(walking_words(f * pre.SETPOINT_PERIOD_NS / 1e9), f)
            rig.run(per_frame, fast=False)
    return budget_dict(count, loop)


def _entry_dict(count: OpCounter, name: str, rate_hz: float, overhead: int) -> dict:
    calls = max(count.calls[name], 1)
    ops = {op: n / calls for op, n in sorted(count.per_isr[name].items())}
    cycles = count.cost(ops) + overhead
    return {"rate_hz": rate_hz, "calls_counted": count.calls[name], "ops_per_call": ops,
            "cycles_per_call": cycles,
            "worst_cycles_per_call": count.worst[name] + overhead,
            "us_per_call": cycles / pre.CPU_HZ * 1e6,
            "cpu_pct": 100.0 * rate_hz * cycles / pre.CPU_HZ}


def budget_dict(count: OpCounter, loop: str) -> dict:
    """Interrupt loads and the control loop's time with the interrupts, from the counted ops of
    the emulated firmware."""
    hz = loop_hz(loop)
    in_isr = loop == "2khz"  # the redesign runs the loop from its own periodic interrupt
    entries = {
        "timer_isr": _entry_dict(count, "timer_isr", pre.PWM_HZ, ISR_OVERHEAD_CYCLES),
        "can_rx": _entry_dict(count, "can_rx", 1e9 / pre.SETPOINT_PERIOD_NS,
                              ISR_OVERHEAD_CYCLES),
        "bl_control": _entry_dict(count, "bl_control", hz,
                                  ISR_OVERHEAD_CYCLES if in_isr else 0),
    }
    isr_load = (entries["timer_isr"]["cpu_pct"] + entries["can_rx"]["cpu_pct"]) / 100.0
    loop_cycles = entries["bl_control"]["cycles_per_call"]
    main_share = 1.0 - isr_load
    loop_s = loop_cycles / (pre.CPU_HZ * main_share) if main_share > 0 else float("inf")
    hctl = entries["bl_control"]["ops_per_call"].get("io_read", 0.0) * CYCLES["io_read"]
    control = {
        "cycles_counted": loop_cycles, "hctl_byte_read_cycles": hctl,
        "hctl_share_pct": 100.0 * hctl / loop_cycles,
        "wall_s_with_interrupts": loop_s,
        "cpu_pct_total": 100.0 * (isr_load + hz * loop_cycles / pre.CPU_HZ),
        "count_implied_latency_periods": loop_s * pre.PWM_HZ,
    }
    if loop == "2khz":  # the redesign's simulated latency is this count, rounded up
        control["simulated_latency_periods"] = latency_periods(loop)
    return {
        "robot": "guroo", "cpu": "TMS320F243", "cpu_hz": pre.CPU_HZ, "loop": loop,
        "loop_hz": hz, "isr_overhead_cycles": ISR_OVERHEAD_CYCLES,
        "io_wait_states": IO_WAIT_STATES, "cycle_table": CYCLES,
        "cycle_table_source": "TI SPRU127 (TMS320C2xx User's Guide) ch. 7 instruction cycles,"
                              " ch. 3 single-cycle multiplier; zero-wait on-chip memory",
        "interrupts": entries,
        "interrupt_load_pct": 100.0 * isr_load,
        "control_loop": control,
    }


def _routine_rows() -> list[dict]:
    """Per routine: printed or ours, cycles and INs per call, calls and cycles per loop with the
    printed read_enc and with the rewrite."""
    rows = []
    for name, routine in cyc.ROUTINES.items():
        cycles = cyc.routine_cycles(name)
        calls = {v: cyc.CALLS[v].get(name, 0) for v in ("printed", "rewritten")}
        rows.append({"routine": name, "printed": routine.printed, "cycles_per_call": cycles,
                     "in_per_call": cyc.io_reads(name), "adc_waits": routine.adc_waits,
                     "calls_printed": calls["printed"], "calls_rewritten": calls["rewritten"],
                     "cycles_printed": calls["printed"] * cycles,
                     "cycles_rewritten": calls["rewritten"] * cycles, "source": routine.source})
    return rows


def _loop(read_enc: cyc.ReadEnc, timer: cyc.Timer) -> dict:
    """One control loop's figures: from the data sheets alone, and with the fitted excess."""
    explained = cyc.loop_time_s(read_enc, "none", timer)
    with_fit = cyc.loop_time_s(read_enc, "fit", timer)
    return {"main_cycles": cyc.main_cycles(read_enc), "in_per_loop": cyc.loop_io_reads(read_enc),
            "adc_waits_per_loop": cyc.loop_adc_waits(read_enc),
            "explained_s": explained, "explained_rate_hz": 1.0 / explained,
            "with_fitted_excess_s": with_fit, "with_fitted_excess_rate_hz": 1.0 / with_fit}


def _sensitivity(timer: cyc.Timer) -> dict:
    """How the interrupt share, the explained time and the fitted excess move with the least
    certain costs: the C interrupt context (60..90 cycles), bl_control (ours, x0.7..x1.5) and
    the other reading of the timer period."""
    other: cyc.Timer = "txpr" if timer == "txpr+1" else "txpr+1"
    out = {f"timer_{other}": {
        "interrupt_share": cyc.interrupt_share(other),
        "explained_s": cyc.loop_time_s("printed", "none", other),
        "fitted_excess_per_in_cycles": cyc.fitted_excess_cycles(timer=other)}}
    for label, key, scale in (("isr_context_60", "isr_context", 60 / 70),
                              ("isr_context_90", "isr_context", 90 / 70),
                              ("bl_control_x0.7", "bl_control", 0.7),
                              ("bl_control_x1.5", "bl_control", 1.5)):
        cycles = {**cyc.CYCLES, key: cyc.routine_cycles(key) * scale}
        out[label] = {"interrupt_share": cyc.interrupt_share(timer, cycles),
                      "explained_s": cyc.loop_time_s("printed", "none", timer, cycles),
                      "fitted_excess_per_in_cycles":
                          cyc.fitted_excess_cycles(timer=timer, cycles=cycles)}
    return out


# the routines the rewrite changes: the thesis' "bottleneck", reduced "by nearly 2/3ds" (L571)
_ENCODER_READS = ("read_enc", "read_qdec", "read_enc_rewritten")


def _encoder_read_cycles(read_enc: cyc.ReadEnc, excess: float) -> float:
    """CPU cycles per loop spent reading the encoders, `excess` cycles per IN included."""
    return (sum(n * cyc.routine_cycles(name) for name, n in cyc.CALLS[read_enc].items()
                if name in _ENCODER_READS) + cyc.loop_io_reads(read_enc) * excess)


def printed_budget(timer: cyc.Timer = "txpr+1") -> dict:
    """The thesis' printed 2001 firmware on the F243: the per-routine table, the interrupts'
    share, the control routine's time beside the measured 1.28 ms, the rewrite's rate beside
    ~1.5 kHz, the unexplained excess per external read with its size, and the loop time the
    emulated board takes from it (JSON-ready)."""
    x = cyc.fitted_excess_cycles(timer=timer)
    x_700 = cyc.fitted_excess_cycles(1.0 / cyc.THESIS_RATE_PRINTED_HZ, timer)
    printed, rewritten = _loop("printed", timer), _loop("rewritten", timer)
    unexplained = pre.THESIS_LOOP_S - printed["explained_s"]
    period = pre.T1_PERIOD_CLOCKS[timer]
    return {
        "robot": "guroo", "cpu": "TMS320F243", "cpu_hz": pre.CPU_HZ, "loop": "2002",
        "firmware": "the 2001 board's, as printed (thesis Appendix B), as TI's C2xx C compiler"
                    " executes it (presets/guroo_cycles.py)",
        "formula": "T = (W + n_in x) D / f_cpu + n_adc t_conv, D = 1 / (1 - f)",
        "timer": timer, "timer_period_cycles": period, "io_wait_states": cyc.IO_WAIT_STATES,
        "in_cycles": cyc.in_cycles(), "adc_conversion_s": cyc.ADC_CONVERSION_NS / 1e9,
        "constructs": {name: {"cycles": c.cycles, "verified": c.verified, "source": c.source}
                       for name, c in cyc.CONSTRUCTS.items()},
        "routines": _routine_rows(),
        "interrupts": {
            "c_int2_cycles": cyc.routine_cycles("c_int2"),
            "c_int2_rate_hz": pre.CPU_HZ / period,
            "c_int1_cycles": cyc.routine_cycles("c_int1"),
            "c_int1_rate_hz": 1e9 / pre.SETPOINT_PERIOD_NS,
            "share_f": cyc.interrupt_share(timer),
            "dilation_d": cyc.dilation(timer),
            "main_cycles_per_timer_period": period * (1.0 - cyc.interrupt_share(timer)),
        },
        "printed": printed,
        "rewritten": rewritten,
        "thesis": {"measured_s": pre.THESIS_LOOP_S, "rate_printed_hz": 1.0 / pre.THESIS_LOOP_S,
                   "max_rate_printed_hz": cyc.THESIS_RATE_PRINTED_HZ,
                   "max_rate_rewritten_hz": cyc.THESIS_RATE_REWRITTEN_HZ},
        "explained_share_pct": 100.0 * printed["explained_s"] / pre.THESIS_LOOP_S,
        "unexplained": {
            "s": unexplained, "share_pct": 100.0 * unexplained / pre.THESIS_LOOP_S,
            "excess_per_in_cycles": x, "excess_per_in_s": x / pre.CPU_HZ,
            "excess_per_in_wall_s": x * cyc.dilation(timer) / pre.CPU_HZ,
            "excess_per_in_cycles_at_700hz": x_700,
            "excess_over_in_cost": x / cyc.in_cycles(),
            "where": "the thesis places it in the external reads (L565); named option"
                     " excess='fit' (presets.guroo_cycles.loop_time_ns); no data-sheet figure"
                     " accounts for it",
        },
        "rewrite_speedup": {
            "explained": printed["explained_s"] / rewritten["explained_s"],
            "with_fitted_excess": (printed["with_fitted_excess_s"]
                                   / rewritten["with_fitted_excess_s"]),
            "thesis_1_28_ms_to_1_5_khz": pre.THESIS_LOOP_S * cyc.THESIS_RATE_REWRITTEN_HZ,
            "thesis_700_hz_to_1_5_khz": (cyc.THESIS_RATE_REWRITTEN_HZ
                                         / cyc.THESIS_RATE_PRINTED_HZ),
            "encoder_read_reduction_explained": 1.0 - (_encoder_read_cycles("rewritten", 0.0)
                                                       / _encoder_read_cycles("printed", 0.0)),
            "encoder_read_reduction_with_fitted_excess": 1.0 - (
                _encoder_read_cycles("rewritten", x) / _encoder_read_cycles("printed", x)),
        },
        "sensitivity": _sensitivity(timer),
        "emulated": {"loop_time_ns": cyc.loop_time_ns(),
                     "latency_periods": latency_periods("2002", timer),
                     "what": "the emulated board's printed loop: its outputs reach set_PWM this"
                             " long after its sensors are read (the fitted excess included),"
                             " in whole timer periods"},
    }
