"""A cyclic robot's steady periods (GuRoo's 2 ms) in one compiled call: the central's broadcast,
the boards' and servos' timers, arbitration with the exact bit times, every delivery's effect,
the frames as rows.  The robot's shape comes as arrays (H high-power boards, their joint counts
and IDs, S servos in NS frames, or none): GuRoo is 5 boards of 3 joints and 8 servos.

A period from its broadcast instant T (the bus idle, every timer of the robot on the period's grid):

    timers at T     the boards' FEEDBACK_b (board advanced to T, words packed from RAM),
                    SERVO_STATUS (servos advanced to T), the central's broadcast (supervision,
                    the commanded integral, every VEL_SP_b and SERVO_SP_k from the plan's words)
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
from servobus.host.guroo_central import (
    C_BROADCASTS,
    C_K,
    C_MISMATCH,
    C_STATUS,
    C_UPDATES,
    F_COMMANDED,
    F_ERR_MAX,
    F_ERR_N,
    F_ERR_SQ,
    F_SENT_W,
    LIMIT_BIT,
    SLOTS,
    TRIP_BIT,
)
from servobus.plant import guroo_rig, rc_servo
from servobus.plant.kernel_cache import cached_njit
from servobus.plant.servo_board import S_FRAMES, S_K, S_NODE_UPDATES, S_STATUS, S_T, S_UPDATES
from servobus.robot import period_loop as wire

run_periods = guroo_rig.run_periods_lean  # the reference's results, hot state in locals
run_steps = register_jitable(rc_servo.run_steps)
pulse_width = register_jitable(sfw.pulse_width)

# message indices (the table's columns): VEL_SP of the H boards from K_VEL, the NS SERVO_SP
# frames from H, the H FEEDBACKs from H + NS, SERVO_STATUS last (when there is a servo board)
K_VEL = 0
# the shape array: servos, servo frames
SH_SERVOS, SH_FRAMES = range(2)
# bus: the wire's free instant and frames written (``period_loop``), samples written, the
# central's last broadcast instant
B_SAMPLES = wire.B_FRAMES + 1
B_SENT = B_SAMPLES + 1
# the nodes' state arrays: the central's ints C_* and float rows F_* (``CentralState``), the
# servo board's ints S_* (``ServoState``)


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
def servo_setpoints(frame, count, data, f, words, pulses, sint, ref):
    """``ServoBoardNode._setpoints``: ``can_setpoints`` on the frame's `count` words, pulses
    to refs."""
    sint[S_FRAMES] += 1
    for i in range(count):
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
    for i in range(count):
        k = (frame - 1) * sfw.WORDS_PER_FRAME + i
        ref[k] = (pulses[k] - sfw.CENTER) / sfw.US_PER_RAD


@register_jitable
def on_feedback(b, board_id, n, xs, status, now, cint, cfl, last_seen, silent, tripped, trips,
                limits, slot_joints, samples_i, samples_f, bus, keep):
    """``CentralNode._on_feedback`` for the b-th board (0-based; board ID `board_id`, n
    joints); cfl: the central's F_* rows, cint its C_*; the last broadcast's instant in
    bus[B_SENT]."""
    last_seen[b] = now
    silent[b] = False
    t = status & TRIP_BIT != 0
    if t and not tripped[b]:
        trips[b] += 1
    tripped[b] = t
    if status & LIMIT_BIT != 0:
        limits[b] += 1
    if (status >> 4) & 0xF != board_id:
        cint[C_MISMATCH] += 1
    dt = now - bus[B_SENT]
    for i in range(n):
        j = SLOTS * b + i
        commanded = cfl[F_COMMANDED, j] + cfl[F_SENT_W, j] * dt / 1e9
        err = xs[i] - commanded
        if keep:
            s = bus[B_SAMPLES]
            samples_i[s, 0], samples_i[s, 1] = now, slot_joints[j]
            samples_f[s, 0], samples_f[s, 1] = xs[i], commanded
            bus[B_SAMPLES] = s + 1
        cfl[F_ERR_N, j] += 1.0
        cfl[F_ERR_SQ, j] += err * err
        cfl[F_ERR_MAX, j] = max(cfl[F_ERR_MAX, j], abs(err))


def forward(n, t0, period_ns, bit_ns, table, bus, plan_w, plan_raw, plan_p,
            rams, roms, params, states, istates, periods, t0s, pwm_ns, fb_sent, fb_ns,
            theta, omega, ref, max_error, step_ns, sc, words, pulses, sint, status_t0,
            status_ns, cint, cfl, last_seen, silent, faults, tripped, trips, limits,
            silent_limit, keep, frames, data, samples_i, samples_f, hp_ids, joints, slot_joints,
            shape):
    """n steady periods from the broadcast due at t0 (the module docstring); table: the
    engine's message table (``period_loop.message_table``); bus: B_FREE, B_FRAMES
    (``period_loop``), B_SAMPLES, B_SENT; the state arrays are the nodes'; hp_ids and joints:
    each high-power board's ID and joint count, slot_joints each velocity slot's joint (0:
    none), shape SH_*."""
    hp = hp_ids.shape[0]
    servos, nframes = shape[SH_SERVOS], shape[SH_FRAMES]
    k_servo, k_fb = hp, hp + nframes
    k_status = k_fb + hp
    supervised = hp + (1 if servos > 0 else 0)
    slots = SLOTS * hp
    queue = wire.new_queue(table.shape[1])
    payload = np.zeros((table.shape[1], data.shape[1]), dtype=np.uint8)  # a row per message
    xs = np.empty(SLOTS)
    free = bus[wire.B_FREE]
    f = bus[wire.B_FRAMES]
    for i in range(n):
        t = t0 + i * period_ns
        for b in range(hp):  # FEEDBACK_b timers due now
            if t0s[b] + (fb_sent[b] + 1) * fb_ns == t:
                advance_board(t, b, rams, roms, params, states, istates, periods, t0s, pwm_ns)
                ram = rams[b]
                nj = joints[b]
                for m in range(nj):
                    put16(payload[k_fb + b], 2 * m, max(min(ram[g.POS + m] >> 3, 32767), -32768))
                put16(payload[k_fb + b], 2 * nj, ram[g.STATUS] & 0xFFFF)
                fb_sent[b] += 1
                wire.push(queue, k_fb + b, t)
        if servos > 0 and status_t0 + sint[S_K] * status_ns == t:  # SERVO_STATUS
            advance_servos(t, theta, omega, ref, max_error, sint, step_ns, sc)
            payload[k_status, 0] = sint[S_UPDATES] & 0xFF
            payload[k_status, 1] = sint[S_STATUS]
            sint[S_K] += 1
            wire.push(queue, k_status, t)
        for b in range(supervised):  # the central's broadcast: supervision first
            if t - last_seen[b] >= silent_limit and not silent[b]:
                silent[b] = True
                faults[b] += 1
        dt = t - bus[B_SENT]
        for j in range(slots):
            cfl[F_COMMANDED, j] = cfl[F_COMMANDED, j] + cfl[F_SENT_W, j] * dt / 1e9
        seq = cint[C_BROADCASTS] % 65536
        for b in range(hp):
            nj = joints[b]
            for m in range(nj):
                put16(payload[K_VEL + b], 2 * m, plan_raw[i, SLOTS * b + m])
            put16(payload[K_VEL + b], 2 * nj, seq)
            wire.push(queue, K_VEL + b, t)
        for h in range(nframes):
            for m in range(min(sfw.WORDS_PER_FRAME, servos - sfw.WORDS_PER_FRAME * h)):
                put16(payload[k_servo + h], 2 * m, plan_p[i, sfw.WORDS_PER_FRAME * h + m])
            wire.push(queue, k_servo + h, t)
        for j in range(slots):
            cfl[F_SENT_W, j] = plan_w[i, j]
        bus[B_SENT] = t
        cint[C_BROADCASTS] += 1
        cint[C_K] += 1
        while queue[wire.Q_N] > 0:  # the wire, by the LeanBus's rules
            k, end, free = wire.send_next(queue, table, payload, free, frames, data, f, bit_ns)
            if k < k_servo:  # VEL_SP_b: board b's receive interrupt
                b = k - K_VEL
                nj = joints[b]
                advance_board(end, b, rams, roms, params, states, istates, periods, t0s,
                              pwm_ns)
                w0 = word16(data, f, 0, True)
                w1 = word16(data, f, 2, True) if nj > 1 else 0
                w2 = word16(data, f, 4, True) if nj > 2 else 0
                fw.can_rx(rams[b], w0, w1, w2, word16(data, f, 2 * nj, False))
            elif k < k_fb:  # SERVO_SP_h
                h = k - k_servo
                advance_servos(end, theta, omega, ref, max_error, sint, step_ns, sc)
                servo_setpoints(h + 1, min(sfw.WORDS_PER_FRAME, servos - sfw.WORDS_PER_FRAME * h),
                                data, f, words, pulses, sint, ref)
            elif k < k_status:  # FEEDBACK_b to the central
                b = k - k_fb
                nj = joints[b]
                for m in range(nj):
                    xs[m] = float(word16(data, f, 2 * m, True) * 8)
                on_feedback(b, hp_ids[b], nj, xs, word16(data, f, 2 * nj, False), end, cint,
                            cfl, last_seen, silent, tripped, trips, limits, slot_joints,
                            samples_i, samples_f, bus, keep)
            else:  # SERVO_STATUS to the central
                last_seen[hp] = end
                silent[hp] = False
                cint[C_UPDATES] = np.int64(data[f, 0])
                cint[C_STATUS] = np.int64(data[f, 1])
            f += 1
    bus[wire.B_FREE] = free
    bus[wire.B_FRAMES] = f


forward_c = cached_njit(forward, sources=wire.ENGINE_SOURCES)
