/* Servo-board firmware state of the LPC2119, word for word as firmware/memory.py lays it out.
 * Plain C99 for an ARM7TDMI: int32_t words, int64_t only for a product, no floats, no hardware
 * divide (the one division calls the EABI runtime's __aeabi_idiv).  Built with -fwrapv: a
 * 32-bit add/sub/mul wraps as the ARM register does, which is what firmware/int32.py models. */
#ifndef SERVO_H
#define SERVO_H

#include <stdint.h>

#define MA_LEN 12

typedef struct {
    int32_t ma_buf[MA_LEN];  /* circular buffer of the last 12 ADC samples */
    int32_t ma_head;         /* index of the oldest sample (next to overwrite) */
    int32_t ma_sum;          /* running sum of the buffer */
    int32_t pi_integ;        /* PI integrator, Q15 PWM counts */
    int32_t pi_meas;         /* last signed measured current (sum counts) */
    int32_t pwm_active;      /* duty applied in this PWM period */
    int32_t pwm_prev;        /* duty applied in the previous period (sign workaround) */
    int32_t pwm_shadow;      /* duty written by the ISR, applied from the next period */
    int32_t bridge_active;
    int32_t bridge_shadow;
    int32_t mode;
    int32_t iw_ref;          /* clamped current reference, Q12 A */
    int32_t iw_counts;       /* the clamped reference in moving-sum counts */
    int32_t iw_pending;      /* reference received over CAN, applied at the next tick */
    int32_t xw_ref;          /* local-P position reference (pot LSB) */
    int32_t pos_sum;         /* pot block accumulator */
    int32_t pos_count;
    int32_t pos_out;         /* last block mean (pot LSB) */
    int32_t pos_seq;         /* completed blocks */
    int32_t pos_tx;          /* position latched at the last tick */
    int32_t p_sum;           /* local-P pot accumulator */
    int32_t p_count;
    int32_t enc_last;        /* last raw 16-bit counter reading */
    int32_t enc_pos;         /* unwrapped encoder position */
    int32_t enc_index_pos;
    int32_t enc_index_count;
    int32_t oc_count;        /* consecutive periods above the over-current limit */
    int32_t status;          /* latched fault bits */
    int32_t temp_raw;
    int32_t ticks;
    int32_t duty_ref;        /* duty mode: PWM duty from the host */
    int32_t act_silent;      /* ticks since the last actuation or POSREF frame */
    int32_t act_timeouts;
    int32_t p_prev;          /* local-P: previous block's pot sum; -1: none yet */
} ram_t;

typedef struct {
    int32_t k_p, k_i, iw_max, u_max, signed_sense, adc_zero_sum, iref_to_sum_q15, oc_limit,
        oc_periods, ot_limit, pos_block, p_block, p_gain_q8, u_max_q15, p_vel_q8;
} rom_t;

enum { MODE_FLOAT = 0, MODE_CURRENT = 1, MODE_LOCAL_P = 2, MODE_DUTY = 3 };
enum { BRIDGE_PWM = 0, BRIDGE_FLOAT = 1 };
enum { STATUS_OVER_CURRENT = 1, STATUS_OVER_TEMPERATURE = 2 };
enum { ACT_TIMEOUT_PERIODS = 3 };

/* x limited to [lo, hi] (the current reference, the PI integrator and output, the duty) */
static inline int32_t clamp(int32_t x, int32_t lo, int32_t hi)
{
    if (x < lo)
        return lo;
    if (x > hi)
        return hi;
    return x;
}

void decimator_push(ram_t *ram, int32_t sample);
void decimator_fill(ram_t *ram, int32_t sample);
int32_t measured_current(const ram_t *ram, const rom_t *rom);
void set_reference(ram_t *ram, const rom_t *rom, int32_t iw_q12);
int32_t pi_step(ram_t *ram, const rom_t *rom, int32_t meas);
void pot_sample(ram_t *ram, const rom_t *rom, int32_t code);
void encoder_read(ram_t *ram, int32_t counter, int32_t index);
int32_t protection_check(ram_t *ram, const rom_t *rom, int32_t meas, int32_t temp_code);
int32_t p_sample(ram_t *ram, const rom_t *rom, int32_t code);
int32_t p_step(ram_t *ram, const rom_t *rom);
void board_reset(ram_t *ram, const rom_t *rom, int32_t mode);
void set_mode(ram_t *ram, int32_t mode);
void adc_isr(ram_t *ram, int32_t code);
void pwm_isr(ram_t *ram, const rom_t *rom, int32_t pot_code, int32_t enc_counter,
             int32_t enc_index, int32_t temp_code);
void can_tick(ram_t *ram, const rom_t *rom);
void can_actuation(ram_t *ram, int32_t iw_q12);
void can_posref(ram_t *ram, int32_t xw);

#endif
