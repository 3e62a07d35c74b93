"""One GuRoo high-power board on its hardware: firmware interrupts interleaved with 3 motors.

Per timer-1 period (10 us, 100 kHz):

    timer-1 period interrupt: the feathered compare values for this period; when the loop is
        due the sensors are latched (QEP / HCTL-2016 counters, index capture, ADC of the
        current-sense RC with seeded noise) and bl_control runs (its outputs land R_LATENCY
        periods later: 128 = the 1.28 ms the 2002 routine takes)
    each motor advanced one period at the average bridge voltage dir * CMPR / 200 * V (the
        floated bridge when PDPINT has tripped); the RC filter to the period's end
    the PDPINT comparator on the unfiltered shunt voltage: any motor above the trimmer trips

``run_periods`` is one plain function: the fast path compiles it (numba, many periods per call),
the reference path runs it in CPython one period per call; they must agree bit for bit.

``run_periods_lean`` is the same simulation with the hot state in locals (the fast path's and
the compiled engine's kernel, ~1.5x faster): the reference's timer interrupt reads and writes
``ram`` every period (FEATHERED up to three times, FEATHER, TIMER_COUNT, APPLY_IN, CMPR), chains
of loads waiting on stores that cost about as much as the three motors (docs/profile.md).  Here
those variables, the applied outputs and each motor's i, omega, theta and filter voltage stay
in registers between control loops, and ``ram``/``state`` are written back before the
firmware's own functions run (sample, bl_control, apply_outputs, pdpint_isr) and at the end.
Every integer and floating-point operation is the reference's, in the same order.
"""

import math

import numpy as np
from numba.extending import register_jitable

from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.firmware import int16 as i16
from servobus.plant import guroo_build as b
from servobus.plant.kernel_cache import cached_njit
from servobus.plant.prng import next_uniform
from servobus.presets.guroo import COUNTS_PER_REV

TINY = 1e-12  # currents (A) and filter voltages (V) below this are 0: no denormal arithmetic


@register_jitable(inline="always")
def sample(ram, params, state, istate) -> None:
    """Latch the peripheral registers the control loop reads: counters, index flags, ADC."""
    for k in range(g.MOTORS):
        count = math.floor(state[k, b.S_THETA] * params[b.CPR])
        ram[g.REG_CNT + k] = count & 0xFFFF
        rev = float(count // COUNTS_PER_REV)
        if rev != state[k, b.S_REV]:
            ram[g.REG_INDEX + k] = 1
            state[k, b.S_REV] = rev
        noise = (2.0 * next_uniform(istate, 0) - 1.0) * params[b.ADC_NOISE]
        code = math.floor(state[k, b.S_VC] * params[b.ADC_SCALE] + noise)
        ram[g.REG_ADC + k] = min(max(code, 0), 1023)


@register_jitable
def constants(params):
    """The parameters the period loop reads, as one tuple of locals (hoisted out of the loop)."""
    return (params[b.A00], params[b.A01], params[b.A10], params[b.A11], params[b.BV0],
            params[b.BV1], params[b.BF0], params[b.BF1], params[b.C0], params[b.C1],
            params[b.CV], params[b.CF], params[b.M_WW], params[b.M_WF], params[b.M_TW],
            params[b.M_TF], params[b.V_STEP], params[b.KT], params[b.COULOMB],
            params[b.SENSE_OHM], params[b.RC_ALPHA], params[b.TRIP_V], params[b.V_SUPPLY])


@register_jitable
def motor_period(c, i: float, w: float, v: float, floating: bool):
    """One motor over one period at voltage v: (current, omega, angle step) at its end."""
    (a00, a01, a10, a11, bv0, bv1, bf0, bf1, c0, c1, cv, cf, mww, mwf, mtw, mtf, _, kt, fc,
     _, _, _, vsup) = c
    if w > 0.0:
        tf = fc
    elif w < 0.0:
        tf = -fc
    else:  # at rest: friction balances a torque inside +-F_c
        tf = kt * i
        if tf > fc:
            tf = fc
        elif tf < -fc:
            tf = -fc
    if floating and i == 0.0:  # coasting: no current path
        i1 = 0.0
        w1 = mww * w + mwf * tf
        dth = mtw * w + mtf * tf
    else:
        if floating:  # body diodes return the current to the supply
            v = -vsup if i > 0.0 else vsup
        i1 = a00 * i + a01 * w + bv0 * v + bf0 * tf
        w1 = a10 * i + a11 * w + bv1 * v + bf1 * tf
        dth = c0 * i + c1 * w + cv * v + cf * tf
        if floating and (i1 > 0.0) != (i > 0.0):
            i1 = 0.0
    stops = (w1 > 0.0) != (w > 0.0) if w != 0.0 else tf == kt * i
    if stops and abs(kt * i1) <= fc:
        w1 = 0.0  # stiction: a reversal stops at rest, a torque inside +-F_c keeps it there
    if abs(i1) < TINY:
        i1 = 0.0
    return i1, w1, dth


@register_jitable
def filtered(alpha: float, vc: float, vs: float) -> float:
    """The current-sense RC over one period toward the shunt voltage vs (tiny values flushed)."""
    vc = vc + alpha * (vs - vc)
    return vc if vc > TINY else 0.0


@register_jitable
def run_periods(ram, rom, params, state, istate, n: int) -> None:
    """Simulate n timer-1 periods of firmware + plant."""
    c = constants(params)
    v_step, sense, alpha, trip_v = c[16], c[19], c[20], c[21]
    for _ in range(n):
        fw.timer_isr(ram)
        if fw.loop_due(ram, rom):
            sample(ram, params, state, istate)
            fw.bl_control(ram, rom)
        floating = ram[g.TRIPPED] != 0
        trip = False
        for k in range(g.MOTORS):
            v = ram[g.DIR + k] * ram[g.CMPR + k] * v_step
            i1, w1, dth = motor_period(c, state[k, b.S_I], state[k, b.S_OMEGA], v, floating)
            state[k, b.S_I] = i1
            state[k, b.S_OMEGA] = w1
            state[k, b.S_THETA] += dth
            vs = sense * abs(i1)
            state[k, b.S_VC] = filtered(alpha, state[k, b.S_VC], vs)
            if vs > trip_v:
                trip = True
        if trip:
            fw.pdpint_isr(ram)


@register_jitable
def compare(fc: int, counter: int, high: int, low: int) -> tuple[int, int]:
    """The timer interrupt's compare value of one motor and its FEATHERED increment."""
    hit = fc < counter
    return (high if hit else low), (1 if hit else 0)


@register_jitable
def motor(c, i: float, w: float, th: float, vc: float, v: float, floating: bool):
    """One motor over one period (the reference's loop body): new i, omega, theta, vc, vs."""
    i1, w1, dth = motor_period(c, i, w, v, floating)
    vs = c[19] * abs(i1)
    return i1, w1, th + dth, filtered(c[20], vc, vs), vs


@register_jitable
def outputs(ram):
    """The applied outputs as locals: (high, low, counter, direction) of the three motors."""
    return (ram[g.PWM_HIGH], ram[g.PWM_HIGH + 1], ram[g.PWM_HIGH + 2],
            ram[g.PWM_LOW], ram[g.PWM_LOW + 1], ram[g.PWM_LOW + 2],
            ram[g.COUNTER], ram[g.COUNTER + 1], ram[g.COUNTER + 2],
            ram[g.DIR], ram[g.DIR + 1], ram[g.DIR + 2])


@register_jitable(inline="always")
def store(ram, state, timer, cmpr, m0, m1, m2) -> None:
    """The lean kernel's locals back into RAM and the plant state: the timer words (FEATHER,
    TIMER_COUNT, APPLY_IN, FEATHERED), the compare values, each motor's i, omega, theta, vc."""
    ram[g.FEATHER], ram[g.TIMER_COUNT], ram[g.APPLY_IN], ram[g.FEATHERED] = timer
    ram[g.CMPR], ram[g.CMPR + 1], ram[g.CMPR + 2] = cmpr
    state[0, b.S_I], state[0, b.S_OMEGA], state[0, b.S_THETA], state[0, b.S_VC] = m0
    state[1, b.S_I], state[1, b.S_OMEGA], state[1, b.S_THETA], state[1, b.S_VC] = m1
    state[2, b.S_I], state[2, b.S_OMEGA], state[2, b.S_THETA], state[2, b.S_VC] = m2


@register_jitable
def run_periods_lean(ram, rom, params, state, istate, n: int) -> None:
    """Simulate n timer-1 periods of firmware + plant (``guroo_rig.run_periods``'s results)."""
    c = constants(params)
    v_step, trip_v = c[16], c[21]
    ticks, reset = rom[g.R_LOOP_TICKS], rom[g.R_RESET_FEATHER] != 0
    fc, tc, apply_in = ram[g.FEATHER], ram[g.TIMER_COUNT], ram[g.APPLY_IN]
    feathered = ram[g.FEATHERED]
    h0, h1, h2, l0, l1, l2, n0, n1, n2, d0, d1, d2 = outputs(ram)
    c0, c1, c2 = ram[g.CMPR], ram[g.CMPR + 1], ram[g.CMPR + 2]
    i0, w0, t0, v0 = state[0, b.S_I], state[0, b.S_OMEGA], state[0, b.S_THETA], state[0, b.S_VC]
    i1, w1, t1, v1 = state[1, b.S_I], state[1, b.S_OMEGA], state[1, b.S_THETA], state[1, b.S_VC]
    i2, w2, t2, v2 = state[2, b.S_I], state[2, b.S_OMEGA], state[2, b.S_THETA], state[2, b.S_VC]
    floating = ram[g.TRIPPED] != 0
    for _ in range(n):
        if apply_in > 0:  # timer_isr
            apply_in = i16.sub16(apply_in, 1)
            if apply_in == 0:
                fw.apply_outputs(ram)
                h0, h1, h2, l0, l1, l2, n0, n1, n2, d0, d1, d2 = outputs(ram)
        c0, f0 = compare(fc, n0, h0, l0)
        c1, f1 = compare(fc, n1, h1, l1)
        c2, f2 = compare(fc, n2, h2, l2)
        feathered += f0 + f1 + f2
        fc = i16.add16(fc, 1) & 15
        tc = i16.add16(tc, 1)
        if tc >= ticks:  # loop_due
            tc = 0
            if reset:
                fc = 0
            store(ram, state, (fc, tc, apply_in, feathered), (c0, c1, c2), (i0, w0, t0, v0),
                  (i1, w1, t1, v1), (i2, w2, t2, v2))
            sample(ram, params, state, istate)
            fw.bl_control(ram, rom)
            apply_in = ram[g.APPLY_IN]
            h0, h1, h2, l0, l1, l2, n0, n1, n2, d0, d1, d2 = outputs(ram)
        i0, w0, t0, v0, s0 = motor(c, i0, w0, t0, v0, d0 * c0 * v_step, floating)
        i1, w1, t1, v1, s1 = motor(c, i1, w1, t1, v1, d1 * c1 * v_step, floating)
        i2, w2, t2, v2, s2 = motor(c, i2, w2, t2, v2, d2 * c2 * v_step, floating)
        if s0 > trip_v or s1 > trip_v or s2 > trip_v:
            fw.pdpint_isr(ram)
            floating = True
    store(ram, state, (fc, tc, apply_in, feathered), (c0, c1, c2), (i0, w0, t0, v0),
          (i1, w1, t1, v1), (i2, w2, t2, v2))


@register_jitable
def run_periods_lean_call(ram, rom, params, state, istate, n: int) -> None:
    """``run_periods_lean`` called as the compiled engine calls it (``robot.guroo_compiled``):
    a cold run compiles the kernel once for both, not a second time as a dispatcher's own."""
    run_periods_lean(ram, rom, params, state, istate, n)


run_periods_lean_fast = cached_njit(run_periods_lean_call)


class GurooRig:
    """One high-power board's firmware on its simulated hardware; state persists across runs."""

    def __init__(self, board: int = 1, loop: str = "2002", seed: int = 0) -> None:
        self.board, self.loop = board, loop
        self.rom = b.build_rom(board, loop)
        self.params = b.build_params()
        self.state, self.istate = b.build_state(seed)
        self.ram = g.new_ram()
        sample(self.ram, self.params, self.state, self.istate)
        fw.boot(self.ram, self.rom)
        self.periods = 0

    def set_velocity(self, words: tuple[int, int, int], seq: int = 0) -> None:
        """Deliver a VEL_SP frame's three words (16 cnt/s per LSB) as the CAN interrupt does."""
        fw.can_rx(self.ram, words[0], words[1], words[2], seq)

    def run(self, periods: int, fast: bool = True) -> None:
        """Advance `periods` timer periods; the reference path runs one period per call."""
        args = (self.ram, self.rom, self.params, self.state, self.istate)
        if fast:
            run_periods_lean_fast(*args, periods)
        else:
            for _ in range(periods):
                run_periods(*args, 1)
        self.periods += periods

    def joint_velocity_cnt_s(self) -> np.ndarray:
        """The motors' true speeds in encoder counts per second."""
        return self.state[:, b.S_OMEGA] * self.params[b.CPR]
