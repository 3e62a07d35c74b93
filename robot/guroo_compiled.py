"""GuRoo's steady 2 ms periods in one compiled call: the central's broadcast, the boards' and
servos' timers, arbitration with the exact bit times, every delivery's effect, the frames as rows.

A period from its broadcast instant T (the bus idle, every timer of the robot on the 2 ms grid):

    timers at T     the five boards' FEEDBACK_b (board advanced to T, words packed from RAM),
                    SERVO_STATUS (servos advanced to T), the central's broadcast (supervision,
                    the commanded integral, VEL_SP_1..5 and SERVO_SP_1..2 from the plan's words)
    the wire        every frame was queued at T, so ``period_loop.send_next`` (the LeanBus's
                    rules, IDs from the DBC) sends the lowest ID first, back to back (stuffed
                    length, trailer, interframe space), the first at max(T, the wire's free
                    instant)
    deliveries      at each end of frame, as the nodes' byte handlers do: VEL_SP_b into board
                    b's RAM (``fw.can_rx`` after the board ran to that instant), SERVO_SP_k to the
                    servo firmware and models, FEEDBACK_b and SERVO_STATUS to the central

Every frame of a period ends before the next (``guroo_sync`` checks the worst case), so this is
what the LeanBus computes event by event (``tests/robot/test_guroo_engine.py``: equal logs).
The functions are the nodes' own compiled kernels (``run_periods_lean``, ``run_steps``, the
firmware's ``can_rx`` and ``pulse_width``) and their Python arithmetic in the same order.
"""

import numpy as np
from numba.extending import register_jitable

from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.firmware import int16, int32
from servobus.firmware import servo_board as sfw
from servobus.host.guroo_central import DC_JOINTS as DC
from servobus.host.guroo_central import HP_BOARDS as HP
from servobus.host.guroo_central import LIMIT_BIT, SERVO_BOARD, TRIP_BIT
from servobus.plant import guroo_rig, rc_servo
from servobus.plant.kernel_cache import cached_njit
from servobus.robot import period_loop as wire

run_periods = guroo_rig.run_periods_lean  # the reference's results, hot state in locals
run_steps = register_jitable(rc_servo.run_steps)
pulse_width = register_jitable(sfw.pulse_width)

# message indices (the table's columns): VEL_SP_1..5, SERVO_SP_1..2, FEEDBACK_1..5, SERVO_STATUS
K_VEL, K_SERVO, K_FB, K_STATUS = 0, HP, HP + 2, 2 * HP + 2
# bus: the wire's free instant and frames written (``period_loop``), samples written, the
# central's last broadcast instant
B_SAMPLES = wire.B_FRAMES + 1
B_SENT = B_SAMPLES + 1
# central's integers: id mismatches, servo updates, servo status (-1: never heard), broadcasts, k
C_MISMATCH, C_UPDATES, C_STATUS, C_BROADCASTS, C_K = range(5)
# servo board's integers: firmware updates counter, status byte, frames, node's update count,
# the models' clock, status timer's k
S_UPDATES, S_STATUS, S_FRAMES, S_NODE_UPDATES, S_T, S_K = range(6)


@register_jitable
def put16(out, i: int, value: int) -> None:
    """A little-endian 16-bit word (two's complement) at out[i], out[i + 1]."""
    out[i] = value & 0xFF
    out[i + 1] = (value >> 8) & 0xFF


@register_jitable
def word16(data, f: int, i: int, signed: bool) -> int:
    """The little-endian 16-bit word at data[f, i]."""
    v = np.int64(data[f, i]) | (np.int64(data[f, i + 1]) << 8)
    return int(v - 65536 if signed and v >= 32768 else v)


@register_jitable
def advance_board(t, b, rams, roms, params, states, istates, periods, t0s, pwm_ns):
    """``GurooBoardNode.advance(t)``: board b through the whole timer periods before t."""
    due = (t - t0s[b]) // pwm_ns - periods[b]
    if due > 0:
        run_periods(rams[b], roms[b], params[b], states[b], istates[b], due)
        periods[b] += due


@register_jitable
def advance_servos(t, theta, omega, ref, max_error, sint, step_ns, sc):
    """``RCServoBank.advance_to(t)``: every whole integration step up to t."""
    steps = (t - sint[S_T]) // step_ns
    if steps > 0:
        run_steps(theta, omega, ref, max_error, steps, sc[0], sc[1], sc[2], sc[3], sc[4], sc[5])
        sint[S_T] += steps * step_ns


@register_jitable
def servo_setpoints(frame, data, f, words, pulses, sint, ref):
    """``ServoBoardNode._setpoints``: ``can_setpoints`` on the frame's words, pulses to refs."""
    sint[S_FRAMES] += 1
    for i in range(sfw.WORDS_PER_FRAME):
        k = (frame - 1) * sfw.WORDS_PER_FRAME + i
        word = word16(data, f, 2 * i, True)
        if word != words[k]:
            words[k] = word
            width, clamped = pulse_width(word)
            pulses[k] = width
            bit = 1 << k
            sint[S_STATUS] = int32.bit_or(sint[S_STATUS], bit) if clamped else int32.bit_and(
                sint[S_STATUS], 0xFF ^ bit)
            sint[S_UPDATES] = int16.u16(int16.add16(sint[S_UPDATES], 1))
            sint[S_NODE_UPDATES] += 1
    for i in range(sfw.WORDS_PER_FRAME):
        k = (frame - 1) * sfw.WORDS_PER_FRAME + i
        ref[k] = (pulses[k] - sfw.CENTER) / sfw.US_PER_RAD


@register_jitable
def on_feedback(b, xs, status, now, cint, cfl, last_seen, silent, tripped, trips, limits,
                samples_i, samples_f, bus, keep):
    """``CentralNode._on_feedback`` for board b (1..5); cfl rows: commanded, sent_w, err_sq,
    err_max, err_n; cint C_*; the last broadcast's instant in bus[B_SENT]."""
    last_seen[b - 1] = now
    silent[b - 1] = False
    t = status & TRIP_BIT != 0
    if t and not tripped[b - 1]:
        trips[b - 1] += 1
    tripped[b - 1] = t
    if status & LIMIT_BIT != 0:
        limits[b - 1] += 1
    if (status >> 4) & 0xF != b:
        cint[C_MISMATCH] += 1
    dt = now - bus[B_SENT]
    for i in range(3):
        j = 3 * (b - 1) + i
        commanded = cfl[0, j] + cfl[1, j] * dt / 1e9
        err = xs[i] - commanded
        if keep:
            s = bus[B_SAMPLES]
            samples_i[s, 0], samples_i[s, 1] = now, j + 1
            samples_f[s, 0], samples_f[s, 1] = xs[i], commanded
            bus[B_SAMPLES] = s + 1
        cfl[4, j] += 1.0
        cfl[2, j] += err * err
        cfl[3, j] = max(cfl[3, j], abs(err))


def forward(n, t0, period_ns, bit_ns, table, bus, plan_w, plan_raw, plan_p,
            rams, roms, params, states, istates, periods, t0s, pwm_ns, fb_sent, fb_ns,
            theta, omega, ref, max_error, step_ns, sc, words, pulses, sint, status_t0,
            status_ns, cint, cfl, last_seen, silent, faults, tripped, trips, limits,
            silent_limit, keep, frames, data, samples_i, samples_f):
    """n steady periods from the broadcast due at t0 (the module docstring); table: FRAME_NAMES'
    message table (``period_loop.message_table``); bus: B_FREE, B_FRAMES (``period_loop``),
    B_SAMPLES, B_SENT; the state arrays are the nodes'."""
    queue = wire.new_queue(table.shape[1])
    payload = np.zeros((table.shape[1], 8), dtype=np.uint8)
    xs = np.empty(3)
    free = bus[wire.B_FREE]
    f = bus[wire.B_FRAMES]
    for i in range(n):
        t = t0 + i * period_ns
        for b in range(HP):  # FEEDBACK_b timers due now
            if t0s[b] + (fb_sent[b] + 1) * fb_ns == t:
                advance_board(t, b, rams, roms, params, states, istates, periods, t0s, pwm_ns)
                ram = rams[b]
                for m in range(3):
                    put16(payload[K_FB + b], 2 * m, max(min(ram[g.POS + m] >> 3, 32767), -32768))
                put16(payload[K_FB + b], 6, ram[g.STATUS] & 0xFFFF)
                fb_sent[b] += 1
                wire.push(queue, K_FB + b, t)
        if status_t0 + sint[S_K] * status_ns == t:  # SERVO_STATUS
            advance_servos(t, theta, omega, ref, max_error, sint, step_ns, sc)
            payload[K_STATUS, 0] = sint[S_UPDATES] & 0xFF
            payload[K_STATUS, 1] = sint[S_STATUS]
            sint[S_K] += 1
            wire.push(queue, K_STATUS, t)
        for b in range(SERVO_BOARD):  # the central's broadcast: supervision first
            if t - last_seen[b] >= silent_limit and not silent[b]:
                silent[b] = True
                faults[b] += 1
        dt = t - bus[B_SENT]
        for j in range(DC):
            cfl[0, j] = cfl[0, j] + cfl[1, j] * dt / 1e9
        seq = cint[C_BROADCASTS] % 65536
        for b in range(HP):
            for m in range(3):
                put16(payload[K_VEL + b], 2 * m, plan_raw[i, 3 * b + m])
            put16(payload[K_VEL + b], 6, seq)
            wire.push(queue, K_VEL + b, t)
        for h in range(2):
            for m in range(4):
                put16(payload[K_SERVO + h], 2 * m, plan_p[i, 4 * h + m])
            wire.push(queue, K_SERVO + h, t)
        for j in range(DC):
            cfl[1, j] = plan_w[i, j]
        bus[B_SENT] = t
        cint[C_BROADCASTS] += 1
        cint[C_K] += 1
        while queue[wire.Q_N] > 0:  # the wire, by the LeanBus's rules
            k, end, free = wire.send_next(queue, table, payload, free, frames, data, f, bit_ns)
            if k < K_SERVO:  # VEL_SP_b: board b's receive interrupt
                b = k - K_VEL
                advance_board(end, b, rams, roms, params, states, istates, periods, t0s,
                              pwm_ns)
                fw.can_rx(rams[b], word16(data, f, 0, True), word16(data, f, 2, True),
                          word16(data, f, 4, True), word16(data, f, 6, False))
            elif k < K_FB:  # SERVO_SP_h
                advance_servos(end, theta, omega, ref, max_error, sint, step_ns, sc)
                servo_setpoints(k - K_SERVO + 1, data, f, words, pulses, sint, ref)
            elif k < K_STATUS:  # FEEDBACK_b to the central
                for m in range(3):
                    xs[m] = float(word16(data, f, 2 * m, True) * 8)
                on_feedback(k - K_FB + 1, xs, word16(data, f, 6, False), end, cint, cfl,
                            last_seen, silent, tripped, trips, limits, samples_i, samples_f,
                            bus, keep)
            else:  # SERVO_STATUS to the central
                last_seen[SERVO_BOARD - 1] = end
                silent[SERVO_BOARD - 1] = False
                cint[C_UPDATES] = np.int64(data[f, 0])
                cint[C_STATUS] = np.int64(data[f, 1])
            f += 1
    bus[wire.B_FREE] = free
    bus[wire.B_FRAMES] = f


forward_c = cached_njit(forward, sources=wire.ENGINE_SOURCES)
