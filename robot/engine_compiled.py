"""The compiled period engine: many fault-free 4 ms periods of the SPEJBL robot per numba call.

One call of ``fast_forward`` computes n whole periods, each exactly as the reference path runs a
steady period (the events in their order, every time in integer ns):

    T_i          the time trigger's timer: TICK (seq = k mod 256) queued, arbitrated at T_i
    end of TICK  the bank advanced to that instant (``run_bank_lean``), every board's
                 ``can_tick``, 12 MEAS queued (in board order); the host opens period k
                 (the player advances to the instant, nothing is fresh)
    MEAS_j       frame after frame in ID order, each after its exact stuffed length + trailer +
                 interframe space (``stuffed_bits``); the host stores the position; the 12th
                 starts the computation: done = its end + compute_ns (MEAS6_j: the supply's raw
                 value and the current PI_MEAS / counts per A clipped to -8..7.99 A, as
                 ``BoardNode.measurement``)
    done         trajectory position (or the frozen hold) -> PID bank (``host_step``) -> the
                 currents of released joints 0 and their PID state reset -> 3 ACTUATION
                 frames encoded as the DBC's iw signals (round((A - offset) / scale), int16 LE)
    ACTUATION_k  the group's 4 boards: ``can_actuation`` with the Q12 value ``rig.actuate``
                 writes for the decoded value; local-P mode: no PID, POSREF_k
                 with x_w = min(max(round(reference), 0), 1023), ``can_posref``
    STATUS_j     at the boards' status instants (every 100 ms, on a tick): queued before the
                 TICK with the payload encoded from RAM then (mode, fault bits, watchdog; an
                 error-active controller-less bus: 0, 0, 0); sent after the MEAS, an
                 ACTUATION queued at or before an arbitration instant winning it (lower ID);
                 the host only notes the board's mode (Python, afterwards)

It writes what Python needs afterwards into arrays: per period the tick's end of frame, the last
measurement (the supervisor's figures, with the computation's length) and the last frame's end,
the reference, measured positions and currents (the period records), and every frame (start,
end, busy until, ID, sender, stuffed bits, DLC, data) for the load meter and a log writer.  The
state it advances lives in the arrays the Python objects already hold (the bank's rows, the PID
bank, the host's measured positions); ``robot.engine_sync`` hands the rest in and out and
decides which periods qualify (no other event, no fault, no pending frame: see there).
"""

from pathlib import Path

import numpy as np
from numba.extending import register_jitable

from servobus.bus.frame_bits import IFS_BITS, TRAILER_BITS
from servobus.bus.frame_fast import stuffed_bits
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.host.host_step import pid_reset, pid_step, trajectory_position
from servobus.plant.bank_kernel import run_bank_lean
from servobus.plant.board_bank import due_counts
from servobus.plant.board_node import STATUS_PERIOD_NS
from servobus.plant.kernel_cache import cached_njit
from servobus.presets.firmware_image import Q12_AMP
from servobus.robot.frame_rows import F_BITS, F_BUSY, F_DLC, F_END, F_ID, F_SENDER, F_START

ENGINE_SOURCES = tuple(Path(__file__).parent.parent / folder  # what the loop inlines
                       for folder in ("firmware", "plant", "host", "bus", "robot", "presets"))
FRAMES_PER_PERIOD = 28  # TICK, 12 MEAS, 3 ACTUATION, 12 STATUS
# per-period columns of `periods`
P_TICK_END, P_LAST_MEAS, P_LAST_EVENT = range(3)
# `bus` state: free_at (in/out), frames written (out), limit events (out)
B_FREE, B_FRAMES, B_LIMIT = range(3)
# `signals`: the DBC's iw signal (scale, offset, range) and MEAS6 current (scale, offset)
S_IW_SCALE, S_IW_OFFSET, S_IW_LO, S_IW_HI, S_CUR_SCALE, S_CUR_OFFSET = range(6)


@register_jitable
def _frame(frames, data, f, can_id, sender, payload, dlc, start, bit_ns):
    """Write frame f (transmitted from `start`) and return the wire's free instant after it."""
    bits = stuffed_bits(can_id, payload, dlc, False)
    end = start + (bits + TRAILER_BITS) * bit_ns
    busy = end + IFS_BITS * bit_ns
    frames[f, F_START], frames[f, F_END], frames[f, F_BUSY] = start, end, busy
    frames[f, F_ID], frames[f, F_SENDER], frames[f, F_BITS], frames[f, F_DLC] = \
        can_id, sender, bits, dlc
    for b in range(8):
        data[f, b] = payload[b] if b < dlc else 0
    return busy


@register_jitable
def _status_payload(ram, out):
    """STATUS_j as the board encodes it on the period engine's bus: mode, over-current,
    over-temperature, watchdog; CAN state error-active, TEC = REC = 0 (no controller)."""
    mode = ram[m.MODE]
    if mode < 0 or mode > 3:
        raise ValueError("a mode outside the STATUS signal's range")
    out[0] = mode
    out[1] = (1 if ram[m.STATUS] & m.STATUS_OVER_CURRENT != 0 else 0) | \
        (2 if ram[m.STATUS] & m.STATUS_OVER_TEMPERATURE != 0 else 0) | \
        (4 if board.actuation_timed_out(ram) else 0)
    out[2], out[3] = 0, 0


@register_jitable
def _advance_bank(t, rams, roms, params, states, istates, tables, phase, done, pwm_ns, counts,
                  ti, tf):
    """``BoardBank.advance_to(t)``: every board through its PWM periods that start before t."""
    if due_counts(phase, done, t, pwm_ns, counts):
        run_bank_lean(rams, roms, params, states, istates, tables, counts, ti, tf)
        for b in range(rams.shape[0]):
            done[b] += counts[b]


def fast_forward(n, t0, tick_ns, k0, bit_ns, ids, bus, meas_dlc, supply_raw, cpa, local_p,
                 rams, roms, params, states, istates, tables, phase, done, pwm_ns, ti, tf,
                 poses, starts, durations, period_s, player, paused,
                 hold, engaged, measured, r_p, r_i, r_d, i_max, aw_mode, a_aw, integ, e_prev,
                 saturated, compute_ns, status, status_due, status_at, periods, refs, meas,
                 currents, frames, data, signals):
    """n steady periods from the tick due at t0 (see the module docstring); ids: TICK,
    MEAS_1..12 (MEAS6_j when meas_dlc is 6: supply_raw, the DBC's raw supply, and cpa, the
    counts per ampere, per board), ACTUATION_1..3 (POSREF_1..3 when local_p), STATUS_1..12;
    player: [playback time, last wall time] (s); status_due[j]: board j's STATUS timer fires at
    status_at[0] and every STATUS_PERIOD_NS after it, on a tick (its payload, from RAM then, is
    left in status[j]; status_at[0] is advanced past the last one sent); signals: the S_*
    scales, offsets and range."""
    joints = rams.shape[0]
    groups = joints // 4
    counts = np.zeros(joints, dtype=np.int64)
    payload = np.zeros(8, dtype=np.uint8)
    act = np.zeros((groups, 8), dtype=np.uint8)
    act_raw = np.zeros((groups, 4), dtype=np.int64)
    reference = np.empty(joints)
    position = np.empty(joints)
    out = np.empty(joints)
    reset = np.zeros(joints, dtype=np.bool_)
    free = bus[B_FREE]
    f = 0
    limit_events = 0
    for i in range(n):
        t = t0 + i * tick_ns
        statuses = t == status_at[0]
        if statuses:  # BoardNode._status of the due boards, before the tick (timer order)
            status_at[0] += STATUS_PERIOD_NS
            for b in range(joints):
                if status_due[b]:
                    _status_payload(rams[b], status[b])
        payload[0] = (k0 + i) & 0xFF
        start = max(t, free)
        free = _frame(frames, data, f, ids[0], 0, payload, 1, start, bit_ns)
        tick_end = frames[f, F_END]
        f += 1
        _advance_bank(tick_end, rams, roms, params, states, istates, tables, phase, done,
                      pwm_ns, counts, ti, tf)
        for b in range(joints):
            board.can_tick(rams[b], roms[b])
        wall = tick_end / 1e9
        if not paused:
            player[0] += wall - player[1]
        player[1] = wall
        last = tick_end
        for b in range(joints):  # MEAS_j in ID order (ids ascend with j)
            pos = rams[b, m.POS_TX]
            if pos < 0 or pos > 1023:
                raise ValueError("a position outside the MEAS signal's range")
            payload[0], payload[1] = pos & 0xFF, pos >> 8
            if meas_dlc == 6:  # BoardNode.measurement: supply, current clipped to the signal
                amps = rams[b, m.PI_MEAS] / cpa[b]
                amps = 7.99 if amps > 7.99 else amps
                amps = -8.0 if amps < -8.0 else amps
                raw = round((amps - signals[S_CUR_OFFSET]) / signals[S_CUR_SCALE])
                payload[2], payload[3] = supply_raw[b] & 0xFF, supply_raw[b] >> 8
                payload[4], payload[5] = raw & 0xFF, (raw >> 8) & 0xFF
            free = _frame(frames, data, f, ids[1 + b], 1 + b, payload, meas_dlc, free, bit_ns)
            last = frames[f, F_END]
            measured[b] = float(pos)
            f += 1
        done_at = last + compute_ns
        trajectory_position(poses, starts, durations, period_s, player[0], position)
        for j in range(joints):
            reference[j] = position[j] if np.isnan(hold[j]) else hold[j]
            currents[i, j] = 0.0
        if not local_p:
            pid_step(r_p, r_i, r_d, i_max, aw_mode, a_aw, integ, e_prev, reference, measured,
                     out, saturated)
            any_reset = False
            for j in range(joints):
                reset[j] = not engaged[j]
                any_reset = any_reset or reset[j]
                currents[i, j] = out[j] if engaged[j] else 0.0
                if saturated[j] and engaged[j]:
                    limit_events += 1
            if any_reset:
                pid_reset(reset, integ, e_prev)
        for g in range(groups):
            for q in range(4):
                j = 4 * g + q
                if local_p:  # POSREF: x_w rounded and clamped to the pot's range
                    raw = min(max(round(reference[j]), 0), 1023)
                else:
                    if not signals[S_IW_LO] <= currents[i, j] <= signals[S_IW_HI]:
                        raise ValueError("a current outside the ACTUATION signal's range")
                    raw = round((currents[i, j] - signals[S_IW_OFFSET]) / signals[S_IW_SCALE])
                act[g, 2 * q], act[g, 2 * q + 1] = raw & 0xFF, (raw >> 8) & 0xFF
                act_raw[g, q] = raw if local_p else \
                    round((raw * signals[S_IW_SCALE] + signals[S_IW_OFFSET]) * Q12_AMP)
        g, s = 0, 0  # the next ACTUATION (queued at done) and STATUS (queued at T, period 0)
        while True:
            while s < joints and not (statuses and status_due[s]):
                s += 1
            if g == groups and s == joints:
                break
            if g < groups and (done_at <= free or s == joints):  # the lowest ID queued
                free = _frame(frames, data, f, ids[1 + joints + g], 1 + joints, act[g], 8,
                              max(free, done_at), bit_ns)
                for q in range(4):
                    if local_p:
                        board.can_posref(rams[4 * g + q], act_raw[g, q])
                    else:
                        board.can_actuation(rams[4 * g + q], act_raw[g, q])
                g += 1
            else:
                free = _frame(frames, data, f, ids[1 + joints + groups + s], 1 + s, status[s],
                              4, free, bit_ns)
                s += 1
            periods[i, P_LAST_EVENT] = frames[f, F_END]
            f += 1
        periods[i, P_TICK_END], periods[i, P_LAST_MEAS] = tick_end, last
        for j in range(joints):
            refs[i, j] = reference[j]
            meas[i, j] = measured[j]
    bus[B_FREE], bus[B_FRAMES], bus[B_LIMIT] = free, f, limit_events
    return n


fast_forward_c = cached_njit(fast_forward, sources=ENGINE_SOURCES)
