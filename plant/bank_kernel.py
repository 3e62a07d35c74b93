"""The lean board kernel: ``rig.run_bank`` rewritten for speed, bit for bit the same results.

Per call and board, every parameter the period loop reads is loaded once into a local (the
plant's constants, the friction end speeds of each bridge state, the table rows as pointers);
the plant's state, the firmware's ROM constants and the RAM words of its PWM interrupt live in
locals and are written back at the end (the interrupt is ``board.pwm_isr`` transcribed onto
them); the motor and the RC filter walk the period's segments in one pass (they are
independent: the filter only reads the segments' sensed currents), sampling the ADC at its
instants.  The segments are ``hbridge.segments``' written out in straight-line code (brake,
open, drive, open, brake, each skipped when empty; one piece for a floating bridge, zero or
full duty and the averaged plant), each a copy of ``lean_segment.piece``: no segment arrays;
in the switching pieces the bridge state is a constant, so no branch on it (the one-piece call
picks its state at run time).  Every
floating-point expression is the reference's (``rig.run_periods``), in the same order, so
results are identical word for word; tests/plant/test_lean_kernel*.py check it.

Where it departs from the reference's code, and why that changes no result:
* the ADC, pot and thermometer conversions truncate instead of calling floor: the two differ
  only on (-1, 0), which both clamp to code 0; NaN and out-of-range values convert alike;
* indices known to be >= 0 are unsigned (``_u``: no negative-index wraparound); the moving
  sum's head stays in [0, MA_LEN), so its 32-bit wrap is the identity;
* the boards' loop (``_lean_bank``) runs under numpy's error model, inherited by all it calls
  or inlines: no division checks its divisor.  The reference's ZeroDivisionError is kept by
  ``divisors_nonzero``, per board and call before any period runs; if a board to advance has a
  zero divisor, the whole call runs on ``rig.run_bank_fast`` (from an object-mode block, so it
  is compiled only when that happens), which gives the reference's results and raises where it
  does.  The divisors it checks (a division added to ``_board`` must be added there): ``n_adc``,
  ``top``, ``pclk``, ``r``, ``j``, ``rate_c``, ``rate_o`` (0 without viscous friction),
  ``j * rate_c``, ``j * rate_o``, ``thermal_r``, ``thermal_c``, the table row ``tab_dt`` (k /
  pclk, 0 for some k >= 1 only if at k = 1) and the ROM's ``pos_block``; the rest are
  constants (``POT_CODES - 1``, 2**32, ``TWO_PI``, 2).  NaN divides without raising under both
  models, so only zeros matter.  A board that would divide by 0 but never does (no viscous
  friction on a locked rotor) gets the reference's results too.

What each pass gained, and what was tried and dropped (reusing segments while the duty repeats,
boards in lockstep, SIMD lanes across boards, the interrupt on RAM, a 1 - decay table, tuple
segments, reciprocals): docs/profile.md, "Board kernel, second pass" to "sixth pass".
"""

import math

import numba
import numpy as np
from numba.extending import register_jitable

from servobus.firmware import int32 as i32
from servobus.firmware import memory as m
from servobus.plant import layout as p
from servobus.plant.kernel_cache import cached_njit
from servobus.plant.lean_segment import (
    BRAKE,
    DRIVE,
    OPEN,
    START,
    adc_push,
    data,
    piece,
    state_constants,
)
from servobus.plant.rig import N_TF, N_TI, run_bank_fast
from servobus.plant.sensors import POT_CODES, TWO_PI

_TRACE_I, _TRACE_F = np.empty((1, N_TI), dtype=np.int64), np.empty((1, N_TF))


@register_jitable(inline='always')
def _rates(prm):
    """The shaft's decay rates (1/s) with the bridge conducting and open, as motor.advance's."""
    j = prm[p.J_TOTAL]
    return (prm[p.KT] * prm[p.KT] / prm[p.R_A] + prm[p.B_VISC]) / j, prm[p.B_VISC] / j


@numba.njit(inline='always')
def _board(ram, rom, prm, state, istate, tables, n):
    """n PWM periods of one board, as ``rig.run_periods`` without a trace (inlined by numba's
    untyped inliner: the typed one deep-copies the typed IR of its pieces, ~30 s more of a cold
    compile per kernel that inlines it)."""
    top = int(prm[p.PWM_TOP])
    n_adc = int(prm[p.ADC_PER_PWM])
    step = top // n_adc
    first = 1 if prm[p.ADC_AT_EDGE] != 0.0 else 0
    locked = prm[p.LOCKED] != 0.0
    dead = int(prm[p.DEAD_COUNTS])
    centre = prm[p.CENTRE_ALIGNED] != 0.0
    averaged = prm[p.AVERAGED] != 0.0
    bipolar = prm[p.SENSE_BIPOLAR] != 0.0
    v_supply = prm[p.V_SUPPLY]
    kt = prm[p.KT]
    r = prm[p.R_A]
    j = prm[p.J_TOTAL]
    fc = prm[p.COULOMB]
    load = prm[p.LOAD_TORQUE]
    pclk = prm[p.PCLK_HZ]
    top_f = prm[p.PWM_TOP]
    off_before = prm[p.OFFSET_BEFORE_RC_A]
    off_after = prm[p.OFFSET_AFTER_RC_A]
    zero = prm[p.ADC_ZERO_CODE]
    cpa = prm[p.ADC_CODES_PER_AMP]
    max_code = int(prm[p.ADC_MAX_CODE])
    pot_lsb = prm[p.POT_LSB_PER_RAD]
    pot_noise = prm[p.POT_NOISE_LSB]
    bow4 = prm[p.POT_BOW_LSB] * 4.0
    gear = prm[p.GEAR]
    enc_cpr = prm[p.ENC_COUNTS_PER_MOTOR_RAD]
    thermo = prm[p.THERMO_CODES_PER_C]
    bridge = prm[p.BRIDGE_OHM]
    thermal_r = prm[p.THERMAL_R]
    thermal_c = prm[p.THERMAL_C]
    ambient = prm[p.AMBIENT_C]
    dt_period = top / pclk
    rate_c, rate_o = _rates(prm)
    jr_c = j * rate_c
    jr_o = j * rate_o
    cs_pos = state_constants(v_supply, True, kt, r, load, fc, jr_c)
    cs_neg = state_constants(-v_supply, True, kt, r, load, fc, jr_c)
    cs_brake = state_constants(0.0, True, kt, r, load, fc, jr_c)
    cs_open = state_constants(0.0, False, kt, r, load, fc, jr_o)
    x_idle = max(0.0 + off_before, 0.0)  # the sensed signal of a brake or open piece, unipolar
    ks = (locked, bipolar, x_idle, off_before, kt, r, n_adc, step, zero, cpa, off_after,
          max_code)
    # the tables and the RAM as pointers for the pieces (lean_segment.data)
    p_rc, p_c, p_o = data(tables[p.TAB_RC]), data(tables[p.TAB_CONDUCTING]), \
        data(tables[p.TAB_OPEN])
    p_dt, p_ram = data(tables[p.TAB_DT]), data(ram)
    omega = state[p.OMEGA]
    theta = state[p.THETA]
    vc = state[p.VC]
    temp = state[p.TEMP_C]
    rng = istate[p.RNG]
    rev = istate[p.MOTOR_REV]
    head = ram[m.MA_HEAD]
    total = ram[m.MA_SUM]
    # the firmware's constants and the RAM words its PWM interrupt reads or writes
    k_p, k_i, u_max, u_max_q15 = rom[m.K_P], rom[m.K_I], rom[m.U_MAX], rom[m.U_MAX_Q15]
    signed_sense, adc_zero_sum = rom[m.SIGNED_SENSE], rom[m.ADC_ZERO_SUM]
    oc_limit, oc_periods, ot_limit = rom[m.OC_LIMIT], rom[m.OC_PERIODS], rom[m.OT_LIMIT]
    pos_block, p_block, p_gain = rom[m.POS_BLOCK], rom[m.P_BLOCK], rom[m.P_GAIN_Q8]
    p_vel, p_prev = rom[m.P_VEL_Q8], ram[m.P_PREV]
    mode, iw_counts, duty_ref, xw_ref = ram[m.MODE], ram[m.IW_COUNTS], ram[m.DUTY_REF], \
        ram[m.XW_REF]
    pwm_active, pwm_prev, pwm_shadow = ram[m.PWM_ACTIVE], ram[m.PWM_PREV], ram[m.PWM_SHADOW]
    bridge_active, bridge_shadow = ram[m.BRIDGE_ACTIVE], ram[m.BRIDGE_SHADOW]
    enc_pos, enc_last = ram[m.ENC_POS], ram[m.ENC_LAST]
    enc_index_pos, enc_index_count = ram[m.ENC_INDEX_POS], ram[m.ENC_INDEX_COUNT]
    pos_sum, pos_count, pos_out, pos_seq = ram[m.POS_SUM], ram[m.POS_COUNT], ram[m.POS_OUT], \
        ram[m.POS_SEQ]
    pi_meas, pi_integ, p_sum, p_count = ram[m.PI_MEAS], ram[m.PI_INTEG], ram[m.P_SUM], \
        ram[m.P_COUNT]
    oc_count, status, temp_raw = ram[m.OC_COUNT], ram[m.STATUS], ram[m.TEMP_RAW]
    i_sum = 0.0
    for _ in range(n):
        duty = pwm_shadow
        floating = bridge_shadow == m.BRIDGE_FLOAT
        if first:
            head, total = adc_push(ram, head, total, vc, zero, cpa, off_after, max_code)
        # sensors at kT (pot with its noise, encoder, index, thermometer)
        ideal = POT_CODES / 2 + theta * pot_lsb
        u = min(max(ideal / (POT_CODES - 1), 0.0), 1.0)
        rng ^= (rng << 13) & 0xFFFFFFFF
        rng ^= rng >> 17
        rng ^= (rng << 5) & 0xFFFFFFFF
        noise = (2.0 * (rng / 4294967296.0) - 1.0) * pot_noise
        pot = int(ideal + bow4 * u * (1.0 - u) + noise + 0.5)
        pot = int(min(max(pot, 0), POT_CODES - 1))
        enc = math.floor(theta * gear * enc_cpr) & 0xFFFF
        rev_now = math.floor(theta * gear / TWO_PI)
        index = 1 if rev_now != rev else 0
        rev = rev_now
        therm = int(temp * thermo + 0.5)
        therm = int(min(max(therm, 0), POT_CODES - 1))
        # board.pwm_isr on the locals: sensors, protection, controller, PWM shadow register
        pwm_prev = pwm_active
        pwm_active = pwm_shadow
        bridge_active = bridge_shadow
        enc_pos = i32.add(enc_pos, i32.diff16(enc, enc_last))  # encoder.encoder_read
        enc_last = enc
        if i32.ne(index, 0):
            enc_index_pos = enc_pos
            enc_index_count = i32.add(enc_index_count, 1)
        if i32.eq(pos_seq, 0) and i32.eq(pos_count, 0):  # position.pot_sample
            pos_out = pot
        pos_sum = i32.add(pos_sum, pot)
        pos_count = i32.add(pos_count, 1)
        if i32.eq(pos_count, pos_block):
            pos_out = i32.div_trunc(i32.add(pos_sum, i32.asr(pos_block, 1)), pos_block)
            pos_seq = i32.add(pos_seq, 1)
            pos_sum = 0
            pos_count = 0
        meas = i32.sub(total, adc_zero_sum)  # current_loop.measured_current
        if i32.eq(signed_sense, 0) and i32.lt(pwm_prev, 0):
            meas = i32.sub(0, meas)
        pi_meas = meas
        magnitude = meas if i32.ge(meas, 0) else i32.sub(0, meas)  # protection.check
        if i32.gt(magnitude, oc_limit):
            oc_count = i32.add(oc_count, 1)
            if i32.ge(oc_count, oc_periods):
                status = i32.bit_or(status, m.STATUS_OVER_CURRENT)
        else:
            oc_count = 0
        temp_raw = therm
        if i32.gt(therm, ot_limit):
            status = i32.bit_or(status, m.STATUS_OVER_TEMPERATURE)
        if i32.ne(status, 0) or i32.eq(mode, m.MODE_FLOAT):
            pi_integ = 0
            pwm_shadow = 0
            bridge_shadow = m.BRIDGE_FLOAT
        else:
            bridge_shadow = m.BRIDGE_PWM
            if i32.eq(mode, m.MODE_CURRENT):  # current_loop.pi_step
                e = i32.sub(iw_counts, meas)
                prop = i32.mul(k_p, e)
                lo_i, _ = i32.sat_sub(i32.sub(0, u_max_q15), prop)
                hi_i, _ = i32.sat_sub(u_max_q15, prop)
                integ = i32.clamp(pi_integ, lo_i, hi_i)
                out, _ = i32.sat_add(prop, integ)
                pi_integ, _ = i32.sat_add(integ, i32.mul(k_i, e))
                pwm_shadow = i32.asr(out, 15)
            elif i32.eq(mode, m.MODE_DUTY):
                pwm_shadow = duty_ref
            else:  # local_p.p_sample, p_step
                p_sum = i32.add(p_sum, pot)
                p_count = i32.add(p_count, 1)
                if i32.eq(p_count, p_block):
                    e = i32.sub(i32.mul(xw_ref, p_block), p_sum)
                    fall = 0 if i32.lt(p_prev, 0) else i32.sub(p_prev, p_sum)
                    u_p = i32.asr(i32.add(i32.mul(e, p_gain), i32.mul(fall, p_vel)), 8)
                    p_prev = p_sum
                    p_sum = 0
                    p_count = 0
                    pwm_shadow = i32.clamp(u_p, i32.sub(0, u_max), u_max)
        if not first:  # the sample at kT follows the controller
            head, total = adc_push(ram, head, total, vc, zero, cpa, off_after, max_code)
        # the locals a piece updates; the RC filter's next ADC instant: target = adc_j * step
        st = (omega, theta, vc, head, total, 1, step, 0.0, 0.0, 0)
        mag = abs(duty)
        if averaged or floating or mag == 0 or mag >= top:  # one piece: the whole period
            if top > 0:
                kind, cs, rate, p_w = DRIVE, cs_pos if duty > 0 else cs_neg, rate_c, p_c
                if averaged:
                    cs = state_constants(v_supply * duty / top_f, True, kt, r, load, fc, jr_c)
                elif floating:
                    kind, cs, rate, p_w = OPEN, cs_open, rate_o, p_o
                elif mag == 0:
                    kind, cs = BRAKE, cs_brake
                st = piece(kind, top, st, cs, ks, rate, p_w, p_dt, p_rc, p_ram)
        else:  # brake | open | drive | open | brake, each piece skipped when empty
            a = (top - mag) // 2 if centre else 0
            b = a + mag
            if a > 0:
                st = piece(BRAKE, a, st, cs_brake, ks, rate_c, p_c, p_dt, p_rc, p_ram)
            if b > a + dead:
                if a + dead > st[START]:
                    st = piece(OPEN, a + dead, st, cs_open, ks, rate_o, p_o, p_dt, p_rc,
                               p_ram)
                if b > st[START]:
                    st = piece(DRIVE, b, st, cs_pos if duty > 0 else cs_neg, ks, rate_c,
                               p_c, p_dt, p_rc, p_ram)
            e = min(b + dead, top)
            if e > st[START]:
                st = piece(OPEN, e, st, cs_open, ks, rate_o, p_o, p_dt, p_rc, p_ram)
            if top > st[START]:
                st = piece(BRAKE, top, st, cs_brake, ks, rate_c, p_c, p_dt, p_rc, p_ram)
        omega, theta, vc, head, total, _, _, i_sum, i2_sum, _ = st
        heat = i2_sum / top * bridge
        loss = (temp - ambient) / thermal_r
        temp += dt_period * (heat - loss) / thermal_c
    state[p.OMEGA] = omega
    state[p.THETA] = theta
    state[p.VC] = vc
    state[p.TEMP_C] = temp
    if n > 0:  # the last period's mean
        state[p.I_MEAN] = i_sum / top
    istate[p.RNG] = rng
    istate[p.MOTOR_REV] = rev
    ram[m.MA_HEAD] = head
    ram[m.MA_SUM] = total
    ram[m.PWM_ACTIVE], ram[m.PWM_PREV], ram[m.PWM_SHADOW] = pwm_active, pwm_prev, pwm_shadow
    ram[m.BRIDGE_ACTIVE], ram[m.BRIDGE_SHADOW] = bridge_active, bridge_shadow
    ram[m.ENC_POS], ram[m.ENC_LAST] = enc_pos, enc_last
    ram[m.ENC_INDEX_POS], ram[m.ENC_INDEX_COUNT] = enc_index_pos, enc_index_count
    ram[m.POS_SUM], ram[m.POS_COUNT], ram[m.POS_OUT] = pos_sum, pos_count, pos_out
    ram[m.POS_SEQ] = pos_seq
    ram[m.PI_MEAS], ram[m.PI_INTEG], ram[m.P_SUM], ram[m.P_COUNT] = pi_meas, pi_integ, p_sum, \
        p_count
    ram[m.P_PREV] = p_prev
    ram[m.OC_COUNT], ram[m.STATUS], ram[m.TEMP_RAW] = oc_count, status, temp_raw


@register_jitable(inline='always')
def divisors_nonzero(prm, rom, tables):
    """Whether no divisor ``_board`` can meet is 0 (the module docstring lists them): then the
    numpy error model's missing zero checks change nothing."""
    top = int(prm[p.PWM_TOP])
    r = prm[p.R_A]
    j = prm[p.J_TOTAL]
    if top == 0 or int(prm[p.ADC_PER_PWM]) == 0 or r == 0.0 \
            or j == 0.0 or prm[p.PCLK_HZ] == 0.0 or tables[p.TAB_DT, 1] == 0.0 \
            or prm[p.THERMAL_R] == 0.0 or prm[p.THERMAL_C] == 0.0 or rom[m.POS_BLOCK] == 0:
        return False
    rate_c, rate_o = _rates(prm)
    return rate_c != 0.0 and rate_o != 0.0 and j * rate_c != 0.0 and j * rate_o != 0.0


@register_jitable
def _reference_bank(rams, roms, params, states, istates, tables, counts):
    """The bank on ``rig.run_bank_fast`` (its own dispatcher: python error model, compiled only
    when a board has a zero divisor): its results, and its ZeroDivisionError where it raises."""
    with numba.objmode():
        run_bank_fast(rams, roms, params, states, istates, tables, counts, _TRACE_I, _TRACE_F)


@register_jitable(error_model='numpy')
def _lean_bank(rams, roms, params, states, istates, tables, counts):
    """The boards' periods under numpy's error model, inherited by all it calls and inlines."""
    for b in range(rams.shape[0]):
        if counts[b] > 0:
            _board(rams[b], roms[b], params[b], states[b], istates[b], tables[b], counts[b])


@register_jitable
def run_bank_checked(rams, roms, params, states, istates, tables, counts):
    """``run_bank_lean`` without the traces: the lean kernel, or the reference kernel if a board
    to advance has a zero divisor."""
    for b in range(rams.shape[0]):
        if counts[b] > 0 and not divisors_nonzero(params[b], roms[b], tables[b]):
            _reference_bank(rams, roms, params, states, istates, tables, counts)
            return
    _lean_bank(rams, roms, params, states, istates, tables, counts)


@register_jitable
def run_bank_lean(rams, roms, params, states, istates, tables, counts, trace_i, trace_f):
    """Advance each board b of a bank by counts[b] PWM periods (``rig.run_bank``'s signature
    and results; the traces are not written, as there)."""
    run_bank_checked(rams, roms, params, states, istates, tables, counts)


run_bank_lean_fast = cached_njit(run_bank_lean)
