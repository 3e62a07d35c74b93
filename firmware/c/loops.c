/* Current path of the servo board: moving-sum decimator, PI with hard anti-windup, local P. */
#include "servo.h"

static int32_t sat32(int64_t s)
{
    if (s > INT32_MAX)
        return INT32_MAX;
    if (s < INT32_MIN)
        return INT32_MIN;
    return (int32_t)s;
}

void decimator_push(ram_t *ram, int32_t sample)
{
    int32_t head = ram->ma_head;
    ram->ma_sum = ram->ma_sum - ram->ma_buf[head] + sample;
    ram->ma_buf[head] = sample;
    head = head + 1;
    if (head == MA_LEN)
        head = 0;
    ram->ma_head = head;
}

void decimator_fill(ram_t *ram, int32_t sample)
{
    int32_t k;
    for (k = 0; k < MA_LEN; k++)
        ram->ma_buf[k] = sample;
    ram->ma_sum = sample * MA_LEN;
    ram->ma_head = 0;
}

int32_t measured_current(const ram_t *ram, const rom_t *rom)
{
    int32_t s = ram->ma_sum - rom->adc_zero_sum;
    if (rom->signed_sense == 0 && ram->pwm_prev < 0)  /* unipolar front end: duty's sign */
        s = -s;
    return s;
}

void set_reference(ram_t *ram, const rom_t *rom, int32_t iw_q12)
{
    int32_t iw = clamp(iw_q12, -rom->iw_max, rom->iw_max);
    ram->iw_ref = iw;
    ram->iw_counts = (iw * rom->iref_to_sum_q15) >> 15;
}

int32_t pi_step(ram_t *ram, const rom_t *rom, int32_t meas)
{
    int32_t e = ram->iw_counts - meas;
    int32_t p = rom->k_p * e;
    int32_t hi = rom->u_max_q15;
    int32_t lo = -hi;
    int32_t integ = clamp(ram->pi_integ, sat32((int64_t)lo - p), sat32((int64_t)hi - p));
    int32_t out = sat32((int64_t)p + integ);
    ram->pi_integ = sat32((int64_t)integ + rom->k_i * e);
    return out >> 15;
}

int32_t p_sample(ram_t *ram, const rom_t *rom, int32_t code)
{
    ram->p_sum = ram->p_sum + code;
    ram->p_count = ram->p_count + 1;
    return ram->p_count == rom->p_block;
}

int32_t p_step(ram_t *ram, const rom_t *rom)
{
    int32_t e = ram->xw_ref * rom->p_block - ram->p_sum;
    int32_t fall = ram->p_prev < 0 ? 0 : ram->p_prev - ram->p_sum;
    int32_t u = (e * rom->p_gain_q8 + fall * rom->p_vel_q8) >> 8;
    ram->p_prev = ram->p_sum;
    ram->p_sum = 0;
    ram->p_count = 0;
    return clamp(u, -rom->u_max, rom->u_max);
}
