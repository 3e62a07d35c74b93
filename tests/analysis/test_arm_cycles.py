"""Machine-code cycle counts: hand-assembled ARM7TDMI code against the TRM's timings, and the
budget's machine-code figure beside the hand table."""

import json
import struct
from collections import Counter

import numpy as np
import pytest

from servobus.analysis import cpu_budget
from servobus.analysis.arm_budget import Recording
from servobus.analysis.arm_build import Image, OracleUnavailable
from servobus.analysis.arm_cycles import CycleCounter, _multiplier_m
from servobus.analysis.arm_oracle import Machine
from servobus.firmware import memory as m
from servobus.presets.board import DEFAULT_BOARD
from servobus.tools.cli import main

BX_LR = 0xE12FFF1E


def _counter(words: list[int], isa: str = "arm", fmt: str = "I") -> CycleCounter:
    code = struct.pack(f"<{len(words)}{fmt}", *words)
    entry = 1 if isa == "thumb" else 0
    return CycleCounter(Machine(image=Image(isa, ((0, code),), {"t": entry})))


def _cycles(counter: CycleCounter, r1: int = 0, r2: int = 0) -> tuple[int, int, int, int]:
    _, _, cost = counter.run("t", np.zeros(4, np.int64), None, [r1, r2])
    return cost.instructions, cost.s, cost.n, cost.i


@pytest.mark.parametrize(("rs", "unsigned", "m"), [
    (0, False, 1), (0xFF, False, 1), (0x100, False, 2), (0xFFFF, False, 2), (0x10000, False, 3),
    (0xFFFFFF, False, 3), (0x1000000, False, 4), (0xFFFFFFFF, False, 1), (0xFFFFFF00, False, 1),
    (0xFFFFFEFF, False, 2), (0xFF000000, False, 3), (0x80000000, False, 4),
    (0xFFFFFFFF, True, 4), (0xFF, True, 1), (0xFFFF, True, 2)])
def test_multiplier_cycles_by_operand_bytes(rs: int, unsigned: bool, m: int) -> None:
    """m = 1..4 by the top bytes of Rs being all 0 (or all 1 for signed multiplies)."""
    assert _multiplier_m(rs, unsigned) == m


@pytest.mark.parametrize(("insn", "rs", "mul_sni"), [
    (0xE0000291, 0x100, (1, 0, 2)),  # mul r0, r1, r2: 1S + mI, m = 2
    (0xE0000291, 0x12345678, (1, 0, 4)),
    (0xE0203291, -1, (1, 0, 2)),  # mla r0, r1, r2, r3: 1S + (m+1)I
    (0xE0C54291, -1, (1, 0, 2)),  # smull: 1S + (m+1)I, m = 1 for all ones
    (0xE0854291, -1, (1, 0, 5)),  # umull: m = 4 for 0xFFFFFFFF
])
def test_multiply_timings(insn: int, rs: int, mul_sni: tuple[int, int, int]) -> None:
    """Multiplies then BX LR (2S + 1N), per the ARM7TDMI TRM."""
    got = _cycles(_counter([insn, BX_LR]), r1=7, r2=rs)
    assert got == (2, mul_sni[0] + 2, mul_sni[1] + 1, mul_sni[2])


def test_load_store_block_and_condition_timings() -> None:
    """push{r4,r5,lr} 2S+2N; ldr 1S+1N+1I; str 2N; reg-shift mov 1S+1I; cmp 1S; a failed
    movne 1S; moveq 1S; pop{r4,r5,pc} 4S+2N+1I: 21 cycles in 8 instructions."""
    code = [0xE92D4030, 0xE5903000, 0xE5803000, 0xE1A03211, 0xE1510001, 0x13A03001,
            0x03A03001, 0xE8BD8030]
    n_insn, s, n, i = _cycles(_counter(code), r1=3, r2=2)
    assert (n_insn, s, n, i) == (8, 2 + 1 + 1 + 1 + 1 + 1 + 4, 2 + 1 + 2 + 2, 1 + 1 + 1)
    assert s + n + i == 21


def test_thumb_bl_costs_both_halves() -> None:
    """push{lr} 2N; bl 3S+1N; bx lr 2S+1N; pop{r0} 1S+1N+1I; bx r0 2S+1N: 15 cycles."""
    counter = _counter([0xB500, 0xF000, 0xF802, 0xBC01, 0x4700, 0x4770], "thumb", "H")
    n_insn, s, n, i = _cycles(counter)
    assert n_insn == 5 and (s, n, i) == (3 + 2 + 1 + 2, 2 + 1 + 1 + 1 + 1, 1)


def test_budget_shows_machine_code_beside_hand_table(capsys: pytest.CaptureFixture) -> None:
    """`budget --cpu --json` carries both figures; each adds the same fixed ISR overhead."""
    assert main(["budget", "--cpu", "--json", "--ticks", "1"]) == 0
    result = json.loads(capsys.readouterr().out)
    for isa in ("arm", "thumb"):
        adc = result["machine_code"][isa]["interrupts"]["adc_isr"]
        assert adc["cycles_per_call"] - adc["routine_cycles_per_call"] == pytest.approx(50)
        assert adc["hand_table_cycles_per_call"] == result["interrupts"]["adc_isr"][
            "cycles_per_call"]
        assert adc["routine_cycles_per_call"] >= adc["instructions_per_call"] >= 4
        pwm = result["machine_code"][isa]["interrupts"]["pwm_isr"]
        assert pwm["worst_cycles_per_call"] > pwm["cycles_per_call"]
        assert 0 < result["machine_code"][isa]["cpu_utilization_pct"] < 100


def test_budget_without_oracle_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hand table still works; the machine-code entry names the extra to install."""
    def missing(*_: object) -> None:
        raise OracleUnavailable("no zig")

    monkeypatch.setattr("servobus.analysis.arm_budget.replay", missing)
    record = Recording()
    costs, _ = cpu_budget.measure(DEFAULT_BOARD, 1, record)
    got = cpu_budget.machine_code_dict(DEFAULT_BOARD, costs, record)
    assert "pip install 'servobus[oracle]'" in got["unavailable"]
    assert cpu_budget.machine_code_dict(DEFAULT_BOARD, costs, None) == got


def test_oracle_packages_are_checked_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing package is named with the install line, before the workload runs."""
    import importlib.util

    from servobus.analysis import arm_budget, arm_build

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "capstone" else real(name, *a))
    with pytest.raises(OracleUnavailable, match=r"needs capstone: pip install"):
        arm_build.require()
    assert arm_budget.recording_if_available() is None


def test_one_run_counts_and_records_the_same_calls() -> None:
    """The recorded workload is the counted one: as many calls of each interrupt."""
    record = Recording()
    costs, _ = cpu_budget.measure(DEFAULT_BOARD, 2, record)
    recorded = Counter(name for name, *_ in record.calls)
    assert recorded == {c.name: c.calls for c in costs} and recorded["can_tick"] == 2
    assert len(record.rom) == m.ROM_SIZE


def test_replay_checks_ram_against_python() -> None:
    """A recorded call whose Python RAM differs from the machine's is reported, not averaged."""
    from servobus.analysis.arm_budget import replay

    record = Recording()
    cpu_budget.measure(DEFAULT_BOARD, 1, record)
    calls, rom = record.calls, record.rom
    name, before, args, after = calls[3]
    after = after.copy()
    after[5] += 1
    with pytest.raises(RuntimeError, match="differ after"):
        replay([(name, before, args, after)], rom, "arm")


@pytest.mark.parametrize("cond, flags, passes", [
    (1, 0b0100, True), (1, 0b0000, False),  # EQ: Z
    (3, 0b0010, True), (4, 0b0010, False),  # CS / CC: C
    (9, 0b0010, True), (9, 0b0110, False),  # HI: C and not Z
    (11, 0b1001, True), (12, 0b1000, True), (12, 0b1001, False),  # GE / LT: N == V / N != V
    (13, 0b0000, True), (13, 0b0100, False), (14, 0b1000, True),  # GT / LE
    (0, 0b0000, True), (15, 0b1111, True)])  # none, AL: always
def test_conditions_read_the_cpsr_flags(cond: int, flags: int, passes: bool) -> None:
    """N Z C V are CPSR bits 31..28; each ARM condition passes on the TRM's flag test."""
    from servobus.analysis.arm_cycles import _condition_passes

    assert _condition_passes(cond, flags << 28) is passes
