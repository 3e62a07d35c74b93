"""The board's interrupt handlers and commands, composed from the firmware blocks.

    t = kT          PWM interrupt: read encoder, pot, thermometer; trips; controller;
                    write the PWM shadow register (applied by the hardware from (k+1)T)
    t = kT + j T/6  ADC interrupt (j = 0..5): one current sample into the moving sum
    on CAN rx       tick: latch the position to send, apply the pending current reference
                    actuation: store the reference as pending (applied at the next tick);
                    in duty mode the same 16-bit value is the PWM duty, Q12 of full duty
                    posref (local-P mode): the position reference, applied at once

Actuation timeout (the board's own supervision of the host): every tick counts one more period
since the last actuation or POSREF frame (ACT_SILENT, 1 between healthy periods).  After
ACT_TIMEOUT_PERIODS periods in a row without one, the board times out: it counts the event
(ACT_TIMEOUTS), flags it in STATUS (the watchdog bit) and replaces the stale reference by zero
current (cascade) / zero duty (duty mode); local-P mode keeps holding its last position
reference (its loop is on the board).  The next actuation frame ends the timeout.

Thesis timing (default): the controller runs when the conversion started at kT completes
(~2.4 us, long before the shadowed latch at (k+1)T), so the moving sum it reads ends with the
sample taken at kT; the rig delivers that sample before calling pwm_isr (the plant does not move
in between).  Option "previous-period": the sum is read before that sample, i.e. the samples of
periods k-2 and k-1.  Either way the output is applied in period k+1 (one-period delay).
"""

from numba.extending import register_jitable

from servobus.firmware import current_loop, decimator, encoder, local_p, position, protection
from servobus.firmware import int32 as i32
from servobus.firmware import memory as m


@register_jitable
def reset(ram, rom, mode: int) -> None:
    """Power-on reset: clear RAM, preload the current window with the zero-current reading."""
    for k in range(m.RAM_SIZE):
        ram[k] = 0
    decimator.fill(ram, i32.div_trunc(rom[m.ADC_ZERO_SUM], m.MA_LEN))
    set_mode(ram, mode)


@register_jitable
def set_mode(ram, mode: int) -> None:
    """Switch firmware mode; restarts the controller states so a switch is bumpless from zero."""
    ram[m.MODE] = mode
    ram[m.PI_INTEG] = 0
    ram[m.DUTY_REF] = 0
    ram[m.P_SUM] = 0
    ram[m.P_COUNT] = 0
    ram[m.P_PREV] = -1


@register_jitable
def adc_isr(ram, code: int) -> None:
    """120 kHz ADC interrupt: one 10-bit current sample."""
    decimator.push(ram, code)


@register_jitable
def pwm_isr(ram, rom, pot_code: int, enc_counter: int, enc_index: int, temp_code: int) -> None:
    """20 kHz PWM-period interrupt: sensors, protection, controller, PWM shadow register."""
    ram[m.PWM_PREV] = ram[m.PWM_ACTIVE]
    ram[m.PWM_ACTIVE] = ram[m.PWM_SHADOW]
    ram[m.BRIDGE_ACTIVE] = ram[m.BRIDGE_SHADOW]
    encoder.encoder_read(ram, enc_counter, enc_index)
    position.pot_sample(ram, rom, pot_code)
    meas = current_loop.measured_current(ram, rom)
    ram[m.PI_MEAS] = meas
    mode = ram[m.MODE]
    if protection.check(ram, rom, meas, temp_code) or i32.eq(mode, m.MODE_FLOAT):
        ram[m.PI_INTEG] = 0
        ram[m.PWM_SHADOW] = 0
        ram[m.BRIDGE_SHADOW] = m.BRIDGE_FLOAT
        return
    ram[m.BRIDGE_SHADOW] = m.BRIDGE_PWM
    if i32.eq(mode, m.MODE_CURRENT):
        ram[m.PWM_SHADOW] = current_loop.pi_step(ram, rom, meas)
    elif i32.eq(mode, m.MODE_DUTY):
        ram[m.PWM_SHADOW] = ram[m.DUTY_REF]
    elif local_p.p_sample(ram, rom, pot_code):
        ram[m.PWM_SHADOW] = local_p.p_step(ram, rom)


@register_jitable
def actuation_watch(ram) -> None:
    """At a tick: one more period without actuation; the N-th in a row times out (counted once)
    and zeroes the pending reference, which stays zero until the next actuation (the only other
    writer, which also ends the timeout)."""
    limit = m.ACT_TIMEOUT_PERIODS + 1  # ticks since the last actuation at the timeout
    if i32.lt(ram[m.ACT_SILENT], limit):
        ram[m.ACT_SILENT] = i32.add(ram[m.ACT_SILENT], 1)
        if i32.eq(ram[m.ACT_SILENT], limit):
            ram[m.ACT_TIMEOUTS] = i32.add(ram[m.ACT_TIMEOUTS], 1)
            ram[m.IW_PENDING] = 0


@register_jitable
def actuation_timed_out(ram) -> bool:
    """The board is in an actuation timeout (the STATUS watchdog bit)."""
    return i32.gt(ram[m.ACT_SILENT], m.ACT_TIMEOUT_PERIODS)


@register_jitable(inline="always")  # every board, every period: a call costs more
def can_tick(ram, rom) -> None:
    """Tick received: latch the freshest position for the measurement, apply the reference
    (zero after an actuation timeout)."""
    ram[m.POS_TX] = ram[m.POS_OUT]
    actuation_watch(ram)
    if i32.eq(ram[m.MODE], m.MODE_DUTY):  # the pending value is the duty, Q12 of full duty
        duty = i32.asr(i32.mul(ram[m.IW_PENDING], rom[m.U_MAX]), 12)
        ram[m.DUTY_REF] = i32.clamp(duty, i32.sub(0, rom[m.U_MAX]), rom[m.U_MAX])
    else:
        current_loop.set_reference(ram, rom, ram[m.IW_PENDING])
    ram[m.TICKS] = i32.add(ram[m.TICKS], 1)


@register_jitable(inline="always")  # every board, every period: a call costs more
def can_actuation(ram, iw_q12: int) -> None:
    """Actuation received: keep the reference (Q12 A) until the next tick (exact z^-1)."""
    ram[m.IW_PENDING] = iw_q12
    ram[m.ACT_SILENT] = 0


@register_jitable(inline="always")  # every board, every period: a call costs more
def can_posref(ram, xw: int) -> None:
    """Position reference received (local-P mode): applied at once; the host is alive."""
    ram[m.XW_REF] = xw
    ram[m.ACT_SILENT] = 0
