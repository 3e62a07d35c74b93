/* Sensor side of the servo board: pot block mean, encoder unwrap, over-current/-temperature trips. */
#include "servo.h"

void pot_sample(ram_t *ram, const rom_t *rom, int32_t code)
{
    int32_t count;
    if (ram->pos_seq == 0 && ram->pos_count == 0)  /* boot: the first raw reading */
        ram->pos_out = code;
    ram->pos_sum = ram->pos_sum + code;
    count = ram->pos_count + 1;
    if (count == rom->pos_block) {
        ram->pos_out = (ram->pos_sum + (rom->pos_block >> 1)) / rom->pos_block;
        ram->pos_seq = ram->pos_seq + 1;
        ram->pos_sum = 0;
        count = 0;
    }
    ram->pos_count = count;
}

void encoder_read(ram_t *ram, int32_t counter, int32_t index)
{
    ram->enc_pos = ram->enc_pos + (int16_t)(uint16_t)(counter - ram->enc_last);
    ram->enc_last = counter;
    if (index != 0) {
        ram->enc_index_pos = ram->enc_pos;
        ram->enc_index_count = ram->enc_index_count + 1;
    }
}

int32_t protection_check(ram_t *ram, const rom_t *rom, int32_t meas, int32_t temp_code)
{
    int32_t magnitude = meas >= 0 ? meas : -meas;
    if (magnitude > rom->oc_limit) {
        ram->oc_count = ram->oc_count + 1;
        if (ram->oc_count >= rom->oc_periods)
            ram->status = ram->status | STATUS_OVER_CURRENT;
    } else {
        ram->oc_count = 0;
    }
    ram->temp_raw = temp_code;
    if (temp_code > rom->ot_limit)
        ram->status = ram->status | STATUS_OVER_TEMPERATURE;
    return ram->status != 0;
}
