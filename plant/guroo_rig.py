"""One GuRoo high-power board on its hardware: firmware interrupts interleaved with 3 motors.

Per timer-1 period (T1PR + 1 = 201 clocks, 10.05 us):

    c_int2 (fw.timer_isr): the compare registers take last period's values, then the feathered
        values for the next; when main's count reaches 400 the sensors are latched (T2CNT and
        the two HCTL-2016 ports, index capture, the ADC FIFO words of the current-sense channels
        and of the bus voltage, with seeded noise) and main's loop body runs (bl_control's
        outputs reach set_PWM R_LATENCY periods later: the emulated loop time)
    the rail: 42 V less the packs' resistance times the board's supply current
    each motor advanced one period at the bipolar bridge's average voltage V_bus (2 c / P - 1)
        (the floated bridge when PDPINT has tripped);
        the sense RC toward the shunt's period mean, i (2 c / P - 1): the supply current
    the PDPINT comparators on the unfiltered shunt current: any motor above the trimmer trips

``run_periods`` is one plain function: the fast path compiles it (numba, many periods per call),
the reference path runs it in CPython one period per call; they must agree bit for bit.

``run_periods_lean`` is the same simulation with the hot state in locals (the fast path's and
the compiled engine's kernel): the timer interrupt's words (FEATHER, TIMER_COUNT, APPLY_IN,
FEATHERED, the compare registers and their shadows), the applied set_PWM values and each motor's
i, omega, theta and filter state stay in registers between control loops, and ``ram``/``state``
are written back before the firmware's own functions run (sample, main_loop, apply_outputs,
pdpint_hi_z) and at the end.  Every integer and floating-point operation is the reference's, in
the same order.

The seed drives the analog noise (the sense amplifier's +-2 codes and the conversion's +-0.5,
the bus voltage's +-1 code) and the board's power-up phase: main's count and feather_count start
at a seeded whole number of timer periods into the 400 (the board released from reset that long
before the bus's start), so which set-points each loop sees differs between seeds.
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
from servobus.presets import guroo as pre

TINY = 1e-12  # currents (A) and filter states (A) below this are 0: no denormal arithmetic


@register_jitable
def duty(p_clocks: float, two_over_p: float, cmpr: int) -> float:
    """A compare register's bipolar duty 2 c / P - 1 (-1..1); the unsigned compare above the
    period never matches: the whole period on."""
    c = float(cmpr & 0xFFFF)
    if c > p_clocks:
        c = p_clocks
    return c * two_over_p - 1.0


@register_jitable
def supply_term(i: float, d: float, floating: bool) -> float:
    """A motor's share of the board's supply current: the shunt's period mean i (2 c / P - 1),
    or the current the body diodes return with the outputs floated."""
    return -abs(i) if floating else i * d


@register_jitable
def rail(c, s: float) -> float:
    """The motor rail at supply current s: the packs' voltage less their resistance's drop."""
    return c[23] - c[24] * s


@register_jitable
def adc_word(x: float, istate, noise: float) -> int:
    """A conversion of x codes with +-noise uniform, clamped to 0..1023, as ADCFIFO1's
    left-justified word."""
    code = math.floor(x + (2.0 * next_uniform(istate, 0) - 1.0) * noise)
    return min(max(code, 0), 1023) << 6


@register_jitable(inline="always")
def sample(ram, params, state, istate) -> None:
    """Latch the peripheral registers the control loop reads: the counters (T2CNT, the two
    HCTL-2016 ports), index flags, the ADC FIFO words of channels 0..2 and 3 (bus voltage)."""
    counts = [0, 0, 0]
    floating = ram[g.TRIPPED] != 0
    s = 0.0
    for k in range(g.MOTORS):
        count = math.floor(state[k, b.S_THETA] * params[b.CPR])
        counts[k] = count & 0xFFFF
        rev = float(count // pre.COUNTS_PER_REV)
        if rev != state[k, b.S_REV]:
            ram[g.REG_INDEX + k] = 1
            state[k, b.S_REV] = rev
        amp = (state[k, b.S_VC] - params[b.SENSE_OFFSET_A]) * params[b.SENSE_CODES_PER_A]
        amp += (2.0 * next_uniform(istate, 0) - 1.0) * params[b.SENSE_NOISE]
        ram[g.REG_ADC + k] = adc_word(amp, istate, params[b.ADC_NOISE])
        d = duty(params[b.P_CLOCKS], params[b.TWO_OVER_P], ram[g.CMPR + k])
        s += supply_term(state[k, b.S_I], d, floating)
    ram[g.REG_T2CNT] = counts[0]
    ram[g.REG_PORT0] = (counts[2] >> 8) << 8 | counts[1] >> 8  # motor 2's byte in the high lane
    ram[g.REG_PORT1] = (counts[2] & 0xFF) << 8 | counts[1] & 0xFF
    vbus = params[b.V_PACK] - params[b.R_PACK] * s
    ram[g.REG_VBUS] = adc_word(vbus * params[b.VBUS_CODES_PER_V], istate, params[b.VBUS_NOISE])


@register_jitable
def constants(params):
    """The parameters the period loop reads, as one tuple of locals (hoisted out of the loop)."""
    return (params[b.A00], params[b.A01], params[b.A10], params[b.A11], params[b.BV0],
            params[b.BV1], params[b.BF0], params[b.BF1], params[b.C0], params[b.C1],
            params[b.CV], params[b.CF], params[b.M_WW], params[b.M_WF], params[b.M_TW],
            params[b.M_TF], params[b.P_CLOCKS], params[b.KT], params[b.COULOMB],
            params[b.TWO_OVER_P], params[b.RC_ALPHA], params[b.TRIP_A], params[b.DEAD_FRAC],
            params[b.V_PACK], params[b.R_PACK])


@register_jitable
def bridge(c, d: float, i: float, vbus: float) -> float:
    """The bridge's average voltage at duty d: V_bus d, less the dead band's 2 t_d / P of V_bus
    in the direction of the current (the diodes conduct through it)."""
    v = vbus * d
    if i > 0.0:
        v -= c[22] * vbus
    elif i < 0.0:
        v += c[22] * vbus
    return v


@register_jitable
def motor_period(c, i: float, w: float, v: float, floating: bool, vbus: float):
    """One motor over one period at voltage v: (current, omega, angle step) at its end."""
    a00, a01, a10, a11, bv0, bv1, bf0, bf1 = c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
    c0, c1, cv, cf, mww, mwf, mtw, mtf = c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]
    kt, fc = c[17], c[18]
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
            v = -vbus if i > 0.0 else vbus
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
    """The current-sense RC over one period toward the shunt signal vs (tiny values flushed)."""
    vc = vc + alpha * (vs - vc)
    return vc if abs(vc) > TINY else 0.0


@register_jitable
def run_periods(ram, rom, params, state, istate, n: int) -> None:
    """Simulate n timer-1 periods of firmware + plant."""
    c = constants(params)
    p_clocks, two_over_p, alpha, trip_a = c[16], c[19], c[20], c[21]
    for _ in range(n):
        fw.timer_isr(ram)
        if fw.loop_due(ram, rom):
            sample(ram, params, state, istate)
            fw.main_loop(ram, rom)
        floating = ram[g.TRIPPED] != 0
        s = 0.0
        for k in range(g.MOTORS):
            d = duty(p_clocks, two_over_p, ram[g.CMPR + k])
            s += supply_term(state[k, b.S_I], d, floating)
        vbus = rail(c, s)
        trip = False
        for k in range(g.MOTORS):
            d = duty(p_clocks, two_over_p, ram[g.CMPR + k])
            i = state[k, b.S_I]
            i1, w1, dth = motor_period(c, i, state[k, b.S_OMEGA], bridge(c, d, i, vbus),
                                       floating, vbus)
            state[k, b.S_I] = i1
            state[k, b.S_OMEGA] = w1
            state[k, b.S_THETA] += dth
            state[k, b.S_VC] = filtered(alpha, state[k, b.S_VC], supply_term(i1, d, floating))
            if abs(i1) > trip_a:
                trip = True
        if trip:
            fw.pdpint_hi_z(ram)


@register_jitable
def compare(fc: int, counter: int, high: int, low: int) -> tuple[int, int]:
    """c_int2's compare value of one motor and its FEATHERED increment."""
    hit = fc < counter
    return (high if hit else low), (1 if hit else 0)


@register_jitable
def motor(c, i: float, w: float, th: float, vc: float, d: float, vbus: float, floating: bool):
    """One motor over one period (the reference's loop body): new i, omega, theta, vc."""
    i1, w1, dth = motor_period(c, i, w, bridge(c, d, i, vbus), floating, vbus)
    return i1, w1, th + dth, filtered(c[20], vc, supply_term(i1, d, floating))


@register_jitable
def outputs(ram):
    """set_PWM's values as locals: (high, low, counter) of the three motors."""
    return (ram[g.PWM_HIGH], ram[g.PWM_HIGH + 1], ram[g.PWM_HIGH + 2],
            ram[g.PWM_LOW], ram[g.PWM_LOW + 1], ram[g.PWM_LOW + 2],
            ram[g.COUNTER], ram[g.COUNTER + 1], ram[g.COUNTER + 2])


@register_jitable(inline="always")
def store(ram, state, timer, cmpr, shadow, m0, m1, m2) -> None:
    """The lean kernel's locals back into RAM and the plant state: the timer words (FEATHER,
    TIMER_COUNT, APPLY_IN, FEATHERED), the compare values and their shadows, each motor's i,
    omega, theta, vc."""
    ram[g.FEATHER], ram[g.TIMER_COUNT], ram[g.APPLY_IN], ram[g.FEATHERED] = timer
    ram[g.CMPR], ram[g.CMPR + 1], ram[g.CMPR + 2] = cmpr
    ram[g.CMPR_SHADOW], ram[g.CMPR_SHADOW + 1], ram[g.CMPR_SHADOW + 2] = shadow
    state[0, b.S_I], state[0, b.S_OMEGA], state[0, b.S_THETA], state[0, b.S_VC] = m0
    state[1, b.S_I], state[1, b.S_OMEGA], state[1, b.S_THETA], state[1, b.S_VC] = m1
    state[2, b.S_I], state[2, b.S_OMEGA], state[2, b.S_THETA], state[2, b.S_VC] = m2


@register_jitable
def run_periods_lean(ram, rom, params, state, istate, n: int) -> None:
    """Simulate n timer-1 periods of firmware + plant (``guroo_rig.run_periods``'s results)."""
    c = constants(params)
    p_clocks, two_over_p, trip_a = c[16], c[19], c[21]
    ticks, reset = rom[g.R_LOOP_TICKS], rom[g.R_RESET_FEATHER] != 0
    fc, tc, apply_in = ram[g.FEATHER], ram[g.TIMER_COUNT], ram[g.APPLY_IN]
    feathered = ram[g.FEATHERED]
    h0, h1, h2, l0, l1, l2, n0, n1, n2 = outputs(ram)
    c0, c1, c2 = ram[g.CMPR], ram[g.CMPR + 1], ram[g.CMPR + 2]
    s0, s1, s2 = ram[g.CMPR_SHADOW], ram[g.CMPR_SHADOW + 1], ram[g.CMPR_SHADOW + 2]
    i0, w0, t0, v0 = state[0, b.S_I], state[0, b.S_OMEGA], state[0, b.S_THETA], state[0, b.S_VC]
    i1, w1, t1, v1 = state[1, b.S_I], state[1, b.S_OMEGA], state[1, b.S_THETA], state[1, b.S_VC]
    i2, w2, t2, v2 = state[2, b.S_I], state[2, b.S_OMEGA], state[2, b.S_THETA], state[2, b.S_VC]
    floating = ram[g.TRIPPED] != 0
    for _ in range(n):
        c0, c1, c2 = s0, s1, s2  # timer_isr: the reload at the period match
        if apply_in > 0:
            apply_in = i16.sub16(apply_in, 1)
            if apply_in == 0:
                fw.apply_outputs(ram)
                h0, h1, h2, l0, l1, l2, n0, n1, n2 = outputs(ram)
        tc = i16.add16(tc, 1)
        s0, f0 = compare(fc, n0, h0, l0)
        s1, f1 = compare(fc, n1, h1, l1)
        s2, f2 = compare(fc, n2, h2, l2)
        feathered += f0 + f1 + f2
        fc = i16.add16(fc, 1)
        if fc >= 16:
            fc = 0
        if tc >= ticks:  # loop_due
            tc = 0
            if reset:
                fc = 0
            store(ram, state, (fc, tc, apply_in, feathered), (c0, c1, c2), (s0, s1, s2),
                  (i0, w0, t0, v0), (i1, w1, t1, v1), (i2, w2, t2, v2))
            sample(ram, params, state, istate)
            fw.main_loop(ram, rom)
            apply_in = ram[g.APPLY_IN]
            h0, h1, h2, l0, l1, l2, n0, n1, n2 = outputs(ram)
        d0 = duty(p_clocks, two_over_p, c0)
        d1 = duty(p_clocks, two_over_p, c1)
        d2 = duty(p_clocks, two_over_p, c2)
        vbus = rail(c, 0.0 + supply_term(i0, d0, floating) + supply_term(i1, d1, floating)
                    + supply_term(i2, d2, floating))
        i0, w0, t0, v0 = motor(c, i0, w0, t0, v0, d0, vbus, floating)
        i1, w1, t1, v1 = motor(c, i1, w1, t1, v1, d1, vbus, floating)
        i2, w2, t2, v2 = motor(c, i2, w2, t2, v2, d2, vbus, floating)
        if abs(i0) > trip_a or abs(i1) > trip_a or abs(i2) > trip_a:
            fw.pdpint_hi_z(ram)
            floating = True
    store(ram, state, (fc, tc, apply_in, feathered), (c0, c1, c2), (s0, s1, s2),
          (i0, w0, t0, v0), (i1, w1, t1, v1), (i2, w2, t2, v2))


@register_jitable
def run_periods_lean_call(ram, rom, params, state, istate, n: int) -> None:
    """``run_periods_lean`` called as the compiled engine calls it (``robot.guroo_compiled``):
    a cold run compiles the kernel once for both, not a second time as a dispatcher's own."""
    run_periods_lean(ram, rom, params, state, istate, n)


run_periods_lean_fast = cached_njit(run_periods_lean_call)


class GurooRig:
    """One high-power board's firmware on its simulated hardware; state persists across runs.

    The keywords are the readings docs/guroo-firmware.md names: `t1_period` the timer's period,
    T1PR + 1 clocks ("txpr+1") or T1PR ("txpr"); `dead_band` DBTCN's 100 ns against the
    current (a discrete bridge's diodes) or no average effect (the default); `adc_fifo`
    read_curr's double start, "fresh" or "stale"; `pdpint` "hi-z-latched" or
    "masked-no-trip"."""

    def __init__(self, board: int = 1, loop: str = "2002", seed: int = 0,
                 t1_period: str = pre.T1_PERIOD, dead_band: bool = False,
                 adc_fifo: str = pre.ADC_FIFOS[0], pdpint: str = pre.PDPINTS[0]) -> None:
        self.board, self.loop = board, loop
        self.readings = {"t1_period": t1_period, "dead_band": dead_band, "adc_fifo": adc_fifo,
                         "pdpint": pdpint}
        self.period_ns = b.period_ns(t1_period)
        self.rom = b.build_rom(board, loop, t1_period, adc_fifo)
        self.params = b.build_params(t1_period, dead_band, pdpint)
        self.state, self.istate = b.build_state(seed)
        self.ram = g.new_ram()
        sample(self.ram, self.params, self.state, self.istate)
        fw.boot(self.ram, self.rom)
        phase = math.floor(next_uniform(self.istate, 0) * int(self.rom[g.R_LOOP_TICKS]))
        self.ram[g.TIMER_COUNT] = phase  # the power-up phase: main's count ...
        self.ram[g.FEATHER] = phase % 16  # ... and feather_count, counted up together
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
