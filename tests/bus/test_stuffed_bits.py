"""The one compiled stuffed length (``frame_fast.stuffed_bits``, one pass over the bits): equal
to can-utils' canframelen and to ``frame_bits`` for standard and extended frames, called by
the compiled engine on a zero-padded 8-byte payload as by ``stuffed_length`` on the bytes."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import frame_bits as fb
from servobus.bus.frame_fast import stuffed_bits, stuffed_length
from servobus.plant.kernel_cache import cached_njit
from servobus.robot.period_loop import ENGINE_SOURCES
from tests.bus.canutils_oracle import cfl_exact

stuffed_bits_c = cached_njit(stuffed_bits, sources=ENGINE_SOURCES)
TRAILER = fb.TRAILER_BITS + fb.IFS_BITS


@settings(max_examples=300, deadline=None)
@given(extended=st.booleans(), can_id=st.integers(0, 0x1FFFFFFF), data=st.binary(max_size=8))
def test_stuffed_length_equals_can_utils_and_frame_bits(extended: bool, can_id: int,
                                                        data: bytes) -> None:
    can_id = can_id if extended else can_id & 0x7FF
    bits = stuffed_length(can_id, data, extended)
    assert bits == cfl_exact(can_id, data, extended) - TRAILER
    assert bits == fb.exact_frame_bits(can_id, data, extended) - TRAILER
    payload = np.zeros(8, dtype=np.uint8)
    payload[:len(data)] = np.frombuffer(data, dtype=np.uint8)
    assert stuffed_bits_c(can_id, payload, len(data), extended) == bits


def test_known_lengths() -> None:
    """An 8-byte standard frame has 98 bits SOF..CRC unstuffed; ID 0 with zero data adds 16
    stuff bits, ID 0x555 with 0x55 data (alternating bits) one (in its CRC): can-utils'
    canframelen counts the same plus trailer and interframe space."""
    trailer = TRAILER
    zeros = np.zeros(8, dtype=np.uint8)
    assert stuffed_bits_c(0x000, zeros, 8, False) == 98 + 16 == cfl_exact(0, bytes(8)) - trailer
    alternating = np.full(8, 0x55, dtype=np.uint8)
    assert stuffed_bits_c(0x555, alternating, 8, False) == 98 + 1 == \
        cfl_exact(0x555, b"\x55" * 8) - trailer


def test_compiled_arbiter_equals_the_lean_bus() -> None:
    """The bench line's traffic: the same simulated time (exact bit times of 1,400 frames) and
    every delivery counted, as LeanBus delivers them to handlers."""
    from servobus.bus.bench import NODES, compiled_arbiter, period_engine

    lean, compiled = period_engine(100), compiled_arbiter(100)
    assert compiled["frames"] == lean["frames"] == 100 * NODES
    assert compiled["deliveries"] == lean["deliveries"] == 100 * NODES * (NODES - 1)
    assert compiled["received_min"] == 100 * (NODES - 1)
    assert compiled["sim_time_s"] == lean["sim_time_s"] > 1400 * 111e-6
