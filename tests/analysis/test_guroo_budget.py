"""GuRoo CPU budget: hand-counted timer interrupt, HCTL reads, the CLI's --robot option."""

import json

import pytest

from servobus.analysis.guroo_budget import CYCLES, ISR_OVERHEAD_CYCLES, GurooCounter, measure
from servobus.firmware import guroo_board as fw
from servobus.firmware import guroo_memory as g
from servobus.plant.guroo_build import build_rom
from servobus.tools.cli import main


def test_timer_isr_common_path_costs_its_hand_count() -> None:
    ram, rom = g.new_ram(), build_rom(1)
    fw.boot(ram, rom)
    with GurooCounter() as counter:
        fw.timer_isr(counter.watch(ram, rom)[0])
    ops = counter.ops["timer_isr"]
    # no pending outputs: APPLY_IN load + compare; feather load; per motor counter load,
    # compare, pwm_low load, CMPR store; feather +1 & 15 and store; interrupt count +1 and store
    assert ops["lt"] == 3 and ops["gt"] == 1
    assert counter.worst["timer_isr"] == (1 + 4) + 1 + 3 * (1 + 4 + 1 + 1) + 3 + 3 == 33


def test_budget_counts_the_hctl_bytes_and_the_interrupt_share() -> None:
    out = measure("2002", 0.02)
    loop = out["interrupts"]["bl_control"]
    assert loop["calls_counted"] == 5 and loop["ops_per_call"]["io_read"] == 4
    assert out["control_loop"]["hctl_byte_read_cycles"] == 4 * CYCLES["io_read"] == 36
    isr = out["interrupts"]["timer_isr"]
    assert isr["cycles_per_call"] >= 33 + ISR_OVERHEAD_CYCLES
    assert 40.0 < isr["cpu_pct"] < 60.0  # the 100 kHz interrupt takes about half the CPU
    thesis = out["thesis_1_28_ms"]
    assert thesis["reproduced"] is False and thesis["remaining_factor"] > 10


def test_cli_budget_robot_guroo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["budget", "--cpu", "--robot", "guroo", "--loop", "2khz", "--ticks", "3",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["robot"] == "guroo" and out["loop_hz"] == 2000.0
    assert out["interrupts"]["bl_control"]["calls_counted"] == 24


def test_bl_control_counts_its_shifts_and_negations() -> None:
    ram, rom = g.new_ram(), build_rom(1)
    fw.boot(ram, rom)
    with GurooCounter() as counter:
        fw.bl_control(*counter.watch(ram, rom))
    ops = counter.ops["bl_control"]
    # shl: per motor position and delta into Q4 (6), the two HCTL high bytes (2), the STATUS
    # word's loop count and board ID (2); sub: per motor the position and velocity errors, the
    # drive beyond the back-EMF and the two negated limits (no current over its limit at rest)
    assert ops["shl"] == 6 + 2 + 2
    assert ops["sub"] == 3 * 5
    assert ops["divmod_floor"] == 3
