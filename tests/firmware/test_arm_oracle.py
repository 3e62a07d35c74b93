"""Python firmware vs its C twin compiled for the ARM7TDMI (ARM and Thumb) and run in unicorn.

Every case writes one RAM/ROM state, runs one routine both ways and demands bit-identical RAM
(and return value).  Examples per routine and instruction set: SERVOBUS_ORACLE_EXAMPLES
(default 300; e.g. 5000 for a long run).  The oracle's packages are part of the `test` extra:
a missing one is an error here, never a skip.
"""

import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.analysis.arm_build import C_DIR, ISAS
from servobus.analysis.arm_oracle import ROUTINES, Machine, compare
from servobus.firmware import memory as m
from servobus.firmware.int32 import INT32_MAX, INT32_MIN, wrap32
from tests.conftest import ROMS

EXAMPLES = int(os.environ.get("SERVOBUS_ORACLE_EXAMPLES", "300"))
EDGES = (INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, -1, 0, 1, 1 << 15, -(1 << 15),
         (1 << 15) - 1, 1 << 16, 0xFFFF, 0x8000, -0x8000, 1 << 30, -(1 << 30), 3000, -3000)
WORD = st.one_of(st.integers(-4, 4), st.sampled_from(EDGES),
                 st.integers(INT32_MIN, INT32_MAX), st.integers(-5000, 5000))


def _decode(blob: bytes) -> list[int]:
    """Words from 5 bytes each: a kind byte (small, an edge, +-5000, any int32) and 4 bytes."""
    n = len(blob) // 5
    kinds, raw = blob[:n], np.frombuffer(blob[n:], dtype="<i4")
    out = []
    for kind, value in zip(kinds, raw.tolist(), strict=True):
        if kind < 64:
            out.append(value % 9 - 4)
        elif kind < 128:
            out.append(EDGES[value % len(EDGES)])
        elif kind < 160:
            out.append(value % 10001 - 5000)
        else:
            out.append(value)
    return out


def words(n: int) -> st.SearchStrategy[list[int]]:
    """n int32 words mixing the kinds of WORD, drawn as one byte string (cheap to generate)."""
    return st.binary(min_size=5 * n, max_size=5 * n).map(_decode)


_MACHINES: dict[str, Machine] = {}


def machine(isa: str) -> Machine:
    """One emulated CPU per instruction set for the whole session (built once)."""
    if isa not in _MACHINES:
        _MACHINES[isa] = Machine(isa)
    return _MACHINES[isa]


@st.composite
def states(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """A RAM state (any int32 words; the buffer head a valid index) and a ROM (the real board's
    or any int32 words with a nonzero pot block: firmware/memory.py's preset never has 0)."""
    ram = np.array(draw(words(m.RAM_SIZE)), np.int64)
    ram[m.MA_HEAD] = draw(st.integers(0, m.MA_LEN - 1))
    if draw(st.booleans()):
        rom = ROMS[draw(st.sampled_from(sorted(ROMS)))].copy()
    else:
        rom = np.array(draw(words(m.ROM_SIZE)), np.int64)
        if rom[m.POS_BLOCK] == 0:
            rom[m.POS_BLOCK] = draw(WORD.filter(lambda v: v != 0))
    for cell, limit in ((m.POS_COUNT, m.POS_BLOCK), (m.P_COUNT, m.P_BLOCK)):
        if draw(st.booleans()):  # one short of the block end: the branch that divides / steps
            ram[cell] = wrap32(int(rom[limit]) - 1)
    return ram, rom


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("name", sorted(ROUTINES))
def test_machine_code_matches_python(isa: str, name: str) -> None:
    """Random states, references, ADC codes and gains leave bit-identical RAM both ways."""
    mc = machine(isa)
    nargs = ROUTINES[name].nargs

    @settings(max_examples=EXAMPLES, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(state=states(), args=words(nargs))
    def check(state: tuple[np.ndarray, np.ndarray], args: list[int]) -> None:
        ram, rom = state
        assert compare(mc, name, ram, rom, args) is None

    check()


def _case(ram: dict[int, int], rom: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    state, image = m.new_ram(), ROMS[sorted(ROMS)[0]].copy()
    for cell, value in ram.items():
        state[cell] = value
    for cell, value in rom.items():
        image[cell] = value
    return state, image


BOUNDARIES = [  # (routine, RAM cells, ROM cells, arguments): the edges named in issue 12
    ("pi_step", {m.IW_COUNTS: INT32_MAX}, {m.K_P: INT32_MAX}, [-1]),  # e and p wrap
    ("pi_step", {m.IW_COUNTS: INT32_MIN, m.PI_INTEG: INT32_MIN}, {m.K_I: INT32_MAX}, [1]),
    ("pi_step", {m.PI_INTEG: INT32_MAX}, {m.U_MAX_Q15: INT32_MAX, m.K_P: 1}, [INT32_MIN]),
    ("pi_step", {m.PI_INTEG: 5}, {m.U_MAX_Q15: INT32_MIN}, [0]),  # -hi wraps to hi
    ("pi_step", {m.IW_COUNTS: 100, m.PI_INTEG: (3000 << 15) - 1}, {}, [99]),  # hi - p edge
    ("pi_step", {m.IW_COUNTS: -100, m.PI_INTEG: -(3000 << 15)}, {}, [-99]),  # lo - p edge
    ("pot_sample", {m.POS_SUM: -81, m.POS_COUNT: 79, m.POS_SEQ: 1}, {}, [0]),  # truncates
    ("pot_sample", {m.POS_SUM: 81, m.POS_COUNT: 0}, {m.POS_BLOCK: -80}, [0]),
    ("pot_sample", {m.POS_SUM: INT32_MIN, m.POS_COUNT: -2}, {m.POS_BLOCK: -1}, [0]),  # MIN/-1
    ("pot_sample", {m.POS_SUM: INT32_MAX, m.POS_COUNT: 0}, {m.POS_BLOCK: 1}, [1]),
    ("pot_sample", {m.POS_SUM: -1, m.POS_COUNT: 1}, {m.POS_BLOCK: 2}, [-1]),
    ("encoder_read", {m.ENC_LAST: 0xFFFF, m.ENC_POS: INT32_MAX}, {}, [0, 1]),
    ("encoder_read", {m.ENC_LAST: 0}, {}, [0x8000, 0]),
    ("encoder_read", {m.ENC_LAST: INT32_MIN}, {}, [INT32_MAX, -1]),
    ("protection_check", {m.OC_COUNT: INT32_MAX}, {m.OC_LIMIT: 0}, [INT32_MIN + 1, 0]),
    ("protection_check", {}, {m.OC_LIMIT: -1}, [INT32_MIN, INT32_MAX]),
    ("set_reference", {}, {m.IW_MAX: INT32_MIN, m.IREF_TO_SUM_Q15: -1}, [INT32_MAX]),
    ("set_reference", {}, {m.IW_MAX: INT32_MAX, m.IREF_TO_SUM_Q15: INT32_MAX}, [INT32_MIN]),
    ("decimator_push", {m.MA_SUM: INT32_MAX, m.MA_HEAD: 11, m.MA_BUF0 + 11: -1}, {}, [1]),
    ("measured_current", {m.MA_SUM: INT32_MIN, m.PWM_PREV: -1}, {m.SIGNED_SENSE: 0}, []),
    ("p_step", {m.XW_REF: INT32_MAX, m.P_SUM: INT32_MIN}, {m.P_GAIN_Q8: -1}, []),
    ("p_step", {m.P_PREV: INT32_MAX, m.P_SUM: INT32_MIN}, {m.P_VEL_Q8: INT32_MAX}, []),  # wraps
    ("p_step", {m.P_PREV: -1, m.P_SUM: 5}, {m.P_VEL_Q8: INT32_MAX}, []),  # no previous block
    ("p_step", {m.P_PREV: 0, m.P_SUM: 7}, {m.P_VEL_Q8: -19654, m.P_GAIN_Q8: 0}, []),
    ("can_tick", {m.MODE: m.MODE_DUTY, m.IW_PENDING: INT32_MIN, m.ACT_SILENT: INT32_MIN}, {}, []),
    ("pwm_isr", {m.MODE: m.MODE_CURRENT, m.MA_SUM: INT32_MAX, m.PWM_PREV: -1}, {}, [-1, 0, 1, 0]),
    ("board_reset", {m.STATUS: 3}, {m.ADC_ZERO_SUM: -13}, [m.MODE_CURRENT]),  # /12 by SMULL
    ("board_reset", {}, {m.ADC_ZERO_SUM: -11}, [m.MODE_DUTY]),  # truncates to 0
    ("board_reset", {}, {m.ADC_ZERO_SUM: INT32_MIN}, [INT32_MIN]),
    ("board_reset", {}, {m.ADC_ZERO_SUM: INT32_MAX}, [-1]),
    ("decimator_fill", {m.MA_HEAD: 7}, {}, [INT32_MAX]),  # the 12-sample sum wraps
    ("decimator_fill", {}, {}, [-178956971]),  # 12 * x just below -2^31
]


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("case", BOUNDARIES, ids=lambda c: f"{c[0]}-{c[3]}")
def test_boundaries(isa: str, case: tuple) -> None:
    """The explicit edges: +-2^31, -1, 0, the PI's saturation edges, the divide's signs."""
    name, ram_cells, rom_cells, args = case
    ram, rom = _case(ram_cells, rom_cells)
    assert compare(machine(isa), name, ram, rom, args) is None


def test_div_trunc_truncates_toward_zero_on_the_machine() -> None:
    """The block mean's divide is C's (-41 / 80 == 0, not floor's -1), on the real runtime."""
    ram, rom = _case({m.POS_SUM: -81, m.POS_COUNT: 79, m.POS_SEQ: 1}, {})
    after, _ = machine("arm").call("pot_sample", ram, rom, [0])
    assert after[m.POS_OUT] == 0 and after[m.POS_SEQ] == 2


def test_ram_struct_follows_memory_map() -> None:
    """ram_t's fields are firmware/memory.py's cells, in order, one int32 word each."""
    header = (C_DIR / "servo.h").read_text()
    body = header[header.index("typedef struct {"):header.index("} ram_t;")]
    fields = re.findall(r"int32_t (\w+)(?:\[(\w+)\])?;", body)
    cells: list[str] = []
    for field, length in fields:
        cells += [field.upper()] * (m.MA_LEN if length else 1)
    assert len(cells) == m.RAM_SIZE
    assert cells[:m.MA_LEN] == ["MA_BUF"] * m.MA_LEN and m.MA_BUF0 == 0
    for index in range(m.MA_LEN, m.RAM_SIZE):
        assert getattr(m, cells[index]) == index, cells[index]


def test_rom_struct_follows_memory_map() -> None:
    """rom_t's fields are firmware/memory.py's ROM cells, in order, one int32 word each."""
    header = (C_DIR / "servo.h").read_text()
    body = header[header.rindex("typedef struct {", 0, header.index("} rom_t;")):
                  header.index("} rom_t;")]
    fields = re.findall(r"\w+", body.removeprefix("typedef struct {").replace("int32_t", ""))
    assert len(fields) == m.ROM_SIZE
    assert [getattr(m, f.upper()) for f in fields] == list(range(m.ROM_SIZE))
