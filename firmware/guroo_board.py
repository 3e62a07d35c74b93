"""GuRoo high-power board firmware (2002 source, SPEC 5) in the TMS320C2xx arithmetic of int16.

    boot          board ID from the 4-bit DIP switch; MSGIDH = (BOARD | 0x20) << 2 (announce)
    can_rx        CAN receive interrupt: the VEL_SP mailbox's four words into RAM
    timer_isr     timer-1 period interrupt (100 kHz): feathered compare values, interrupt count
    loop_due      main's poll of that count (2002: every 400) or the 500 us interrupt (2 kHz)
    bl_control    the control routine: counters unwrapped, velocity PI per motor, current check,
                  fallback limit PWM <= I*R - K_V*omega, feathering split of the 16-bit output
    pdpint_isr    over-current comparator: all outputs floated, latched until clear_trip

Integers only; every function is ``register_jitable`` so the plant kernel inlines it (fast path)
and CPython runs the same code (reference path).  The PI works on joint velocity as the thesis
says, in the position form it is equivalent to: the set-point (counts per loop, Q4) is summed
into a reference position REF, the integral term is REF - position (anti-windup: REF is held
within R_IERR_MAX of the position), the proportional term the velocity error of this loop.
"""

from numba.extending import register_jitable

from servobus.firmware import guroo_memory as g
from servobus.firmware.int16 import apac, mpy, sub16, u16, wrap16
from servobus.firmware.int32 import wrap32


@register_jitable
def sat16(x: int) -> int:
    """The C code's explicit clamp of a long into an int (compare and load of the limit)."""
    if x > 32767:
        return 32767
    if x < -32768:
        return -32768
    return x


@register_jitable
def msgidh(board: int) -> int:
    """The MSGIDH word for a standard frame ID BOARD | 0x20: ID bits 10..0 in bits 12..2."""
    return u16(((board & 15) | 0x20) << 2)


@register_jitable
def standard_id(msgidh_word: int) -> int:
    """The 11-bit standard identifier a MSGIDH word puts on the bus."""
    return (u16(msgidh_word) >> 2) & 0x7FF


@register_jitable
def boot(ram, rom) -> None:
    """main's initialisation: DIP-switch ID, announce mailbox, drive outputs at zero duty."""
    board = rom[g.R_DIP] & 15
    ram[g.BOARD_ID] = board
    ram[g.MSGIDH] = msgidh(board)
    for k in range(g.MOTORS):
        ram[g.DIR + k] = 1
        ram[g.NEXT_DIR + k] = 1
        ram[g.LAST_CNT + k] = wrap16(ram[g.REG_CNT + k])
    ram[g.STATUS] = board << 4


@register_jitable
def can_rx(ram, w0: int, w1: int, w2: int, seq: int) -> None:
    """CAN receive interrupt for VEL_SP_b: the mailbox words into the set-point variables."""
    ram[g.SP] = wrap16(w0)
    ram[g.SP + 1] = wrap16(w1)
    ram[g.SP + 2] = wrap16(w2)
    ram[g.SP_SEQ] = u16(seq)
    ram[g.RX_COUNT] += 1


@register_jitable
def apply_outputs(ram) -> None:
    """bl_control's end: the new pwm_high/pwm_low/counter/direction take effect."""
    for k in range(g.MOTORS):
        ram[g.PWM_HIGH + k] = ram[g.NEXT_HIGH + k]
        ram[g.PWM_LOW + k] = ram[g.NEXT_LOW + k]
        ram[g.COUNTER + k] = ram[g.NEXT_COUNTER + k]
        ram[g.DIR + k] = ram[g.NEXT_DIR + k]


@register_jitable
def timer_isr(ram) -> None:
    """Timer-1 period interrupt: CMPRx = pwm_high_x while feather_count < counter_x, else
    pwm_low_x; feather_count wraps at 16; the timer-interrupt counter counts."""
    if ram[g.APPLY_IN] > 0:
        ram[g.APPLY_IN] -= 1
        if ram[g.APPLY_IN] == 0:
            apply_outputs(ram)
    fc = ram[g.FEATHER]
    for k in range(g.MOTORS):
        if fc < ram[g.COUNTER + k]:
            ram[g.CMPR + k] = ram[g.PWM_HIGH + k]
            ram[g.FEATHERED] += 1
        else:
            ram[g.CMPR + k] = ram[g.PWM_LOW + k]
    ram[g.FEATHER] = (fc + 1) & 15
    ram[g.TIMER_COUNT] += 1


@register_jitable
def loop_due(ram, rom) -> int:
    """main's poll (2002) or the 500 us periodic interrupt (2 kHz): 1 when the control loop is
    due; the 2002 main resets the timer-interrupt counter and the feathering counter."""
    if ram[g.TIMER_COUNT] < rom[g.R_LOOP_TICKS]:
        return 0
    ram[g.TIMER_COUNT] = 0
    if rom[g.R_RESET_FEATHER]:
        ram[g.FEATHER] = 0
    return 1


@register_jitable
def pdpint_isr(ram) -> None:
    """Power-drive protection interrupt: the outputs are already floated by hardware; latch."""
    if ram[g.TRIPPED] == 0:
        ram[g.TRIPS] += 1
    ram[g.TRIPPED] = 1
    ram[g.STATUS] |= g.STATUS_TRIP


@register_jitable
def clear_trip(ram) -> None:
    """Re-enable the outputs after a trip (the firmware's reset of the PDPINT flag)."""
    ram[g.TRIPPED] = 0
    ram[g.STATUS] &= ~g.STATUS_TRIP


@register_jitable
def read_counter(ram, k: int) -> int:
    """Motor 0: the QEP's T2CNT word; motors 1, 2: the HCTL-2016 read as high then low byte."""
    reg = ram[g.REG_CNT + k]
    if k == 0:
        return wrap16(reg)
    high = (reg >> 8) & 0xFF  # reading the high byte latches the count (HCTL inhibit logic)
    low = reg & 0xFF
    return wrap16((high << 8) | low)


@register_jitable
def split_output(out: int) -> tuple[int, int, int, int]:
    """A 16-bit controller output (Q4 duty) as (direction, pwm_low, pwm_high, counter)."""
    direction = 1 if out >= 0 else -1
    mag = out if out >= 0 else -out
    low = mag >> 4
    counter = mag & 15
    if low >= g.PERIOD:
        return direction, g.PERIOD, g.PERIOD, 0
    return direction, low, low + 1, counter


@register_jitable
def pi_output(ram, rom, k: int, delta: int) -> int:
    """Velocity PI of motor k for a loop that moved `delta` counts: the 16-bit output, Q4 duty."""
    sp_q4 = sat16(mpy(ram[g.SP + k], rom[g.R_K_SP]) >> rom[g.R_SP_SHIFT])
    ref = wrap32(ram[g.REF + k] + sp_q4)
    pos_q4 = wrap32(ram[g.POS + k] << 4)
    err = wrap32(ref - pos_q4)
    lim = rom[g.R_IERR_MAX]
    if err > lim:
        err = lim
        ref = wrap32(pos_q4 + lim)
    elif err < -lim:
        err = -lim
        ref = wrap32(pos_q4 - lim)
    ram[g.REF + k] = ref
    verr = sat16(sp_q4 - (delta << 4))
    acc, _ = apac(mpy(rom[g.R_KP], verr), mpy(rom[g.R_KI], err), 0, 1)
    out = sat16(acc >> rom[g.R_PI_SHIFT])
    if out > g.U_MAX:
        return g.U_MAX
    if out < -g.U_MAX:
        return -g.U_MAX
    return out


@register_jitable
def limit_output(ram, rom, k: int, out: int, delta: int) -> tuple[int, int]:
    """The current check and the fallback limit on the output; returns (output, flags).

    Both act on the drive voltage beyond the back-EMF (``out - emf``, emf = K_V * omega in the
    output's units): the check pulls it toward the back-EMF by R_KCL per ADC code above the
    limit; the fallback keeps it within +-I*R, i.e. PWM <= I*R - K_V*omega against the motion
    (negative: drive with the motion) and PWM <= I*R + K_V*omega with it."""
    flags = 0
    code = ram[g.REG_ADC + k]
    ram[g.ADC + k] = code
    emf = mpy(rom[g.R_KV], delta) >> rom[g.R_KV_SHIFT]
    excess = out - emf
    over = code - rom[g.R_ILIM_CODE]
    if over > 0 and excess != 0:
        cut = mpy(over, rom[g.R_KCL])
        if excess > 0:
            excess = excess - cut if excess > cut else 0
        else:
            excess = excess + cut if -excess > cut else 0
        flags |= g.STATUS_CLIMIT
    lim = rom[g.R_LIM_IR]
    if excess > lim:
        excess = lim
        flags |= g.STATUS_FLIMIT
    elif excess < -lim:
        excess = -lim
        flags |= g.STATUS_FLIMIT
    out2 = emf + excess
    if out2 > g.U_MAX:
        return g.U_MAX, flags
    if out2 < -g.U_MAX:
        return -g.U_MAX, flags
    return out2, flags


@register_jitable
def bl_control(ram, rom) -> None:
    """The control routine for the three motors; results take effect after R_LATENCY periods."""
    flags = 0
    for k in range(g.MOTORS):
        raw = read_counter(ram, k)
        delta = sub16(raw, ram[g.LAST_CNT + k])  # the 16-bit wrap undone: |delta| < 2^15
        ram[g.LAST_CNT + k] = raw
        ram[g.POS + k] = wrap32(ram[g.POS + k] + delta)
        ram[g.DELTA + k] = delta
        if ram[g.REG_INDEX + k]:
            ram[g.REG_INDEX + k] = 0
            ram[g.INDEX_POS + k] = ram[g.POS + k]
            ram[g.INDEX_COUNT + k] += 1
            flags |= g.STATUS_INDEX
        held = ram[g.REF + k]
        out, lim_flags = limit_output(ram, rom, k, pi_output(ram, rom, k, delta), delta)
        if lim_flags:
            ram[g.REF + k] = held  # conditional integration: no windup while limited
        flags |= lim_flags
        ram[g.OUT + k] = out
        direction, low, high, counter = split_output(out)
        ram[g.NEXT_DIR + k] = direction
        ram[g.NEXT_LOW + k] = low
        ram[g.NEXT_HIGH + k] = high
        ram[g.NEXT_COUNTER + k] = counter
    if flags & g.STATUS_CLIMIT:
        ram[g.CLIMIT_EVENTS] += 1
    if flags & g.STATUS_FLIMIT:
        ram[g.FLIMIT_EVENTS] += 1
    ram[g.LOOPS] += 1
    ram[g.STATUS] = (ram[g.TRIPPED] * g.STATUS_TRIP) | flags | (ram[g.BOARD_ID] << 4) | (
        (ram[g.LOOPS] & 0xFF) << 8)
    if rom[g.R_LATENCY] > 0:
        ram[g.APPLY_IN] = rom[g.R_LATENCY]
    else:
        apply_outputs(ram)
