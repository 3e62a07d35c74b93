"""The compiled period engine: many fault-free periods of a time-triggered robot (SPEJBL: 4 ms,
12 joints in 3 actuation groups) per numba call.

One call of ``fast_forward`` computes n whole periods, each exactly as the reference path runs a
steady period (every time in integer ns).  The frames go through the shared wire
(``period_loop``: queued by the nodes at their instants, sent by the LeanBus's rules in the
order the DBC's IDs give), and at each end of frame the receivers do what their nodes do:

    T_i          the boards' STATUS timers (every 100 ms, on a tick: STATUS_j queued with the
                 payload encoded from RAM then: mode, fault bits, watchdog; an error-active
                 controller-less bus: 0, 0, 0), then the time trigger's: TICK (seq = k mod 256)
    TICK         the bank advanced to its end (``run_bank_checked``: the lean kernel, the
                 reference kernel if a board has a zero divisor),
                 every board's ``can_tick``,
                 a MEAS per board queued then (in board order; MEAS6_j: the supply's raw
                 value and the current PI_MEAS / counts per A clipped to -8..7.99 A, as
                 ``BoardNode.measurement``); the host opens period k (the player advances to
                 the instant, nothing is fresh)
    MEAS_j       the host stores the position; the last of them starts the computation: the
                 trajectory position (or the frozen hold) -> PID bank (``host_step``) -> the
                 currents of released joints 0 and their PID state reset -> an ACTUATION
                 frame per group encoded as the DBC's iw signals (round((A - offset) /
                 scale), int16 LE), queued at done = its end + compute_ns
    ACTUATION_k  the group's boards: ``can_actuation`` with the Q12 value ``rig.actuate``
                 writes for the decoded value; local-P mode: no PID, POSREF_k
                 with x_w = min(max(round(reference), 0), 1023), ``can_posref``
    STATUS_j     the host only notes the board's mode (Python, afterwards)

It writes what Python needs afterwards into arrays: per period the tick's end of frame, the last
measurement (the supervisor's figures, with the computation's length) and the last frame's end,
the reference, measured positions and currents (the period records), and every frame (start,
end, busy until, ID, sender, stuffed bits, DLC, data) for the load meter and a log writer.  The
state it advances lives in the arrays the Python objects already hold (the bank's rows, the PID
bank, the host's measured positions); ``robot.engine_sync`` hands the rest in and out and
decides which periods qualify (no other event, no fault, no pending frame: see there).
"""

import numba
import numpy as np
from numba.extending import register_jitable

from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.host.host_step import pid_reset, pid_step, trajectory_position
from servobus.plant.bank_kernel import run_bank_checked
from servobus.plant.board_bank import due_counts
from servobus.plant.board_node import STATUS_PERIOD_NS
from servobus.plant.kernel_cache import cached_njit
from servobus.presets.firmware_image import Q12_AMP
from servobus.robot.period_loop import (
    B_FRAMES,
    B_FREE,
    ENGINE_SOURCES,
    Q_N,
    new_queue,
    push,
    send_next,
)

# per-period columns of `periods`
P_TICK_END, P_LAST_MEAS, P_LAST_EVENT = range(3)
# `bus` state: ``period_loop``'s free instant (in/out) and frames written (out); limit events
B_LIMIT = B_FRAMES + 1
# `signals`: the DBC's iw signal (scale, offset, range) and MEAS6 current (scale, offset)
S_IW_SCALE, S_IW_OFFSET, S_IW_LO, S_IW_HI, S_CUR_SCALE, S_CUR_OFFSET = range(6)


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
def _advance_bank(t, rams, roms, params, states, istates, tables, phase, done, pwm_ns, counts):
    """``BoardBank.advance_to(t)``: every board through its PWM periods that start before t."""
    if due_counts(phase, done, t, pwm_ns, counts):
        run_bank_checked(rams, roms, params, states, istates, tables, counts)
        for b in range(rams.shape[0]):
            done[b] += counts[b]


@register_jitable
def _meas_payload(rams, b, dlc, supply_raw, cpa, signals, out):
    """MEAS_j (MEAS6_j when dlc is 6) of board b as ``BoardNode.measurement`` encodes it, into
    row 1 + b of out: the position; the supply's raw value and PI_MEAS / counts per A clipped
    to -8..7.99 A (rows and boards by index: a view per call costs its reference counts)."""
    k = 1 + b
    pos = rams[b, m.POS_TX]
    if pos < 0 or pos > 1023:
        raise ValueError("a position outside the MEAS signal's range")
    out[k, 0], out[k, 1] = pos & 0xFF, pos >> 8
    if dlc == 6:
        amps = rams[b, m.PI_MEAS] / cpa
        amps = 7.99 if amps > 7.99 else amps
        amps = -8.0 if amps < -8.0 else amps
        raw = round((amps - signals[S_CUR_OFFSET]) / signals[S_CUR_SCALE])
        out[k, 2], out[k, 3] = supply_raw & 0xFF, supply_raw >> 8
        out[k, 4], out[k, 5] = raw & 0xFF, (raw >> 8) & 0xFF


@numba.njit(inline="always")  # a call per period passes ~25 arrays' fields
def _host_step(i, local_p, player, poses, starts, durations, period_s, hold, engaged, measured,
               r_p, r_i, r_d, i_max, aw_mode, a_aw, integ, e_prev, saturated, reference,
               position, out, reset, currents, signals, payload, k_act, act_raw, groups):
    """The host's computation once period i's last MEAS is in: trajectory position (or the
    frozen hold) -> PID bank -> released joints 0 with their PID state reset -> the ACTUATION
    (POSREF) payloads in rows k_act.. of payload and the values the boards take in act_raw;
    returns the period's limit events."""
    joints = reference.shape[0]
    limit_events = 0
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
    for g in range(groups.shape[0]):
        for q in range(groups.shape[1]):
            j = groups[g, q]
            if j < 0:
                break
            if local_p:  # POSREF: x_w rounded and clamped to the pot's range
                raw = min(max(round(reference[j]), 0), 1023)
            else:
                if not signals[S_IW_LO] <= currents[i, j] <= signals[S_IW_HI]:
                    raise ValueError("a current outside the ACTUATION signal's range")
                raw = round((currents[i, j] - signals[S_IW_OFFSET]) / signals[S_IW_SCALE])
            payload[k_act + g, 2 * q], payload[k_act + g, 2 * q + 1] = raw & 0xFF, \
                (raw >> 8) & 0xFF
            act_raw[g, q] = raw if local_p else \
                round((raw * signals[S_IW_SCALE] + signals[S_IW_OFFSET]) * Q12_AMP)
    return limit_events


def fast_forward(n, t0, tick_ns, k0, bit_ns, table, bus, meas_dlc, supply_raw, cpa, local_p,
                 rams, roms, params, states, istates, tables, phase, done, pwm_ns,
                 poses, starts, durations, period_s, player, paused,
                 hold, engaged, measured, r_p, r_i, r_d, i_max, aw_mode, a_aw, integ, e_prev,
                 saturated, compute_ns, status, status_due, status_at, periods, refs, meas,
                 currents, frames, data, signals, groups):
    """n steady periods from the tick due at t0 (see the module docstring); table: the message
    table (``period_loop.message_table``) of TICK, MEAS_1..N (MEAS6_j when meas_dlc is 6:
    supply_raw, the DBC's raw supply, and cpa, the counts per ampere, per board), ACTUATION_1..G
    (POSREF_1..G when local_p), STATUS_1..N; groups[g]: the 0-based joints of ACTUATION_g+1 in
    frame order, -1 after the last;
    player: [playback time, last wall time] (s); status_due[j]: board j's STATUS timer fires at
    status_at[0] and every STATUS_PERIOD_NS after it, on a tick (its payload, from RAM then, is
    left in status[j]; status_at[0] is advanced past the last one sent); signals: the S_*
    scales, offsets and range."""
    joints = rams.shape[0]
    n_groups = groups.shape[0]
    k_act, k_status = 1 + joints, 1 + joints + n_groups  # message indices (table's columns)
    counts = np.zeros(joints, dtype=np.int64)
    queue = new_queue(table.shape[1])  # TICK, N MEAS, G ACTUATION, N STATUS
    payload = np.zeros((table.shape[1], data.shape[1]), dtype=np.uint8)  # a row per message
    act_raw = np.zeros(groups.shape, dtype=np.int64)
    reference = np.empty(joints)
    position = np.empty(joints)
    out = np.empty(joints)
    reset = np.zeros(joints, dtype=np.bool_)
    free = bus[B_FREE]
    f = 0
    limit_events = 0
    for i in range(n):
        t = t0 + i * tick_ns
        if t == status_at[0]:  # BoardNode._status of the due boards, before the tick (timers)
            status_at[0] += STATUS_PERIOD_NS
            for b in range(joints):
                if status_due[b]:
                    _status_payload(rams[b], status[b])
                    for c in range(4):  # not a slice: its shape check costs ~2 s of compile
                        payload[k_status + b, c] = status[b, c]
                    push(queue, k_status + b, t)
        payload[0, 0] = (k0 + i) & 0xFF
        push(queue, 0, t)
        heard = 0
        while queue[Q_N] > 0:  # the wire, by the LeanBus's rules
            k, end, free = send_next(queue, table, payload, free, frames, data, f, bit_ns)
            f += 1
            if k == 0:  # TICK: the boards to its end, their tick handlers and MEAS; the host
                periods[i, P_TICK_END] = end
                _advance_bank(end, rams, roms, params, states, istates, tables, phase, done,
                              pwm_ns, counts)
                for b in range(joints):
                    board.can_tick(rams[b], roms[b])
                wall = end / 1e9
                if not paused:
                    player[0] += wall - player[1]
                player[1] = wall
                for b in range(joints):
                    _meas_payload(rams, b, meas_dlc, supply_raw[b], cpa[b], signals, payload)
                    push(queue, 1 + b, end)
            elif k < k_act:  # MEAS_j to the host; the last one starts its computation
                measured[k - 1] = float(payload[k, 0] | (np.int64(payload[k, 1]) << 8))
                heard += 1
                if heard == joints:
                    periods[i, P_LAST_MEAS] = end
                    limit_events += _host_step(i, local_p, player, poses, starts, durations,
                                               period_s, hold, engaged, measured, r_p, r_i,
                                               r_d, i_max, aw_mode, a_aw, integ, e_prev,
                                               saturated, reference, position, out, reset,
                                               currents, signals, payload, k_act, act_raw,
                                               groups)
                    for g in range(n_groups):
                        push(queue, k_act + g, end + compute_ns)
            elif k < k_status:  # ACTUATION_g (POSREF_g): its boards
                g = k - k_act
                for q in range(groups.shape[1]):
                    b = groups[g, q]
                    if b < 0:
                        break
                    if local_p:
                        board.can_posref(rams[b], act_raw[g, q])
                    else:
                        board.can_actuation(rams[b], act_raw[g, q])
        periods[i, P_LAST_EVENT] = end  # the period's last end of frame
        for j in range(joints):
            refs[i, j] = reference[j]
            meas[i, j] = measured[j]
    bus[B_FREE], bus[B_FRAMES], bus[B_LIMIT] = free, f, limit_events
    return n


fast_forward_c = cached_njit(fast_forward, sources=ENGINE_SOURCES)
