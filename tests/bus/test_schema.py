"""The DBC schemas (SPEJBL's and GuRoo's): every signal round-trips over its whole range; bad
frames and files are clear errors."""

from pathlib import Path

import can
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.schema import Schema, SchemaError, shipped_dbc

SCHEMA = Schema()
GUROO = Schema(shipped_dbc("guroo.dbc"), required=("VEL_SP_1",))
MESSAGES = [(schema, m) for schema in (SCHEMA, GUROO) for m in schema.db.messages]


def _raw_range(sig) -> tuple[int, int]:
    lo = round((sig.minimum - sig.offset) / sig.scale)
    hi = round((sig.maximum - sig.offset) / sig.scale)
    bits_lo, bits_hi = ((-(1 << (sig.length - 1)), (1 << (sig.length - 1)) - 1) if sig.is_signed
                        else (0, (1 << sig.length) - 1))
    return max(lo, bits_lo), min(hi, bits_hi)


@settings(max_examples=400)
@given(st.sampled_from(MESSAGES), st.data())
def test_every_signal_round_trips_over_its_whole_range(schema_message, data) -> None:
    schema, message = schema_message
    values = {}
    for sig in message.signals:
        lo, hi = _raw_range(sig)
        raw = data.draw(st.one_of(st.sampled_from([lo, hi]), st.integers(lo, hi)))
        values[sig.name] = raw * sig.scale + sig.offset
    frame = schema.encode(message.name, values)
    decoded = schema.decode(frame)
    assert decoded.name == message.name
    for name, value in values.items():
        assert decoded.values[name] == pytest.approx(value, abs=1e-12)


def test_schema_shape() -> None:
    names = {m.name for m in SCHEMA.db.messages}
    assert {f"MEAS_{j}" for j in range(1, 13)} <= names  # SPEJBL's 12 joints
    assert {f"MEAS6_{j}" for j in range(1, 13)} <= names and "MEAS_13" not in names
    assert SCHEMA.joints == 12 and SCHEMA.layout.groups == ((1, 2, 3, 4), (5, 6, 7, 8),
                                                            (9, 10, 11, 12))
    tick = SCHEMA.message("TICK")
    assert tick.frame_id == min(m.frame_id for m in SCHEMA.db.messages)  # highest priority
    assert SCHEMA.bitrate == 1_000_000 and SCHEMA.tick_period_ns == 4_000_000
    assert [m.length for m in SCHEMA.period_messages(2)] == [1] + [2] * 12 + [8] * 3
    assert [m.length for m in SCHEMA.period_messages(6)] == [1] + [6] * 12 + [8] * 3
    assert SCHEMA.message("ACTUATION_2").signals[0].scale == 1 / 4096  # Q12 amperes


def test_actuation_is_q12_amperes() -> None:
    frame = SCHEMA.encode("ACTUATION_1", {"iw_1": 1.0, "iw_2": -1.0, "iw_3": 0.5, "iw_4": 0})
    assert bytes(frame.data) == bytes.fromhex("0010" "00f0" "0008" "0000")


def test_unknown_id_wrong_dlc_and_out_of_range_are_schema_errors() -> None:
    with pytest.raises(SchemaError, match="unknown CAN ID 0x7FF"):
        SCHEMA.decode(can.Message(arbitration_id=0x7FF, data=b"", is_extended_id=False))
    with pytest.raises(SchemaError, match="DLC 3"):
        SCHEMA.decode(can.Message(arbitration_id=0x101, data=b"\x00\x01\x02",
                                  is_extended_id=False))
    with pytest.raises(SchemaError, match="cannot encode"):
        SCHEMA.encode("MEAS_1", {"position_1": 1024})
    with pytest.raises(SchemaError, match="no message"):
        SCHEMA.encode("MEAS_13", {})


def test_malformed_dbc_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.dbc"
    bad.write_text('VERSION ""\nBO_ 16 TICK: 1 X\n SG_ seq : 0|8@1+ (1,0) [0|255] ""\n BU_ ((')
    with pytest.raises(SchemaError, match=r"broken\.dbc"):
        Schema(bad)
    with pytest.raises(SchemaError, match=r"missing\.dbc"):
        Schema(tmp_path / "missing.dbc")
