"""The generated struct codec gives the same bytes and values as cantools for every message of
both robots' schemas."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus import codec_fast
from servobus.bus.schema import Schema, shipped_dbc

SCHEMA = Schema()
GUROO = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))
FAST = [m for schema in (SCHEMA, GUROO) for m in schema.db.messages
        if codec_fast.generate(m) is not None]


def test_every_byte_aligned_message_has_a_fast_codec() -> None:
    names = {m.name.rsplit("_", 1)[0] for m in FAST}
    assert {"TICK", "ACTUATION", "MEAS", "MEAS6", "POSREF", "COMMAND", "ANNOUNCE"} <= names
    assert all(not m.name.startswith("STATUS") for m in FAST)  # bit fields stay with cantools
    assert len([m for m in GUROO.db.messages if m in FAST]) == len(GUROO.db.messages)


@settings(max_examples=400)
@given(st.sampled_from(FAST), st.data())
def test_fast_codec_matches_cantools(message, data) -> None:
    codec = codec_fast.generate(message)
    assert codec is not None
    values = {}
    for sig in message.signals:
        lo = round((sig.minimum - sig.offset) / sig.scale)
        hi = round((sig.maximum - sig.offset) / sig.scale)
        values[sig.name] = data.draw(st.integers(lo, hi)) * sig.scale + sig.offset
    raw = message.encode(values, strict=True)
    assert codec.encode(values) == raw
    assert codec.decode(raw) == pytest.approx(message.decode(raw, decode_choices=False))


def test_fast_codec_range_check() -> None:
    codec = codec_fast.generate(SCHEMA.message("MEAS_1"))
    assert codec is not None
    with pytest.raises(ValueError, match="outside"):
        codec.encode({"position_1": 1024})
