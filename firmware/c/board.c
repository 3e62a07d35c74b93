/* The servo board's interrupt handlers and CAN commands, composed from the routines. */
#include "servo.h"

void board_reset(ram_t *ram, const rom_t *rom, int32_t mode)
{
    int32_t *word = (int32_t *)ram;
    uint32_t k;
    for (k = 0; k < sizeof(ram_t) / sizeof(int32_t); k++)
        word[k] = 0;
    decimator_fill(ram, rom->adc_zero_sum / MA_LEN);
    set_mode(ram, mode);
}

void set_mode(ram_t *ram, int32_t mode)
{
    ram->mode = mode;
    ram->pi_integ = 0;
    ram->duty_ref = 0;
    ram->p_sum = 0;
    ram->p_count = 0;
    ram->p_prev = -1;
}

void adc_isr(ram_t *ram, int32_t code)
{
    decimator_push(ram, code);
}

void pwm_isr(ram_t *ram, const rom_t *rom, int32_t pot_code, int32_t enc_counter,
             int32_t enc_index, int32_t temp_code)
{
    int32_t meas, mode;
    ram->pwm_prev = ram->pwm_active;
    ram->pwm_active = ram->pwm_shadow;
    ram->bridge_active = ram->bridge_shadow;
    encoder_read(ram, enc_counter, enc_index);
    pot_sample(ram, rom, pot_code);
    meas = measured_current(ram, rom);
    ram->pi_meas = meas;
    mode = ram->mode;
    if (protection_check(ram, rom, meas, temp_code) || mode == MODE_FLOAT) {
        ram->pi_integ = 0;
        ram->pwm_shadow = 0;
        ram->bridge_shadow = BRIDGE_FLOAT;
        return;
    }
    ram->bridge_shadow = BRIDGE_PWM;
    if (mode == MODE_CURRENT)
        ram->pwm_shadow = pi_step(ram, rom, meas);
    else if (mode == MODE_DUTY)
        ram->pwm_shadow = ram->duty_ref;
    else if (p_sample(ram, rom, pot_code))
        ram->pwm_shadow = p_step(ram, rom);
}

static void actuation_watch(ram_t *ram)
{
    const int32_t limit = ACT_TIMEOUT_PERIODS + 1;
    if (ram->act_silent < limit) {
        ram->act_silent = ram->act_silent + 1;
        if (ram->act_silent == limit) {
            ram->act_timeouts = ram->act_timeouts + 1;
            ram->iw_pending = 0;
        }
    }
}

void can_tick(ram_t *ram, const rom_t *rom)
{
    ram->pos_tx = ram->pos_out;
    actuation_watch(ram);
    if (ram->mode == MODE_DUTY) {  /* the pending value is the duty, Q12 of full duty */
        int32_t duty = (ram->iw_pending * rom->u_max) >> 12;
        ram->duty_ref = clamp(duty, -rom->u_max, rom->u_max);
    } else {
        set_reference(ram, rom, ram->iw_pending);
    }
    ram->ticks = ram->ticks + 1;
}

void can_actuation(ram_t *ram, int32_t iw_q12)
{
    ram->iw_pending = iw_q12;
    ram->act_silent = 0;
}

void can_posref(ram_t *ram, int32_t xw)
{
    ram->xw_ref = xw;
    ram->act_silent = 0;
}
