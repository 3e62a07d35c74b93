"""GuRoo high-power board firmware (2002 source, SPEC 5) in the TMS320C2xx arithmetic of int16.

    boot          board ID from the 4-bit DIP switch; MSGIDH = (BOARD | 0x20) << 2 (announce)
    can_rx        CAN receive interrupt: the VEL_SP mailbox's four words into RAM
    can_error_isr the same interrupt for a CAN error: flags cleared, counted
    timer_isr     timer-1 period interrupt (100 kHz): feathered compare values, interrupt count
    loop_due      main's poll of that count (2002: every 400) or the 500 us interrupt (2 kHz)
    bl_control    the control routine: counters unwrapped, velocity PI per motor, current check,
                  fallback limit PWM <= I*R - K_V*omega, feathering split of the 16-bit output
    pdpint_isr    over-current comparator: all outputs floated, latched until clear_trip

Integers only.  In the entry points the budget counts (timer_isr, loop_due, bl_control, can_rx)
every operation goes through the int16 (words) and int32 (longs, compares) primitives or this
module's sat16, shl and divmod_floor, so analysis.guroo_budget counts it; not counted, by
design: constants the compiler folds into immediates (-U_MAX, ~STATUS_TRIP), the ``& 0xFFFF``
that reads a counter word as unsigned (no instruction), the HCTL-2016 putting its byte on the
bus (read_counter's ``>> 8 & 0xFF`` of the emulated register), the once-only boot, and the
emulator's statistic FEATHERED.  Every function is ``register_jitable`` so the plant kernel
inlines it (fast path) and CPython runs the same code (reference path).  The PI works on joint
velocity as the thesis says, in the position form it is equivalent to: the set-point (counts per
loop, Q4: word x R_SP_NUM / R_SP_DEN, the division's remainder carried to the next loop so REF
never drifts from the integral of the set-points) is summed into a reference position REF, the
integral term is REF - position (anti-windup: REF is held within R_IERR_MAX of the position
and does not move while the output is limited), the proportional term the velocity error of
this loop.
"""

from numba.extending import register_jitable

from servobus.firmware import guroo_memory as g
from servobus.firmware import int16 as i16
from servobus.firmware import int32 as i32


@register_jitable
def sat16(x: int) -> int:
    """The C code's explicit clamp of a long into an int (two compares and loads of a limit)."""
    if i32.gt(x, 32767):
        return 32767
    if i32.lt(x, -32768):
        return -32768
    return x


@register_jitable
def shl(x: int, n: int) -> int:
    """A long shifted left n bits (the C2xx input shifter on a 32-bit value), wrapping."""
    return i32.wrap32(x << n)


@register_jitable
def msgidh(board: int) -> int:
    """The MSGIDH word for a standard frame ID BOARD | 0x20: ID bits 10..0 in bits 12..2."""
    return i16.u16(((board & 15) | 0x20) << 2)


@register_jitable
def standard_id(msgidh_word: int) -> int:
    """The 11-bit standard identifier a MSGIDH word puts on the bus."""
    return (i16.u16(msgidh_word) >> 2) & 0x7FF


@register_jitable
def boot(ram, rom) -> None:
    """main's initialisation: DIP-switch ID, announce mailbox, drive outputs at zero duty."""
    board = rom[g.R_DIP] & 15
    ram[g.BOARD_ID] = board
    ram[g.MSGIDH] = msgidh(board)
    for k in range(g.MOTORS):
        ram[g.DIR + k] = 1
        ram[g.NEXT_DIR + k] = 1
        ram[g.LAST_CNT + k] = i16.wrap16(ram[g.REG_CNT + k])
    ram[g.STATUS] = board << 4


@register_jitable(inline="always")
def can_rx(ram, w0: int, w1: int, w2: int, seq: int) -> None:
    """CAN receive interrupt for VEL_SP_b: the mailbox words into the set-point variables."""
    ram[g.SP] = i16.wrap16(w0)
    ram[g.SP + 1] = i16.wrap16(w1)
    ram[g.SP + 2] = i16.wrap16(w2)
    ram[g.SP_SEQ] = i16.u16(seq)
    ram[g.RX_COUNT] = i16.add16(ram[g.RX_COUNT], 1) & 0xFFFF


@register_jitable
def can_error_isr(ram) -> None:
    """CAN error interrupt: the flags cleared (the controller recovers by itself); counted."""
    ram[g.CAN_ERRORS] = i16.add16(ram[g.CAN_ERRORS], 1) & 0xFFFF


@register_jitable(inline="always")
def apply_outputs(ram) -> None:
    """bl_control's end: the new pwm_high/pwm_low/counter/direction take effect."""
    for k in range(g.MOTORS):
        ram[g.PWM_HIGH + k] = ram[g.NEXT_HIGH + k]
        ram[g.PWM_LOW + k] = ram[g.NEXT_LOW + k]
        ram[g.COUNTER + k] = ram[g.NEXT_COUNTER + k]
        ram[g.DIR + k] = ram[g.NEXT_DIR + k]


@register_jitable(inline="always")
def timer_isr(ram) -> None:
    """Timer-1 period interrupt: CMPRx = pwm_high_x while feather_count < counter_x, else
    pwm_low_x; feather_count wraps at 16; the timer-interrupt counter counts."""
    if i32.gt(ram[g.APPLY_IN], 0):
        ram[g.APPLY_IN] = i16.sub16(ram[g.APPLY_IN], 1)
        if i32.eq(ram[g.APPLY_IN], 0):
            apply_outputs(ram)
    fc = ram[g.FEATHER]
    for k in range(g.MOTORS):
        if i32.lt(fc, ram[g.COUNTER + k]):
            ram[g.CMPR + k] = ram[g.PWM_HIGH + k]
            ram[g.FEATHERED] += 1  # emulator's statistic, not firmware
        else:
            ram[g.CMPR + k] = ram[g.PWM_LOW + k]
    ram[g.FEATHER] = i32.bit_and(i16.add16(fc, 1), 15)
    ram[g.TIMER_COUNT] = i16.add16(ram[g.TIMER_COUNT], 1)


@register_jitable(inline="always")
def loop_due(ram, rom) -> int:
    """main's poll (2002) or the 500 us periodic interrupt (2 kHz): 1 when the control loop is
    due; the 2002 main resets the timer-interrupt counter and the feathering counter."""
    if i32.lt(ram[g.TIMER_COUNT], rom[g.R_LOOP_TICKS]):
        return 0
    ram[g.TIMER_COUNT] = 0
    if i32.ne(rom[g.R_RESET_FEATHER], 0):
        ram[g.FEATHER] = 0
    return 1


@register_jitable(inline="always")
def pdpint_isr(ram) -> None:
    """Power-drive protection interrupt: the outputs are already floated by hardware; latch."""
    if i32.eq(ram[g.TRIPPED], 0):
        ram[g.TRIPS] = i16.add16(ram[g.TRIPS], 1)
    ram[g.TRIPPED] = 1
    ram[g.STATUS] = i32.bit_or(ram[g.STATUS], g.STATUS_TRIP)


@register_jitable
def clear_trip(ram) -> None:
    """Re-enable the outputs after a trip (the firmware's reset of the PDPINT flag)."""
    ram[g.TRIPPED] = 0
    ram[g.STATUS] = i32.bit_and(ram[g.STATUS], ~g.STATUS_TRIP)  # AND #immediate


@register_jitable(inline="always")
def read_counter(ram, k: int) -> int:
    """Motor 0: the QEP's T2CNT word; motors 1, 2: the HCTL-2016 read as high then low byte."""
    reg = ram[g.REG_CNT + k]
    if k == 0:
        return i16.wrap16(reg)
    high = (reg >> 8) & 0xFF  # the byte the chip drives (reading it latches: inhibit logic)
    low = i32.bit_and(reg, 0xFF)  # the IN's upper 8 data lines float: masked
    return i16.wrap16(i32.bit_or(shl(high, 8), low))


@register_jitable
def split_output(out: int) -> tuple[int, int, int, int]:
    """A 16-bit controller output (Q4 duty) as (direction, pwm_low, pwm_high, counter)."""
    direction = 1
    mag = out
    if i32.lt(out, 0):
        direction = -1
        mag = i16.sub16(0, out)
    low = i32.asr(mag, 4)
    counter = i32.bit_and(mag, 15)
    if i32.ge(low, g.PERIOD):
        return direction, g.PERIOD, g.PERIOD, 0
    return direction, low, i16.add16(low, 1), counter


@register_jitable
def divmod_floor(x: int, d: int) -> tuple[int, int]:
    """A long divided by a positive word: (q, r), x = q d + r, 0 <= r < d (ABS, RPT SUBC, sign
    fix-up: the C2xx's 16-step conditional subtract; |q| < 2^16 here)."""
    return x // d, x % d


@register_jitable(inline="always")
def pi_output(ram, rom, k: int, delta: int) -> int:
    """Velocity PI of motor k for a loop that moved `delta` counts: the 16-bit output, Q4 duty."""
    acc = i32.add(i16.mpy(ram[g.SP + k], rom[g.R_SP_NUM]), ram[g.SP_REM + k])
    sp_q4, ram[g.SP_REM + k] = divmod_floor(acc, rom[g.R_SP_DEN])  # remainder carried: exact
    ref = i32.add(ram[g.REF + k], sp_q4)
    pos_q4 = shl(ram[g.POS + k], 4)
    err = i32.sub(ref, pos_q4)
    lim = rom[g.R_IERR_MAX]
    neg_lim = i32.sub(0, lim)
    if i32.gt(err, lim):
        err = lim
        ref = i32.add(pos_q4, lim)
    elif i32.lt(err, neg_lim):
        err = neg_lim
        ref = i32.sub(pos_q4, lim)
    ram[g.REF + k] = ref
    verr = sat16(i32.sub(sp_q4, shl(delta, 4)))
    acc, _ = i16.apac(i16.mpy(rom[g.R_KP], verr), i16.mpy(rom[g.R_KI], err), 0, 1)
    out = sat16(i32.asr(acc, rom[g.R_PI_SHIFT]))
    if i32.gt(out, g.U_MAX):
        return g.U_MAX
    if i32.lt(out, -g.U_MAX):
        return -g.U_MAX
    return out


@register_jitable(inline="always")
def limit_output(ram, rom, k: int, out: int, delta: int) -> tuple[int, int]:
    """The current check and the fallback limit on the output; returns (output, flags).

    Both act on the drive voltage beyond the back-EMF (``out - emf``, emf = K_V * omega in the
    output's units): the check pulls it toward the back-EMF by R_KCL per ADC code above the
    limit; the fallback keeps it within +-I*R, i.e. PWM <= I*R - K_V*omega against the motion
    (negative: drive with the motion) and PWM <= I*R + K_V*omega with it."""
    flags = 0
    code = ram[g.REG_ADC + k]
    ram[g.ADC + k] = code
    emf = i32.asr(i16.mpy(rom[g.R_KV], delta), rom[g.R_KV_SHIFT])
    excess = i32.sub(out, emf)  # a long: emf is not bounded by the PWM range
    over = i16.sub16(code, rom[g.R_ILIM_CODE])
    if i32.gt(over, 0) and i32.ne(excess, 0):
        cut = i16.mpy(over, rom[g.R_KCL])
        if i32.gt(excess, 0):
            excess = i32.sub(excess, cut) if i32.gt(excess, cut) else 0
        else:
            excess = i32.add(excess, cut) if i32.gt(i32.sub(0, excess), cut) else 0
        flags = g.STATUS_CLIMIT
    lim = rom[g.R_LIM_IR]
    neg_lim = i32.sub(0, lim)
    if i32.gt(excess, lim):
        excess = lim
        flags = i32.bit_or(flags, g.STATUS_FLIMIT)
    elif i32.lt(excess, neg_lim):
        excess = neg_lim
        flags = i32.bit_or(flags, g.STATUS_FLIMIT)
    out2 = i32.add(emf, excess)
    if i32.gt(out2, g.U_MAX):
        return g.U_MAX, flags
    if i32.lt(out2, -g.U_MAX):
        return -g.U_MAX, flags
    return out2, flags


@register_jitable(inline="always")
def bl_control(ram, rom) -> None:
    """The control routine for the three motors; results take effect after R_LATENCY periods."""
    flags = 0
    for k in range(g.MOTORS):
        raw = read_counter(ram, k)
        delta = i16.sub16(raw, ram[g.LAST_CNT + k])  # the 16-bit wrap undone: |delta| < 2^15
        ram[g.LAST_CNT + k] = raw
        ram[g.POS + k] = i32.add(ram[g.POS + k], delta)
        ram[g.DELTA + k] = delta
        if i32.ne(ram[g.REG_INDEX + k], 0):
            ram[g.REG_INDEX + k] = 0
            ram[g.INDEX_POS + k] = ram[g.POS + k]
            ram[g.INDEX_COUNT + k] = i16.add16(ram[g.INDEX_COUNT + k], 1)
            flags = i32.bit_or(flags, g.STATUS_INDEX)
        held, held_rem = ram[g.REF + k], ram[g.SP_REM + k]
        out, lim_flags = limit_output(ram, rom, k, pi_output(ram, rom, k, delta), delta)
        if i32.ne(lim_flags, 0):
            ram[g.REF + k] = held  # conditional integration: no windup while limited
            ram[g.SP_REM + k] = held_rem
            flags = i32.bit_or(flags, lim_flags)
        ram[g.OUT + k] = out
        direction, low, high, counter = split_output(out)
        ram[g.NEXT_DIR + k] = direction
        ram[g.NEXT_LOW + k] = low
        ram[g.NEXT_HIGH + k] = high
        ram[g.NEXT_COUNTER + k] = counter
    if i32.ne(i32.bit_and(flags, g.STATUS_CLIMIT), 0):
        ram[g.CLIMIT_EVENTS] = i16.add16(ram[g.CLIMIT_EVENTS], 1)
    if i32.ne(i32.bit_and(flags, g.STATUS_FLIMIT), 0):
        ram[g.FLIMIT_EVENTS] = i16.add16(ram[g.FLIMIT_EVENTS], 1)
    ram[g.LOOPS] = i16.add16(ram[g.LOOPS], 1)
    status = i32.bit_or(shl(i32.bit_and(ram[g.LOOPS], 0xFF), 8), shl(ram[g.BOARD_ID], 4))
    status = i32.bit_or(status, flags)
    if i32.ne(ram[g.TRIPPED], 0):
        status = i32.bit_or(status, g.STATUS_TRIP)
    ram[g.STATUS] = status
    if i32.gt(rom[g.R_LATENCY], 0):
        ram[g.APPLY_IN] = rom[g.R_LATENCY]
    else:
        apply_outputs(ram)
