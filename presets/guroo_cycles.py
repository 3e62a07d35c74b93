"""Cycle costs of the GuRoo 2001 board's printed firmware on the TMS320F243: the loop-time budget.

The thesis (Hood 2002, Appendix B) prints the board's C; it measured the control routine at
1.28 ms and reports that a rewritten ``read_enc`` raised the achievable loop rate from ~700 Hz to
~1.5 kHz.  This module holds, as data, what each routine costs when TI's C compiler for the C2xx
executes it, and the formula that turns those costs into the loop's wall time; the budget
(analysis.guroo_budget) prints them, and the emulated board's printed loop takes its loop time
from ``loop_time_ns`` with its defaults (plant.guroo_build.latency_periods).

The model, in CPU cycles at 20 MHz (one cycle = 50 ns; all code in on-chip flash and data in
on-chip RAM, zero wait states):

* ``CONSTRUCTS``: what one compiled-C construct costs (a global load is LDP + LACC, a call is
  CALL + the compiler's prologue and epilogue, an IN from I/O space is 2 cycles + the I/O wait
  states ...), each with its source and whether that figure was read in a copy of the source;
* ``ROUTINES``: each routine as construct counts taken from the printed C (and, for the
  routines the thesis does not print, from its description, marked as ours);
* ``CALLS``: which routines run once per control loop, printed and with the rewrite;
* the timer interrupt ``c_int2`` runs every timer period (201 clocks) and ``c_int1`` every CAN
  set-point frame (2 ms); main runs in what they leave, so its cycles are stretched by
  D = 1 / (1 - f), f the interrupts' share of the CPU;
* loop time T = (W + n_in x) D / f_cpu + n_adc t_conv: W main's cycles per loop, n_in its IN
  instructions, x an excess per IN, n_adc its ADC conversions (busy-waited, t_conv each);
* ``excess="none"``: x = 0, the data sheets only; ``excess="fit"``: x fitted so that the printed
  loop takes the thesis' 1.28 ms.  The thesis puts the missing time in the external reads; the
  fitted x is that residual, named, not explained by any data-sheet figure.  It is taken as CPU
  cycles the interrupts stretch like main's own (work in the read routine); a bus stall of the
  same wall time would be x D cycles with interrupts held off, and is not modelled.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from servobus.presets import guroo as pre

ReadEnc = Literal["printed", "rewritten"]
Excess = Literal["fit", "none"]
Timer = Literal["txpr+1", "txpr"]

IO_WAIT_STATES = 7  # WSGR = 0x0BFF (qdec_setup, thesis L1228): ISWS, bits 8-6, = 111
ADC_CONVERSION_NS = 1_000  # assumed: F243 ADC conversion; not read in SPRS064 (range 0.85-6.6 us)
FEATHER_HIGH_SHARE = 7.5 / 16  # periods c_int2 writes pwm_high: the mean of counter (d & 15) / 16
THESIS_RATE_PRINTED_HZ = 700.0  # "limited to a maximum speed of 700Hz" (L571)
THESIS_RATE_REWRITTEN_HZ = 1500.0  # "could now refresh at speeds up to 1.5kHz" (L571)


@dataclass(frozen=True)
class Cost:
    """What one construct costs in CPU cycles, where the figure comes from, and whether it was
    read in a copy of that source (False: from memory or reasoned, to be taken as assumed)."""

    cycles: float
    source: str
    verified: bool = False


CONSTRUCTS: dict[str, Cost] = {
    "load": Cost(2, "LDP #page + LACC dma: a global or a peripheral register (SPRU127 ch. 7, 1"
                    " cycle each; unoptimised code sets the data page before each access)"),
    "store": Cost(2, "LDP #page + SACL dma (SPRU127 ch. 7)"),
    "local": Cost(4, "a C frame variable or argument: LARK AR2,#off; MAR *0+; MAR *,AR2; the"
                     " access (SPRU024 frame addressing through AR0)"),
    "alu": Cost(1, "one-word instruction: ADD/SUB #short, LACK, SACL *, EINT (SPRU127 ch. 7)"),
    "alu_long": Cost(2, "two-word instruction with a 16-bit constant: LACC/AND/OR/SUB #lk"
                        " (SPRU127 ch. 7)"),
    "shift": Cost(2, "a shift by a constant: the input shifter on LACC then SACH, or RPT + SFR"
                     " (SPRU127 ch. 7)"),
    "mpy": Cost(3, "16 x 16 multiply: LT, MPY, PAC; the multiplier is single-cycle (SPRU127"
                   " ch. 3)"),
    "branch": Cost(4, "B, or BCND taken: two words, the pipeline refilled (SPRU127 ch. 7)"),
    "skip": Cost(2, "BCND not taken (SPRU127 ch. 7)"),
    "call": Cost(20, "CALL 4 and the caller's SBRK 1; prologue POPD, SAR AR0, SAR AR1, LARK,"
                     " LAR AR0 (6); epilogue MAR, SBRK, LAR AR0, PSHD, RET 4 (9) (SPRU024"
                     " function structure)"),
    "arg": Cost(2, "an argument pushed on the C stack: MAR *,AR1; SACL *+ (SPRU024)"),
    "in": Cost(2, "IN from I/O space without wait states (SPRU127 ch. 7, its IN page)"),
    "wait_state": Cost(1, "an external access waits one CLKOUT1 cycle per wait state, 0 to 7"
                          " per space (SPRU127 sec. 8.5)", verified=True),
    "isr_entry": Cost(8, "interrupt recognition and the vector's branch to c_intN (SPRU127"
                         " ch. 5)"),
    "isr_context": Cost(70, "the C compiler's save and restore of an interrupt function's"
                            " context (c_intNN: status, accumulator, P, T, auxiliary registers,"
                            " hardware stack); SPRU024; range 60-90"),
}


def in_cycles(wait_states: int = IO_WAIT_STATES) -> float:
    """CPU cycles of one IN from I/O space (one HCTL-2016 byte pair): 2 + the wait states."""
    return CONSTRUCTS["in"].cycles + wait_states * CONSTRUCTS["wait_state"].cycles


@dataclass(frozen=True)
class Routine:
    """A routine as construct (or routine) counts per call, with where the counts come from."""

    counts: dict[str, float]
    source: str
    printed: bool = True
    adc_waits: int = 0  # ADC conversions it busy-waits for, per call


_P = FEATHER_HIGH_SHARE
ROUTINES: dict[str, Routine] = {
    "io_read": Routine(
        {"in": 1, "wait_state": IO_WAIT_STATES},
        "one IN from I/O space: both HCTL-2016 decoders' high (port 0) or low (port 1) bytes;"
        " 7 wait states from WSGR = 0x0BFF (qdec_setup, L1228; ISWS, bits 8-6, as a secondary"
        " description of the F24x register gives it, not SPRS064 itself)"),
    "c_int2": Routine(
        # entry and context; PIVR == 0x27 (load, SUB #lk, BCND); EVIFRA = 0x80 (LACK, store);
        # count++ (load, ADD, store); per motor (x3) the if / else-if: 'then' 14 cycles (2 loads
        # to compare, BCND falls through, load + store, B over the else), 'else' 18 (2 loads,
        # BCND taken, 2 loads, falls through, load + store); feather_count++ (load, ADD, store);
        # the wrap test (load, SUB, BCND taken 15 of 16 periods; the reset 1 in 16: LACK,
        # store); B over the phantom test; EINT
        {"isr_entry": 1, "isr_context": 1,
         "load": 1 + 1 + 3 * (3 + 2 * (1 - _P)) + 1 + 1, "alu_long": 1,
         "alu": 1 + 1 + 1 + 1 + 1 / 16 + 1, "store": 1 + 1 + 3 + 1 + 1 / 16,
         "skip": 1 + 3 + 1 / 16, "branch": 3 + 15 / 16 + 1},
        "c_int2, thesis L1306-1337; the mean over the 16-period feather cycle"),
    "c_int1": Routine(
        # entry and context; PIVR == 0x40 (load, SUB #lk, BCND); can_receive: a call copying a
        # mailbox's four words into the set-points (4 loads, 4 stores) and a flag; EINT
        {"isr_entry": 1, "isr_context": 1, "load": 1 + 4, "alu_long": 1, "skip": 1,
         "call": 1, "store": 4 + 1, "alu": 1},
        "c_int1, L1294-1304; can_receive is not printed (ours: copies one mailbox)",
        printed=False),
    "inport": Routine(
        # a C-callable routine: two arguments (the port, the variable's address), the port's
        # dispatch, the IN, the store through the pointer
        {"call": 1, "arg": 2, "local": 3, "branch": 1, "io_read": 1, "alu": 2},
        "inport(port, &var): called in read_enc (L1377, L1380), body not printed; the thesis:"
        " the compiler 'had an indirect syntax to address the port' and ignored inline"
        " assembly (L563), so a function around one IN is assumed",
        printed=False),
    "read_enc": Routine(
        # call with k; two inport calls; qdec_ext3 = EXT_DATA1 (2 locals); qdec_ext2 = << 8
        # (2 locals, shift); ext3 = (ext3 & 0xFF00) | (EXT_DATA2 >> 8) (5 locals, AND #lk,
        # shift); ext2 = (ext2 & 0xFF00) | (EXT_DATA2 & 0xFF) (5 locals, 2 AND #lk); switch
        # (load k, 2 compares, one falls through, one taken); the return value and B to the
        # epilogue
        {"call": 1, "arg": 1, "local": 1 + 2 + 2 + 5 + 5 + 1 + 1, "inport": 2, "shift": 2,
         "alu_long": 1 + 2, "alu": 2, "skip": 1, "branch": 1 + 1},
        "read_enc(k), L1368-1403: both external reads on every call"),
    "read_qdec": Routine(
        # the same two inport calls and byte shuffle, the results stored in the globals
        {"call": 1, "inport": 2, "local": 1 + 1 + 3 + 3, "store": 4, "load": 2, "shift": 2,
         "alu_long": 1 + 2},
        "the rewrite's reading routine, run once per loop before read_enc (L567-569: lost,"
        " reconstructed from the description)",
        printed=False),
    "read_enc_rewritten": Routine(
        # call with k; the switch; return a global and B to the epilogue
        {"call": 1, "arg": 1, "local": 1 + 1, "alu": 2, "skip": 1, "branch": 1 + 1, "load": 1},
        "the rewrite's read_enc(k): 'a simple case statement returning the now global"
        " variables' (L567-569; reconstructed)",
        printed=False),
    "read_curr": Routine(
        # call with k; switch on k; ADCTRL1 = 0x690k (LACC #lk, store) and B (break);
        # ADCTRL1 |= 1 (load, OR, store); the poll's last pass (load, AND #lk, SUB #lk, BCND
        # falls through; the passes before it overlap the conversion); current = ADCFIFO1 >> 6
        # (load, shift, store local); current * 17 + 152 (local, MPY #17, ADD #152, local);
        # return it
        {"call": 1, "arg": 1, "local": 1 + 1 + 1 + 2 + 1, "alu": 2 + 1 + 1, "skip": 1 + 1,
         "branch": 1 + 1, "alu_long": 1 + 2, "store": 1 + 1, "load": 1 + 1 + 1, "shift": 1,
         "mpy": 1},
        "read_curr(k), L1406-1451", adc_waits=1),
    "set_PWM": Routine(
        # call with k and the duty; switch on k; counter = d & 0xF (local, AND #lk, store);
        # pwm_high = (d >> 4) + 101 and pwm_low = (d >> 4) + 100 (local, shift, ADD, store
        # each); B (break)
        {"call": 1, "arg": 2, "local": 2 + 1 + 1 + 2, "alu": 2 + 2, "skip": 1, "branch": 1 + 1,
         "alu_long": 1, "store": 1 + 2, "shift": 2},
        "set_PWM(k, d), L1457-1488"),
    "bl_control": Routine(
        # the call from main; per motor (x3): the loop over k (3 locals, 2 ALU, B back); six
        # array elements (position, set-point, errors: LAR #array, the index, MAR: a local, an
        # AND/LAR #lk and an ALU each); eight ALU steps (delta, velocity and position errors,
        # the PI's sum); three products (the two gains, K_V w) with their 6 operand loads; the
        # PI's scaling shift (2); the I R - K_V w limit (2 constant loads, 2 ALU, 2 compares:
        # taken, falls through); the clamp to +-1600 (2 SUB #lk, 2 BCND); the current check
        # (SUB #lk, BCND); 6 stores to locals
        {"call": 1, "local": 3 * (3 + 6 + 6 + 6), "alu": 3 * (2 + 6 + 8 + 2),
         "alu_long": 3 * (6 + 2 + 1), "branch": 3 * (1 + 2), "skip": 3 * (2 + 2 + 1),
         "mpy": 3 * 3, "shift": 3 * 2, "load": 3 * 2},
        "bl_control: called (L1099), not printed; the thesis' description: a velocity PI per"
        " motor, the current checked against its limit, PWM_LIMIT = I R - K_V w (L515-553)."
        " Ours; its calls of read_enc, read_curr, set_PWM are counted in those routines",
        printed=False),
    "main": Routine(
        # count >= 400 (load, SUB #lk, BCND falls through); count = 0, feather_count = 0 (LACK,
        # store each); data[0..3] = 0x0123 .. 0xCDEF (LACC #lk, store each); CANMCR |= 0x0102
        # (load, OR #lk, store); CANMBX2A..D = data[] (load, store each); CANMCR &= 0xFEFD;
        # B to the top of while(1)
        {"load": 1 + 1 + 4 + 1, "alu_long": 1 + 4 + 1 + 1, "skip": 1, "alu": 2,
         "store": 2 + 4 + 1 + 4 + 1, "branch": 1},
        "main's loop, L1094-1126: the test, the resets, the mailbox-2 update (as compiled:"
        " the data words are the test pattern, L1106-1109)"),
}
del _P

CALLS: dict[ReadEnc, dict[str, int]] = {  # calls per control loop, in bl_control's order
    "printed": {"main": 1, "bl_control": 1, "read_enc": 3, "read_curr": 3, "set_PWM": 3},
    "rewritten": {"main": 1, "bl_control": 1, "read_qdec": 1, "read_enc_rewritten": 3,
                  "read_curr": 3, "set_PWM": 3},
}
CYCLES: dict[str, float] = {name: cost.cycles for name, cost in CONSTRUCTS.items()}


def routine_cycles(name: str, cycles: Mapping[str, float] = CYCLES) -> float:
    """CPU cycles of one call of a routine: its counts at the constructs' costs, a routine it
    calls at that routine's own cycles (its ADC waits are wall time, not here).  A name in
    `cycles` costs what it says there: a construct, or a routine given a cost of its own (the
    budget's sensitivity to a routine)."""
    if name in cycles:
        return cycles[name]
    return sum(n * routine_cycles(item, cycles) for item, n in ROUTINES[name].counts.items())


def io_reads(name: str) -> float:
    """IN instructions of one call of a routine, those of the routines it calls included."""
    if name == "io_read":
        return 1
    return sum(n * io_reads(item) for item, n in ROUTINES[name].counts.items()
               if item in ROUTINES)


def main_cycles(read_enc: ReadEnc, cycles: Mapping[str, float] = CYCLES) -> float:
    """W: main's CPU cycles per control loop, without the interrupts and the ADC waits."""
    return sum(n * routine_cycles(name, cycles) for name, n in CALLS[read_enc].items())


def loop_io_reads(read_enc: ReadEnc) -> int:
    """n_in: IN instructions per control loop (printed: 6, two per read_enc call; rewritten:
    2)."""
    return round(sum(n * io_reads(name) for name, n in CALLS[read_enc].items()))


def loop_adc_waits(read_enc: ReadEnc) -> int:
    """n_adc: ADC conversions main busy-waits for per control loop."""
    return sum(n * ROUTINES[name].adc_waits for name, n in CALLS[read_enc].items())


def interrupt_share(timer: Timer = "txpr+1", cycles: Mapping[str, float] = CYCLES) -> float:
    """f: the share of the CPU the interrupts take: c_int2 every timer period, c_int1 every
    CAN set-point frame."""
    timer_hz = pre.CPU_HZ / pre.T1_PERIOD_CLOCKS[timer]
    can_hz = 1e9 / pre.SETPOINT_PERIOD_NS
    return (timer_hz * routine_cycles("c_int2", cycles)
            + can_hz * routine_cycles("c_int1", cycles)) / pre.CPU_HZ


def dilation(timer: Timer = "txpr+1", cycles: Mapping[str, float] = CYCLES) -> float:
    """D = 1 / (1 - f): wall cycles per cycle of main's work."""
    return 1.0 / (1.0 - interrupt_share(timer, cycles))


def _loop_s(read_enc: ReadEnc, excess_cycles: float, timer: Timer,
            cycles: Mapping[str, float]) -> float:
    work = main_cycles(read_enc, cycles) + loop_io_reads(read_enc) * excess_cycles
    return (work * dilation(timer, cycles) / pre.CPU_HZ
            + loop_adc_waits(read_enc) * ADC_CONVERSION_NS * 1e-9)


def fitted_excess_cycles(target_s: float = pre.THESIS_LOOP_S, timer: Timer = "txpr+1",
                         cycles: Mapping[str, float] = CYCLES) -> float:
    """x: the cycles each IN must cost beyond the data sheet's for the printed loop to take
    `target_s` (the thesis' 1.28 ms by default); solves T(printed, x) = target_s."""
    explained = _loop_s("printed", 0.0, timer, cycles)
    per_in = dilation(timer, cycles) / pre.CPU_HZ * loop_io_reads("printed")
    return (target_s - explained) / per_in


def loop_time_s(read_enc: ReadEnc = "printed", excess: Excess = "fit",
                timer: Timer = "txpr+1", cycles: Mapping[str, float] = CYCLES) -> float:
    """T: the control routine's wall time, seconds: (W + n_in x) D / f_cpu + n_adc t_conv."""
    x = fitted_excess_cycles(timer=timer, cycles=cycles) if excess == "fit" else 0.0
    return _loop_s(read_enc, x, timer, cycles)


def loop_time_ns(read_enc: ReadEnc = "printed", excess: Excess = "fit",
                 timer: Timer = "txpr+1") -> int:
    """T in whole nanoseconds, for the emulated board's loop."""
    return round(loop_time_s(read_enc, excess, timer) * 1e9)
