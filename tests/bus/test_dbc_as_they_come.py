"""DBCs as they come (issue 25, class 4): what servobus' classic CAN nodes and codecs cannot
carry is refused when the DBC is loaded, `error: FILE:LINE: what` through every command that
takes `--dbc`, never a struct.error, a silent 5 Mbit/s or a bus simulation that sends nothing."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.schema import Schema, SchemaError, default_dbc
from servobus.tools.cli import main

SHIPPED = default_dbc().read_text()
POSITION_1 = ' SG_ position_1 : 0|16@1+ (1,0) [0|1023]'

# (edit of the shipped DBC, the line it names, what the error says)
CASES = {
    "narrow": (POSITION_1, POSITION_1.replace("0|16", "0|8"), 58,
               r"MEAS_1\.position_1: \[0\|1023\] does not fit 8 unsigned bits"),
    "wide-range": (POSITION_1, POSITION_1.replace("1023", "100000"), 58,
                   r"MEAS_1\.position_1: \[0\|100000\] does not fit 16 unsigned bits"),
    "signed-range": (POSITION_1, POSITION_1.replace("@1+ (1,0) [0|1023]", "@1- (1,0) [0|40000]"),
                     58, r"\[0\|40000\] does not fit 16 signed bits"),
    "scale-0": (POSITION_1, POSITION_1.replace("(1,0)", "(0,0)"), 58, r"position_1: scale 0"),
    "scale-subnormal": (POSITION_1, POSITION_1.replace("(1,0)", "(1e-320,0)"), 58,
                        r"\[0\|1023\] does not fit 16 unsigned bits at scale 1e-320"),
    "min-above-max": (POSITION_1, POSITION_1.replace("[0|1023]", "[1000|10]"), 58,
                      r"position_1: minimum 1000 above maximum 10"),
    "dlc-64": ("BO_ 257 MEAS_1: 2", "BO_ 257 MEAS_1: 64", 57,
               r"MEAS_1 has 64 data bytes: a classic CAN frame carries at most 8"),
    "tick-dlc-64": ("BO_ 16 TICK: 1", "BO_ 16 TICK: 64", 13, r"TICK has 64 data bytes"),
    "extended": ("BO_ 257 MEAS_1:", "BO_ 2147483905 MEAS_1:", 57,
                 r"MEAS_1 has an extended \(29-bit\) ID 0x101"),
    "duplicate-id": ("BO_ 258 MEAS_2:", "BO_ 257 MEAS_2:", 60,
                     r"CAN ID 0x101 is given to MEAS_1 and MEAS_2"),
    "duplicate-name": ("BO_ 258 MEAS_2:", "BO_ 258 MEAS_1:", 57, r"two messages are named MEAS_1"),
    "baudrate-5M": ('BA_ "Baudrate" 1000000;', 'BA_ "Baudrate" 5000000;', 355,
                    r"Baudrate 5000000 is not a classic CAN bit rate 10000 \.\. 1000000"),
    "baudrate-3": ('BA_ "Baudrate" 1000000;', 'BA_ "Baudrate" 3;', 355, r"Baudrate 3 is not"),
    "baudrate-300k": ('BA_ "Baudrate" 1000000;', 'BA_ "Baudrate" 300000;', 355,
                      r"Baudrate 300000 is not .* whole nanoseconds"),
    "cycle-negative": ('BA_ "GenMsgCycleTime" BO_ 16 4;', 'BA_ "GenMsgCycleTime" BO_ 16 -4;', 356,
                       r"TICK's GenMsgCycleTime -4 ms is outside 0 \(none\) \.\. 10000 ms"),
}


def _dbc(tmp_path: Path, case: str) -> Path:
    old, new, _, _ = CASES[case]
    assert old in SHIPPED
    text = SHIPPED.replace(old, new, 1).replace('"Baudrate" INT 10000 1000000',
                                                '"Baudrate" INT 0 100000000')
    path = tmp_path / f"{case}.dbc"
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", CASES)
def test_schema_refuses_with_file_and_line(tmp_path: Path, case: str) -> None:
    path = _dbc(tmp_path, case)
    _, _, line, message = CASES[case]
    with pytest.raises(SchemaError) as err:
        Schema(path)
    assert re.fullmatch(rf"{re.escape(str(path))}:{line}: .*{message}.*", str(err.value))


@pytest.mark.parametrize("case", ["narrow", "dlc-64", "tick-dlc-64", "duplicate-id",
                                  "baudrate-5M", "scale-0"])
def test_every_dbc_command_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                   case: str) -> None:
    path = _dbc(tmp_path, case)
    log = tmp_path / "empty.log"
    log.write_text("")
    for argv in (["bussim", "--duration", "0.01"], ["busload"],
                 ["analyze", "timing", "--log", str(log)]):
        assert main([*argv, "--dbc", str(path)]) == 2, argv
        err = capsys.readouterr().err
        assert err == f"error: {path}:{CASES[case][2]}: " + err.split(": ", 2)[2], err
        assert "Traceback" not in err and "Overwriting" not in err and err.count("\n") == 1


def test_a_whole_baudrate_written_as_a_float_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "float.dbc"
    path.write_text(SHIPPED.replace('"Baudrate" INT 10000 1000000', '"Baudrate" FLOAT 0 1e8')
                    .replace('BA_ "Baudrate" 1000000;', 'BA_ "Baudrate" 500000.0;'))
    assert Schema(path).bitrate == 500_000


def test_the_shipped_schemas_pass() -> None:
    for name in ("servobus.dbc", "guroo.dbc"):
        Schema(default_dbc().with_name(name), required=())


@settings(max_examples=60, deadline=None)
@given(length=st.sampled_from([8, 16, 32]), signed=st.booleans(),
       scale=st.sampled_from([1, 0.5, 2, 0.000244140625, 1e-300]),
       offset=st.sampled_from([0, -100, 1000]),
       lo=st.integers(-(1 << 33), 1 << 33), span=st.integers(0, 1 << 34))
def test_a_signal_either_encodes_its_whole_range_or_is_refused(
        tmp_path_factory: pytest.TempPathFactory, length: int, signed: bool, scale: float,
        offset: int, lo: int, span: int) -> None:
    """Whatever [min|max], bits, scale and offset a signal has, the schema is refused naming
    the line, or both ends of its range encode and decode again (no struct.error); [0|0] is
    a DBC's "no range": a value its bits cannot hold is a SchemaError, not an OverflowError."""
    sig = f' SG_ position_1 : 0|{length}@1{"-" if signed else "+"} ({scale},{offset}) ' \
          f'[{lo}|{lo + span}]'
    path = tmp_path_factory.mktemp("range") / "range.dbc"
    path.write_text(SHIPPED.replace(POSITION_1, sig, 1).replace("BO_ 257 MEAS_1: 2",
                                                                f"BO_ 257 MEAS_1: {length // 8}"))
    try:
        schema = Schema(path)
    except SchemaError as err:
        assert str(err).startswith(f"{path}:58: MEAS_1.position_1: "), err
        return
    for value in (lo, lo + span):
        try:
            frame = schema.encode("MEAS_1", {"position_1": value})
        except SchemaError as err:
            assert lo == span == 0, err
            assert str(err).startswith("MEAS_1: cannot encode {'position_1': 0}: "), err
            return
        assert schema.decode(frame).values["position_1"] == pytest.approx(value, rel=1e-6,
                                                                          abs=scale)
