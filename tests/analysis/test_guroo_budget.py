"""GuRoo CPU budget: hand-counted timer interrupt, HCTL reads, the CLI's --robot option."""

import json
from typing import Any

import numpy as np
import pytest

from servobus.analysis import guroo_budget
from servobus.analysis.guroo_budget import (
    ISR_OVERHEAD_CYCLES,
    _explanation,
    counter,
    measure,
    watch,
)
from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.plant.guroo_build import build_rom
from servobus.tools.cli import main


def test_timer_isr_common_path_costs_its_hand_count() -> None:
    ram, rom = g.new_ram(), build_rom(1)
    fw.boot(ram, rom)
    with counter() as count:
        fw.timer_isr(watch(count, ram, rom)[0])
    ops = count.per_isr["timer_isr"]
    # no pending outputs: APPLY_IN load + compare; feather load; per motor counter load,
    # compare, pwm_low load, CMPR store; feather +1 & 15 and store; interrupt count +1 and store
    assert ops["lt"] == 3 and ops["gt"] == 1
    assert count.worst["timer_isr"] == (1 + 4) + 1 + 3 * (1 + 4 + 1 + 1) + 3 + 3 == 33


def test_budget_counts_the_hctl_bytes_and_the_interrupt_share() -> None:
    out = measure("2002", 10)  # 20 ms
    loop = out["interrupts"]["bl_control"]
    assert loop["calls_counted"] == 5 and loop["ops_per_call"]["io_read"] == 4
    isr = out["interrupts"]["timer_isr"]
    assert isr["cycles_per_call"] >= 33 + ISR_OVERHEAD_CYCLES
    assert 40.0 < isr["cpu_pct"] < 60.0  # the 100 kHz interrupt takes about half the CPU
    thesis = out["thesis_1_28_ms"]
    assert thesis["reproduced"] is False and thesis["remaining_factor"] > 10


def test_cli_budget_robot_guroo(capsys: pytest.CaptureFixture[str]) -> None:
    # 6 set-point periods of 2 ms: 12 ms, 24 loops at 2 kHz
    assert main(["budget", "--cpu", "--robot", "guroo", "--loop", "2khz", "--ticks", "6",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["robot"] == "guroo" and out["loop_hz"] == 2000.0
    assert out["interrupts"]["bl_control"]["calls_counted"] == 24


def test_bl_control_counts_its_shifts_and_negations() -> None:
    ram, rom = g.new_ram(), build_rom(1)
    fw.boot(ram, rom)
    with counter() as count:
        fw.bl_control(*watch(count, ram, rom))
    ops = count.per_isr["bl_control"]
    # shl: per motor position and delta into Q4 (6), the two HCTL high bytes (2), the STATUS
    # word's loop count and board ID (2); sub: per motor the position and velocity errors, the
    # drive beyond the back-EMF and the two negated limits (no current over its limit at rest)
    assert ops["shl"] == 6 + 2 + 2
    assert ops["sub"] == 3 * 5
    assert ops["divmod_floor"] == 3


class _Reads(np.ndarray):
    """ROM that records the index of every element it hands out."""

    reads: list[int]

    def __getitem__(self, key: Any) -> Any:
        self.reads.append(int(key))
        return super().__getitem__(key)


def test_every_rom_constant_read_is_charged() -> None:
    # the counter once skipped ROM reads at the index of a RAM statistic (R_LIM_IR, 11, the
    # fallback limit's I*R, read per motor): every ROM read is one load_rom, whatever its index
    ram, rom = g.new_ram(), build_rom(1)
    fw.boot(ram, rom)
    seen = rom.copy().view(_Reads)
    seen.reads = []
    fw.bl_control(ram.copy(), seen)  # the same call from the same state, recorded
    with counter() as count:
        fw.bl_control(*watch(count, ram, rom))
    assert count.per_isr["bl_control"]["load_rom"] == len(seen.reads)
    assert seen.reads.count(g.R_LIM_IR) == g.MOTORS


def test_hctl_cycles_follow_the_counted_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    base = measure("2002", 4)["control_loop"]["hctl_byte_read_cycles"]
    # a board with motor 0 on an HCTL-2016 too: three counters read as two bytes each
    monkeypatch.setattr(guroo_budget, "_HCTL", {g.REG_CNT, g.REG_CNT + 1, g.REG_CNT + 2})
    more = measure("2002", 4)["control_loop"]["hctl_byte_read_cycles"]
    assert more == base * 3 / 2 and more > 0


def test_thesis_text_follows_loop_mode_and_verdict() -> None:
    old, new = measure("2002", 4), measure("2khz", 4)
    assert old["thesis_1_28_ms"]["explanation"].startswith("not reproduced")
    assert "main runs the loop" in old["thesis_1_28_ms"]["explanation"]
    text = new["thesis_1_28_ms"]["explanation"]
    assert "main" not in text and "2002 loop" not in text and "500 us interrupt" in text
    assert new["thesis_1_28_ms"]["applies_to_this_loop"] is False
    assert _explanation("2002", 0.5, 600, 1.2e-3, 36, 1.1, True).startswith("reproduced")
    assert old["control_loop"]["simulated_latency_source"].startswith("thesis")
    # 2 kHz: the simulated latency is the count's, rounded up to whole timer periods
    loop = new["control_loop"]
    assert loop["simulated_latency_source"].startswith("this count")
    assert loop["count_implied_latency_periods"] <= loop["simulated_latency_periods"]
    assert loop["simulated_latency_periods"] < loop["count_implied_latency_periods"] + 1
