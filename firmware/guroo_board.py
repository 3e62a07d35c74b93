"""GuRoo high-power board firmware: the 2001 board's printed routines (thesis Appendix B) in the
TMS320C2xx arithmetic of int16.

Printed (startup.c, lowlevel.c), transcribed:

    get_ID        BOARD = BOARD_ID (a build constant, ROM here); LEDs show it in binary for 1..5
    boot          main's start: get_ID, the announce's ID argument (BOARD | 0x20) << 2, and
                  init_board's consequences (compare values 0 until the first c_int2)
    timer_isr     c_int2, the timer-1 period interrupt: count++, CMPRk = pwm_high_k while
                  feather_count < counter_k else pwm_low_k, feather_count wraps at 16; the compare
                  registers reload from their shadows at the period match (COMCON = 0xA200)
    loop_due      main's poll: count >= 400 -> count = 0, feather_count = 0
    main_loop     the body of that ``if``: bl_control, then data[] into mailbox 2 (CANMBX2A..D)
    read_enc      two external reads (port 0: both HCTL-2016s' high bytes, port 1: their low
                  bytes) on every call, then T2CNT, qdec_ext2 or qdec_ext3 by motor
    read_curr     ADCFIFO1 >> 6, scaled ``current * 17 + 152`` (mA)
    set_PWM       counter_k = d & 15, pwm_high_k = (d >> 4) + 101, pwm_low_k = (d >> 4) + 100:
                  d in -1600..1600, bipolar, zero at compare 100
    can_rx        c_int1 with PIVR 0x40: can_receive (not printed; ours: the VEL_SP mailbox's
                  words into the set-point variables)
    can_error_isr c_int1 with PIVR 0x41: CANIFR and CANESR cleared (counted here)

Not printed, ours (marked where they stand): ``bl_control`` (the thesis describes it: a velocity
PI, the current checked against a limit, the fallback PWM <= I*R - K_V*omega), the boot's
set_PWM(k, 0) (init_pos is not printed; as printed the compare values would stay 0, full
reverse, until the first loop), the bus-voltage read, ``pdpint_hi_z`` (the hardware's latch: the
printed EVIMRA = 0x0080 masks the PDPINT interrupt, so no routine runs), and the emulator's
loop time: bl_control's outputs reach set_PWM R_LATENCY periods after its sensors were read.

``>>`` on a signed ``int`` is arithmetic (TI's C2xx compiler, SXM = 1; ANSI leaves it to the
implementation).  Integers only.  In the entry points the budget counts (timer_isr, loop_due,
bl_control, can_rx) every operation goes through the int16 (words) and int32 (longs, compares)
primitives or this module's sat16, shl and divmod_floor, so analysis.guroo_budget counts it;
not counted, by design: constants the compiler folds into immediates, the ``& 0xFFFF`` that reads
a word as unsigned (no instruction), the once-only boot, and the emulator's statistic FEATHERED.
Every function is ``register_jitable`` so the plant kernel inlines it (fast path) and CPython
runs the same code (reference path).  The PI works on joint velocity as the thesis says, in the
position form it is equivalent to: the set-point (counts per loop, Q4: word x R_SP_NUM /
R_SP_DEN, the division's remainder carried to the next loop so REF never drifts from the
integral of the set-points) is summed into a reference position REF, the integral term is REF -
position (anti-windup: REF is held within R_IERR_MAX of the position and does not move while the
output is limited), the proportional term the velocity error of this loop.
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
    """main's ``(BOARD | 0x20) << 2``: a standard ID's 11 bits in MSGIDnH bits 12..2."""
    return i16.u16((board | 0x20) << 2)


@register_jitable
def standard_id(msgidh_word: int) -> int:
    """The 11-bit standard identifier a MSGIDH word puts on the bus."""
    return (i16.u16(msgidh_word) >> 2) & 0x7FF


@register_jitable
def leds(board: int) -> int:
    """get_ID's LEDs (bit 0 LED1, bit 1 LED2, bit 2 LED3): LEDON1, 2, 12, 3, 13 for boards 1..5,
    LEDOFF for any other."""
    if 1 <= board <= 5:
        return board
    return 0


@register_jitable
def get_ID(ram, rom) -> None:
    """BOARD = BOARD_ID, the build's constant; the LEDs show it."""
    board = rom[g.R_BOARD_ID]
    ram[g.BOARD_ID] = board
    ram[g.LEDS] = leds(board)


@register_jitable(inline="always")
def set_PWM(ram, k: int, d: int) -> None:
    """counter_k = d & 0x000F; pwm_high_k = (d >> 4) + 101; pwm_low_k = (d >> 4) + 100.

    Over c_int2's 16-period feather cycle the compare value is pwm_high for counter_k periods and
    pwm_low for the rest: its mean is 100 + d/16, since (d >> 4) * 16 + (d & 15) == d."""
    ram[g.COUNTER + k] = i32.bit_and(d, 0x000F)
    q = i32.asr(i16.wrap16(d), 4)
    ram[g.PWM_HIGH + k] = i16.add16(q, 101)
    ram[g.PWM_LOW + k] = i16.add16(q, 100)


@register_jitable
def boot(ram, rom) -> None:
    """main's start: get_ID, the announce's ID word, and (ours: init_pos, not printed) every
    motor at set_PWM(k, 0) and its counter read as the position's start."""
    get_ID(ram, rom)
    ram[g.MSGIDH] = msgidh(ram[g.BOARD_ID])
    for k in range(g.MOTORS):
        set_PWM(ram, k, 0)
        ram[g.LAST_CNT + k] = read_enc(ram, k)
    ram[g.STATUS] = ram[g.BOARD_ID] << 4


@register_jitable(inline="always")
def can_rx(ram, w0: int, w1: int, w2: int, seq: int) -> None:
    """c_int1, PIVR 0x40: can_receive (ours) puts VEL_SP_b's words into the set-points."""
    ram[g.SP] = i16.wrap16(w0)
    ram[g.SP + 1] = i16.wrap16(w1)
    ram[g.SP + 2] = i16.wrap16(w2)
    ram[g.SP_SEQ] = i16.u16(seq)
    ram[g.RX_COUNT] = i16.add16(ram[g.RX_COUNT], 1) & 0xFFFF


@register_jitable
def can_error_isr(ram) -> None:
    """c_int1, PIVR 0x41: CANIFR = 0x0078, CANESR = 0xFFFF (the controller recovers by itself);
    counted."""
    ram[g.CAN_ERRORS] = i16.add16(ram[g.CAN_ERRORS], 1) & 0xFFFF


@register_jitable(inline="always")
def apply_outputs(ram) -> None:
    """bl_control's set_PWM calls, at the end of the emulated loop time."""
    for k in range(g.MOTORS):
        set_PWM(ram, k, ram[g.OUT + k])


@register_jitable(inline="always")
def timer_isr(ram) -> None:
    """c_int2 (PIVR 0x27, the only event-manager interrupt EVIMRA enables).

    The hardware first: at the period match the compare registers take the values the last
    c_int2 wrote (COMCON's CLD = 01).  Then the emulator's loop time counts down (APPLY_IN).
    Then as printed: count++; CMPRk = pwm_high_k if feather_count < counter_k, else (if
    feather_count >= counter_k) pwm_low_k; feather_count++, back to 0 at 16."""
    for k in range(g.MOTORS):
        ram[g.CMPR + k] = ram[g.CMPR_SHADOW + k]
    if i32.gt(ram[g.APPLY_IN], 0):
        ram[g.APPLY_IN] = i16.sub16(ram[g.APPLY_IN], 1)
        if i32.eq(ram[g.APPLY_IN], 0):
            apply_outputs(ram)
    ram[g.TIMER_COUNT] = i16.add16(ram[g.TIMER_COUNT], 1)
    fc = ram[g.FEATHER]
    for k in range(g.MOTORS):
        if i32.lt(fc, ram[g.COUNTER + k]):
            ram[g.CMPR_SHADOW + k] = ram[g.PWM_HIGH + k]
            ram[g.FEATHERED] += 1  # emulator's statistic, not firmware
        elif i32.ge(fc, ram[g.COUNTER + k]):
            ram[g.CMPR_SHADOW + k] = ram[g.PWM_LOW + k]
    fc = i16.add16(fc, 1)
    if i32.ge(fc, 16):
        fc = 0
    ram[g.FEATHER] = fc


@register_jitable(inline="always")
def loop_due(ram, rom) -> int:
    """main's poll ``if (count >= 400) { count = 0; feather_count = 0; ...`` (the 2 kHz mode:
    the redesign's periodic interrupt, R_LOOP_TICKS 50, feather_count left running)."""
    if i32.lt(ram[g.TIMER_COUNT], rom[g.R_LOOP_TICKS]):
        return 0
    ram[g.TIMER_COUNT] = 0
    if i32.ne(rom[g.R_RESET_FEATHER], 0):
        ram[g.FEATHER] = 0
    return 1


@register_jitable(inline="always")
def pdpint_hi_z(ram) -> None:
    """The PDPINT pin (the over-current comparators, NORed) puts the compare outputs in high
    impedance and latches: no interrupt runs (EVIMRA = 0x0080 masks it) and nothing printed
    re-enables them.  TRIPS is the emulator's count."""
    if i32.eq(ram[g.TRIPPED], 0):
        ram[g.TRIPS] = i16.add16(ram[g.TRIPS], 1)
    ram[g.TRIPPED] = 1
    ram[g.STATUS] = i32.bit_or(ram[g.STATUS], g.STATUS_TRIP)


@register_jitable
def clear_trip(ram) -> None:
    """A board reset's effect on the PDPINT latch (the outputs enabled again)."""
    ram[g.TRIPPED] = 0
    ram[g.STATUS] = i32.bit_and(ram[g.STATUS], ~g.STATUS_TRIP)  # AND #immediate


@register_jitable(inline="always")
def read_enc(ram, k: int) -> int:
    """The printed read_enc(k), unsigned: inport(0) and inport(1) on every call, then

        qdec_ext3 = (EXT_DATA1 & 0xFF00) | (EXT_DATA2 >> 8)
        qdec_ext2 = ((EXT_DATA1 << 8) & 0xFF00) | (EXT_DATA2 & 0x00FF)

    and T2CNT (motor 0), qdec_ext2 (motor 1) or qdec_ext3 (motor 2)."""
    ext1 = i16.u16(ram[g.REG_PORT0])  # high bytes: motor 2's in bits 15..8, motor 1's in 7..0
    ext2 = i16.u16(ram[g.REG_PORT1])  # low bytes, the same lanes
    qdec_ext3 = i32.bit_or(i32.bit_and(ext1, 0xFF00), ext2 >> 8)
    qdec_ext2 = i32.bit_or(i32.bit_and(i16.u16(shl(ext1, 8)), 0xFF00), i32.bit_and(ext2, 0x00FF))
    if k == 0:
        return i16.u16(ram[g.REG_T2CNT])
    if k == 1:
        return qdec_ext2
    return qdec_ext3


@register_jitable(inline="always")
def read_curr(ram, rom, k: int) -> int:
    """The printed read_curr(k): channel k's conversion (started, polled until ADCTRL1 bit 7
    drops: the plant has latched ADCFIFO1), ``current = ADCFIFO1 >> 6``, returned as
    ``current * 17 + 152`` mA (152..17543).  With R_ADC_STALE (the reading in which the
    start-now bit and the start bit queue two conversions) ADCFIFO1 holds the previous call's
    channel: motor k reads motor k - 1's current (motor 0 the last loop's motor 2)."""
    fifo = ram[g.REG_ADC + k]
    if i32.ne(rom[g.R_ADC_STALE], 0):
        fifo, ram[g.ADC_LAST] = ram[g.ADC_LAST], fifo
    current = i16.u16(fifo) >> 6
    return i16.u16(i16.add16(i16.mul16(current, 17), 152))


@register_jitable(inline="always")
def read_vbus(ram, rom) -> int:
    """Ours (no such read is printed): channel 3, the bus-voltage divider, in mV."""
    code = i16.u16(ram[g.REG_VBUS]) >> 6
    return i16.u16(i16.mul16(code, rom[g.R_VBUS_MV_PER_CODE]))


@register_jitable
def divmod_floor(x: int, d: int) -> tuple[int, int]:
    """A long divided by a positive word: (q, r), x = q d + r, 0 <= r < d (ABS, RPT SUBC, sign
    fix-up: the C2xx's 16-step conditional subtract; |q| < 2^16 here)."""
    return x // d, x % d


@register_jitable(inline="always")
def pi_output(ram, rom, k: int, delta: int) -> int:
    """Velocity PI of motor k (ours) for a loop that moved `delta` counts: -U_MAX..U_MAX."""
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
    """The current check and the fallback limit on the output (ours); returns (output, flags).

    Both act on the drive voltage beyond the back-EMF (``out - emf``, emf = K_V * omega in the
    output's units): the check pulls it toward the back-EMF by R_KCL / 256 per mA read_curr
    returns above R_ILIM_MA; the fallback keeps it within +-I*R, i.e. PWM <= I*R - K_V*omega
    against the motion (negative: drive with the motion) and PWM <= I*R + K_V*omega with it."""
    flags = 0
    ma = read_curr(ram, rom, k)
    ram[g.CURRENT_MA + k] = ma
    emf = i32.asr(i16.mpy(rom[g.R_KV], delta), rom[g.R_KV_SHIFT])
    excess = i32.sub(out, emf)  # a long: emf is not bounded by the PWM range
    over = i16.sub16(ma, rom[g.R_ILIM_MA])
    if i32.gt(over, 0) and i32.ne(excess, 0):
        cut = i32.asr(i16.mpy(over, rom[g.R_KCL]), 8)
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
    """The control routine (ours: called, not printed): per motor in order read_enc, the 16-bit
    difference to the last reading, the PI, read_curr and the limits, the output clamped to
    set_PWM's -1600..1600; then the bus voltage.  The outputs reach set_PWM after R_LATENCY
    timer periods (the emulator's loop time), at once when it is 0."""
    flags = 0
    for k in range(g.MOTORS):
        raw = read_enc(ram, k)
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
    ram[g.VBUS_MV] = read_vbus(ram, rom)
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


@register_jitable(inline="always")
def main_loop(ram, rom) -> None:
    """The body of main's ``if (count >= 400)`` after its resets: bl_control, then data[] (as
    compiled: 0x0123, 0x4567, 0x89AB, 0xCDEF) copied into mailbox 2 under CANMCR's change-data
    request."""
    bl_control(ram, rom)
    for j in range(4):
        ram[g.DATA + j] = i16.wrap16(g.MAILBOX2_PATTERN[j])
    for j in range(4):
        ram[g.MBX2 + j] = ram[g.DATA + j]
