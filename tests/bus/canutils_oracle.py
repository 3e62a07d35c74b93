"""An independent oracle: can-utils' canframelen.c exact algorithm (bitmap, bytewise CRC table,
clz-driven stuff count), transcribed to Python for the tests only."""

CLZ5 = [5, 4, 3, 3, 2, 2, 2, 2] + [1] * 8 + [0] * 16


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 7
        for _ in range(8):
            crc = ((crc << 1) ^ 0x4599) if crc & 0x4000 else crc << 1
        table.append(crc & 0x7FFF)
    return table


TABLE = _crc_table()


def _crc_bitwise(crc: int, data: int, bits: int) -> int:
    i = 0x80
    while bits:
        bits -= 1
        bit = bool(crc & 0x4000)
        if data & i:
            bit = not bit
        crc <<= 1
        if bit:
            crc ^= 0x4599
        i >>= 1
    return crc & 0x7FFF


def _crc(bitmap: bytearray, start: int, end: int) -> int:
    crc = 0
    if start % 8:
        crc = _crc_bitwise(crc, (bitmap[start // 8] << (start % 8)) & 0xFF, 8 - start % 8)
        start += 8 - start % 8
    for k in range(start // 8, start // 8 + (end - start) // 8):
        crc = (TABLE[((crc >> 7) ^ bitmap[k]) & 0xFF] ^ (crc << 8)) & 0x7FFF
    return _crc_bitwise(crc, bitmap[end // 8], end % 8)


def cfl_exact(can_id: int, data: bytes, extended: bool = False) -> int:
    """Frame length in bits including the 3-bit IFS, as can-utils computes it."""
    bitmap = bytearray(18)
    dlc = len(data)
    if extended:
        bitmap[0] = (can_id & 0x1FFFFFFF) >> 23
        bitmap[1] = (((can_id >> 18) & 0x3F) << 3 | 3 << 1 | ((can_id >> 17) & 1)) & 0xFF
        bitmap[2] = (can_id >> 9) & 0xFF
        bitmap[3] = (can_id >> 1) & 0xFF
        bitmap[4] = ((can_id & 1) << 7 | (dlc & 0xF)) & 0xFF
        bitmap[5:5 + dlc] = data
        start, end = 1, 40 + 8 * dlc
    else:
        bitmap[0] = (can_id & 0x7FF) >> 9
        bitmap[1] = (can_id >> 1) & 0xFF
        bitmap[2] = ((can_id << 7) & 0xFF) | (dlc & 0xF)
        bitmap[3:3 + dlc] = data
        start, end = 5, 24 + 8 * dlc
    crc = _crc(bitmap, start, end)
    crc_be = (crc << 1) & 0xFFFF
    bitmap[end // 8] = crc_be >> 8
    bitmap[end // 8 + 1] = crc_be & 0xFF
    end += 15
    mask, lookfor, i, stuffed = 0x1F, 0, start, 0
    while i < end:
        bits = ((bitmap[i // 8] << 8 | bitmap[i // 8 + 1]) >> (16 - 5 - i % 8)) & 0xFFFF
        lookfor = 0 if lookfor else mask
        change = (bits & mask) ^ lookfor
        if change:
            i += CLZ5[change & 0x1F]
            mask = 0x1F
        else:
            i += 5 if mask == 0x1F else 4
            if i <= end:
                stuffed += 1
                mask = 0x1E
    return end - start + stuffed + 3 + 7 + 3
