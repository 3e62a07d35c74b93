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
"""

import math

import numpy as np
from numba.extending import register_jitable

from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.plant import guroo_build as b
from servobus.plant.kernel_cache import cached_njit
from servobus.plant.prng import next_uniform
from servobus.presets.guroo import COUNTS_PER_REV


@register_jitable
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
def friction(params, i: float, w: float) -> float:
    """Coulomb friction torque opposing omega; at rest it balances a torque inside +-F_c."""
    fc = params[b.COULOMB]
    if w > 0.0:
        return fc
    if w < 0.0:
        return -fc
    ti = params[b.KT] * i
    if abs(ti) <= fc:
        return ti
    return fc if ti > 0.0 else -fc


@register_jitable
def motor_period(params, s, v: float, floating: bool) -> float:
    """Advance one motor (row s) one period at voltage v; return the shunt voltage at its end."""
    i = s[b.S_I]
    w = s[b.S_OMEGA]
    tf = friction(params, i, w)
    if floating and i == 0.0:
        w1 = params[b.M_WW] * w + params[b.M_WF] * tf
        s[b.S_THETA] += params[b.M_TW] * w + params[b.M_TF] * tf
        i1 = 0.0
    else:
        if floating:  # body diodes return the current to the supply
            v = -params[b.V_SUPPLY] if i > 0.0 else params[b.V_SUPPLY]
        i1 = params[b.A00] * i + params[b.A01] * w + params[b.BV0] * v + params[b.BF0] * tf
        w1 = params[b.A10] * i + params[b.A11] * w + params[b.BV1] * v + params[b.BF1] * tf
        s[b.S_THETA] += params[b.C0] * i + params[b.C1] * w + params[b.CV] * v + params[b.CF] * tf
        if floating and (i1 > 0.0) != (i > 0.0):
            i1 = 0.0
    stops = (w != 0.0 and (w1 > 0.0) != (w > 0.0)) or (w == 0.0 and tf == params[b.KT] * i)
    if stops and abs(params[b.KT] * i1) <= params[b.COULOMB]:
        w1 = 0.0  # stiction: a reversal stops at rest, a torque inside +-F_c keeps it there
    s[b.S_I] = i1
    s[b.S_OMEGA] = w1
    vs = params[b.SENSE_OHM] * abs(i1)
    s[b.S_VC] += params[b.RC_ALPHA] * (vs - s[b.S_VC])
    return vs


@register_jitable
def run_periods(ram, rom, params, state, istate, n: int) -> None:
    """Simulate n timer-1 periods of firmware + plant."""
    for _ in range(n):
        if fw.timer_isr(ram, rom):
            sample(ram, params, state, istate)
            fw.bl_control(ram, rom)
        floating = ram[g.TRIPPED] != 0
        trip = False
        for k in range(g.MOTORS):
            v = ram[g.DIR + k] * ram[g.CMPR + k] * params[b.V_STEP]
            if motor_period(params, state[k], v, floating) > params[b.TRIP_V]:
                trip = True
        if trip:
            fw.pdpint_isr(ram)


run_periods_fast = cached_njit(run_periods)


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
            run_periods_fast(*args, periods)
        else:
            for _ in range(periods):
                run_periods(*args, 1)
        self.periods += periods

    def joint_velocity_cnt_s(self) -> np.ndarray:
        """The motors' true speeds in encoder counts per second."""
        return self.state[:, b.S_OMEGA] * self.params[b.CPR]
