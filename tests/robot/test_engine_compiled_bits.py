"""The compiled engine's one-pass stuffed length equals the bit-array one (frame_fast), which
the bus tests check against can-utils."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.frame_fast import stuffed_length
from servobus.plant.kernel_cache import cached_njit
from servobus.robot.engine_compiled import ENGINE_SOURCES, stuffed_bits

stuffed_bits_c = cached_njit(stuffed_bits, sources=ENGINE_SOURCES)


@settings(max_examples=300, deadline=None)
@given(can_id=st.integers(0, 0x7FF), data=st.binary(max_size=8))
def test_one_pass_stuffed_length_equals_frame_fast(can_id: int, data: bytes) -> None:
    payload = np.zeros(8, dtype=np.uint8)
    payload[:len(data)] = np.frombuffer(data, dtype=np.uint8)
    assert stuffed_bits_c(can_id, payload, len(data)) == stuffed_length(can_id, data, False)


def test_known_lengths() -> None:
    """All-zero payloads stuff the most; an ID and data of alternating bits not at all."""
    zeros = np.zeros(8, dtype=np.uint8)
    assert stuffed_bits_c(0x000, zeros, 8) == stuffed_length(0, bytes(8), False) > 98 + 15
    alternating = np.full(8, 0x55, dtype=np.uint8)
    assert stuffed_bits_c(0x555, alternating, 8) == stuffed_length(0x555, b"\x55" * 8, False)
