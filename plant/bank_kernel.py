"""The lean board kernel: ``rig.run_bank`` rewritten for speed, bit for bit the same results.

Per call and board, every parameter the period loop reads is loaded once into a local (the
plant's constants, the friction end speeds of each bridge state, the table rows), the plant's
state and the decimator's head and sum live in locals and are written back at the end; the
motor and the RC filter walk the period's segments in one pass (they are independent: the
filter only reads the segments' sensed currents), sampling the ADC at its instants.  Every
floating-point expression is the reference's (``rig.run_periods``), in the same order, so
results are identical word for word; tests/plant/test_lean_kernel.py checks it.
"""

import math

import numpy as np
from numba.extending import register_jitable

from servobus.firmware import board
from servobus.firmware import int32 as i32
from servobus.firmware import memory as m
from servobus.plant import hbridge as hb
from servobus.plant import layout as p
from servobus.plant.kernel_cache import cached_njit
from servobus.plant.sensors import POT_CODES, TWO_PI


@register_jitable
def _adc_push(ram, head, total, vc, zero, cpa, off_after, max_code):
    """One ADC conversion of the filtered signal into the decimator (locals head, total)."""
    amps_seen = vc + off_after
    code = math.floor(zero + amps_seen * cpa + 0.5)
    if code < 0:
        code = 0
    elif code > max_code:
        code = max_code
    oldest = ram[m.MA_BUF0 + head]
    total = i32.add(i32.sub(total, oldest), code)
    ram[m.MA_BUF0 + head] = code
    head = i32.add(head, 1)
    if i32.eq(head, m.MA_LEN):
        head = 0
    return head, total


@register_jitable
def _segments(duty, floating, top, averaged, centre, dead, ends, states):
    """``hbridge.build_segments`` with its parameters as arguments."""
    if averaged:
        return hb._append(ends, states, 0, top, hb.AVERAGED)
    if floating:
        return hb._append(ends, states, 0, top, hb.OPEN)
    mag = abs(duty)
    if mag == 0:
        return hb._append(ends, states, 0, top, hb.BRAKE)
    drive = hb.DRIVE_POS if duty > 0 else hb.DRIVE_NEG
    if mag >= top:
        return hb._append(ends, states, 0, top, drive)
    a = (top - mag) // 2 if centre else 0
    b = a + mag
    n = hb._append(ends, states, 0, a, hb.BRAKE)
    if b > a + dead:
        n = hb._append(ends, states, n, a + dead, hb.OPEN)
        n = hb._append(ends, states, n, b, drive)
    n = hb._append(ends, states, n, min(b + dead, top), hb.OPEN)
    return hb._append(ends, states, n, top, hb.BRAKE)


@register_jitable
def _board(ram, rom, prm, state, istate, tables, n, ends, states):
    """n PWM periods of one board, as ``rig.run_periods`` without a trace."""
    top = int(prm[p.PWM_TOP])
    n_adc = int(prm[p.ADC_PER_PWM])
    step = top // n_adc
    first = 1 if prm[p.ADC_AT_EDGE] != 0.0 else 0
    averaged = prm[p.AVERAGED] != 0.0
    centre = prm[p.CENTRE_ALIGNED] != 0.0
    dead = int(prm[p.DEAD_COUNTS])
    locked = prm[p.LOCKED] != 0.0
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
    rate_c = (kt * kt / r + prm[p.B_VISC]) / j
    rate_o = prm[p.B_VISC] / j
    jr_c = j * rate_c
    jr_o = j * rate_o
    tab_rc = tables[p.TAB_RC]
    tab_c = tables[p.TAB_CONDUCTING]
    tab_o = tables[p.TAB_OPEN]
    omega = state[p.OMEGA]
    theta = state[p.THETA]
    vc = state[p.VC]
    temp = state[p.TEMP_C]
    i_mean = state[p.I_MEAN]
    rng = istate[p.RNG]
    rev = istate[p.MOTOR_REV]
    head = ram[m.MA_HEAD]
    total = ram[m.MA_SUM]
    for _ in range(n):
        duty = ram[m.PWM_SHADOW]
        floating = ram[m.BRIDGE_SHADOW] == m.BRIDGE_FLOAT
        if first:
            head, total = _adc_push(ram, head, total, vc, zero, cpa, off_after, max_code)
        # sensors at kT (pot with its noise, encoder, index, thermometer)
        ideal = POT_CODES / 2 + theta * pot_lsb
        u = min(max(ideal / (POT_CODES - 1), 0.0), 1.0)
        rng ^= (rng << 13) & 0xFFFFFFFF
        rng ^= rng >> 17
        rng ^= (rng << 5) & 0xFFFFFFFF
        noise = (2.0 * (rng / 4294967296.0) - 1.0) * pot_noise
        pot = math.floor(ideal + bow4 * u * (1.0 - u) + noise + 0.5)
        pot = int(min(max(pot, 0), POT_CODES - 1))
        enc = math.floor(theta * gear * enc_cpr) & 0xFFFF
        rev_now = math.floor(theta * gear / TWO_PI)
        index = 1 if rev_now != rev else 0
        rev = rev_now
        therm = math.floor(temp * thermo + 0.5)
        therm = int(min(max(therm, 0), POT_CODES - 1))
        ram[m.MA_HEAD] = head
        ram[m.MA_SUM] = total
        board.pwm_isr(ram, rom, pot, enc, index, therm)
        n_seg = _segments(duty, floating, top, averaged, centre, dead, ends, states)
        i_sum = 0.0
        i2_sum = 0.0
        start = 0
        t = 0
        adc_j = 1  # the next ADC instant in this period is adc_j * step
        if not first:  # the sample at kT follows the controller
            head, total = _adc_push(ram, head, total, vc, zero, cpa, off_after, max_code)
        for s in range(n_seg):
            end = ends[s]
            seg = states[s]
            counts = end - start
            conducting = seg != hb.OPEN
            if seg == hb.DRIVE_POS:
                v = v_supply
            elif seg == hb.DRIVE_NEG:
                v = -v_supply
            elif seg == hb.AVERAGED:
                v = v_supply * duty / top_f
            else:
                v = 0.0
            if locked:
                i = v / r if conducting else 0.0
            else:
                w0 = omega
                net = (kt * v / r if conducting else 0.0) - load
                stuck = False
                if w0 > 0.0:
                    fric = fc
                elif w0 < 0.0:
                    fric = -fc
                elif abs(net) <= fc:
                    stuck = True
                    fric = 0.0
                else:
                    fric = fc if net > 0.0 else -fc
                if stuck:
                    i = v / r if conducting else 0.0
                else:
                    if conducting:
                        rate = rate_c
                        jr = jr_c
                        decay = tab_c[counts]
                    else:
                        rate = rate_o
                        jr = jr_o
                        decay = tab_o[counts]
                    dt = counts / pclk
                    w_end = (net - fric) / jr
                    w1 = w_end + (w0 - w_end) * decay
                    dtheta = w_end * dt + (w0 - w_end) * (1.0 - decay) / rate
                    if w0 != 0.0 and (w1 > 0.0) != (w0 > 0.0):
                        if abs(net) <= fc:
                            w1 = 0.0
                        else:
                            w_end = (net + fric) / jr
                            w1 = w_end + (w0 - w_end) * decay
                            dtheta = w_end * dt + (w0 - w_end) * (1.0 - decay) / rate
                    omega = w1
                    theta += dtheta
                    i = (v - kt * dtheta / dt) / r if conducting else 0.0
            if bipolar:
                x = i
            else:
                shunt = 0.0 if seg == hb.BRAKE or seg == hb.OPEN else abs(i)
                x = max(shunt + off_before, 0.0)
            i_sum += i * counts
            i2_sum += i * i * counts
            while adc_j < n_adc and adc_j * step <= end:  # the filter to each ADC instant
                target = adc_j * step
                if t < target:
                    vc = x + (vc - x) * tab_rc[target - t]
                    t = target
                head, total = _adc_push(ram, head, total, vc, zero, cpa, off_after, max_code)
                adc_j += 1
            if t < end:
                vc = x + (vc - x) * tab_rc[end - t]
                t = end
            start = end
        i_mean = i_sum / top
        heat = i2_sum / top * bridge
        loss = (temp - ambient) / thermal_r
        temp += dt_period * (heat - loss) / thermal_c
    state[p.OMEGA] = omega
    state[p.THETA] = theta
    state[p.VC] = vc
    state[p.TEMP_C] = temp
    state[p.I_MEAN] = i_mean
    istate[p.RNG] = rng
    istate[p.MOTOR_REV] = rev
    ram[m.MA_HEAD] = head
    ram[m.MA_SUM] = total


@register_jitable
def run_bank_lean(rams, roms, params, states, istates, tables, counts, trace_i, trace_f):
    """Advance each board b of a bank by counts[b] PWM periods (``rig.run_bank``'s signature
    and results; the traces are not written, as there)."""
    ends = np.zeros(hb.MAX_SEGMENTS, dtype=np.int64)
    seg_states = np.zeros(hb.MAX_SEGMENTS, dtype=np.int64)
    for b in range(rams.shape[0]):
        if counts[b] > 0:
            _board(rams[b], roms[b], params[b], states[b], istates[b], tables[b], counts[b],
                   ends, seg_states)


run_bank_lean_fast = cached_njit(run_bank_lean)
