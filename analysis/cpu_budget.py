"""CPU budget of the board firmware on a 60 MHz LPC2119 (ARM7TDMI), from counted operations.

The reference path runs a representative workload under ``OpCounter``: in the cascade a
reversing current reference, in local-p (the servo's own position loop) a reversing position
set-point, with CAN ticks and set-points every 4 ms; each interrupt's mean and worst operation
counts are converted to cycles with the table below and weighted by its rate.  The servo preset
sets the ROM (its gains, its loop's block) and the plant, so a local-p servo's loop rate and
speed term cost what they cost (the SG90's loop runs every PWM period).

The cycle table CYCLES is the ARM7TDMI TRM's S/N/I cycle counts, worst case, with zero flash
wait states assumed (MAM fully enabled); `servobus budget --cpu` prints it with the result, and
beside it the figure counted from the C firmware's machine code on the same workload
(``arm_budget``, when the `oracle` extra is installed; docs/cpu-budget.md explains the gap).
"""

import math
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from servobus.analysis.op_counter import ISRS, OpCounter
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant.build import PlantOptions
from servobus.plant.rig import BoardRig
from servobus.presets.board import DEFAULT_BOARD, BoardHardware, Sensing
from servobus.presets.servos import HSR_5995TG, ServoPreset

if TYPE_CHECKING:
    from servobus.analysis.arm_budget import Recording

CYCLES = {
    "add": 1, "sub": 1, "bit_or": 1, "bit_and": 1, "asr": 1,  # data processing, barrel shifter
    "sat_add": 3, "sat_sub": 3,  # ADDS/SUBS + two conditional MOVs on overflow
    "mul": 5,  # MUL: 1S + mI, m <= 4 (worst case)
    "mul64": 6,  # SMULL: 1S + (m+1)I, m <= 4
    "clamp": 4,  # CMP + MOVLT, CMP + MOVGT
    "eq": 4, "ne": 4, "lt": 4, "gt": 4, "ge": 4,  # CMP + taken branch (2S + 1N)
    "diff16": 3,  # SUB, LSL #16, ASR #16
    "div_trunc": 100,  # software __aeabi_idiv, worst case
    "load_ram": 3, "load_rom": 3,  # LDR: 1S + 1N + 1I
    "store_ram": 2, "store_rom": 2,  # STR: 2N
}
ISR_OVERHEAD_CYCLES = 50  # IRQ latency, VIC vector read, STMFD/LDMFD of the scratch registers
CAN_DRIVER_CYCLES = {  # CAN controller register access around the firmware handlers
    "rx_frame": 6 * 3 + 2 * 2 + 2 * 4,  # read ID, DLC, 2 data words, status; release buffer
    "tx_frame": 5 * 2 + 1 * 3 + 4,  # write ID, DLC, data, command; read status
}
SETPOINT_ISR = {"cascade": "can_actuation", "local-p": "can_posref"}  # the host's frame's
WORKLOAD_DEG = 30.0  # local-p workload: set-points +-30 degrees about mid-scale


@dataclass(frozen=True)
class IsrCost:
    """Counted cost of one interrupt handler."""

    name: str
    rate_hz: float
    calls: int
    mean_ops: dict[str, float]
    mean_cycles: float
    max_cycles: float


def _cycles(ops: dict[str, float]) -> float:
    return sum(CYCLES[op] * n for op, n in ops.items())


def isrs(mode: str = "cascade") -> tuple[str, ...]:
    """The interrupts of a board in `mode`: the ADC's, the PWM's, the tick's and the handler of
    the host's set-point frame (ACTUATION in the cascade, POSREF in local-p)."""
    return (*ISRS[:3], SETPOINT_ISR[mode])


def run_workload(rig: BoardRig, hw: BoardHardware, ticks: int, mode: str = "cascade") -> None:
    """The budget's workload on the reference path, the set-point reversing every 5 ticks:
    +-0.8 A (cascade), or +-WORKLOAD_DEG in the servo's own sensor LSB (local-p)."""
    half = np.arange(ticks) % 10 < 5
    if mode == "cascade":
        for iw in np.where(half, 0.8, -0.8):
            rig.command_current(float(iw))
            rig.run(hw.periods_per_tick, record=False, fast=False)
        return
    swing = round(math.radians(WORKLOAD_DEG) * rig.servo.sensed_by(hw).pot_lsb_per_rad)
    for xw in np.where(half, 512 + swing, 512 - swing):
        board.can_posref(rig.ram, int(xw))
        board.can_tick(rig.ram, rig.rom)
        rig.run(hw.periods_per_tick, record=False, fast=False)


def rates_hz(hw: BoardHardware) -> dict[str, float]:
    """How often each interrupt runs."""
    return {"adc_isr": hw.adc_hz, "pwm_isr": hw.pwm_hz, "can_tick": hw.can_hz,
            **dict.fromkeys(SETPOINT_ISR.values(), hw.can_hz)}


def fixed_cycles(name: str) -> int:
    """Cycles of an interrupt outside the firmware routine: IRQ entry/exit, CAN driver."""
    driver = {"can_tick": CAN_DRIVER_CYCLES["rx_frame"] + CAN_DRIVER_CYCLES["tx_frame"],
              **dict.fromkeys(SETPOINT_ISR.values(), CAN_DRIVER_CYCLES["rx_frame"])}
    return ISR_OVERHEAD_CYCLES + driver.get(name, 0)


def measure(hw: BoardHardware = DEFAULT_BOARD, ticks: int = 25,
            record: "Recording | None" = None, servo: ServoPreset = HSR_5995TG,
            mode: str = "cascade",
            sensing: Sensing = "supply-unipolar") -> tuple[list[IsrCost], float]:
    """Count the firmware of a board driving `servo` in `mode` over `ticks` CAN periods; return
    the ISR costs and CPU utilisation (and, given `record`, record every interrupt call of that
    same run for arm_budget.replay)."""
    names = isrs(mode)
    rig = BoardRig(servo, hw, PlantOptions(sensing=sensing, rotor="free"), mode=m.BOARD_MODES[mode])
    with OpCounter(CYCLES, entries=(board, names)) as counter, ExitStack() as stack:
        if record is not None:
            from servobus.analysis.arm_budget import recording

            record.rom = np.array(rig.rom, dtype=np.int64)
            stack.enter_context(recording(record.calls, names))
        rig.ram = counter.watch(rig.ram, "ram")
        rig.rom = counter.watch(rig.rom, "rom")
        run_workload(rig, hw, ticks, mode)
    rates = rates_hz(hw)
    costs = []
    for name in names:
        calls = counter.calls[name]
        mean_ops = {op: n / calls for op, n in sorted(counter.per_isr[name].items())}
        fixed = fixed_cycles(name)
        worst = counter.worst[name]
        costs.append(IsrCost(name=name, rate_hz=rates[name], calls=calls, mean_ops=mean_ops,
                             mean_cycles=_cycles(mean_ops) + fixed, max_cycles=worst + fixed))
    load = sum(c.rate_hz * c.mean_cycles for c in costs) / hw.pclk_hz
    return costs, 100.0 * load


def budget_dict(costs: list[IsrCost], utilization_pct: float, hw: BoardHardware) -> dict:
    """JSON-ready CPU budget."""
    return {
        "cpu_hz": hw.pclk_hz,
        "isr_overhead_cycles": ISR_OVERHEAD_CYCLES,
        "interrupts": {c.name: {"rate_hz": c.rate_hz, "calls_counted": c.calls,
                                "ops_per_call": c.mean_ops, "cycles_per_call": c.mean_cycles,
                                "worst_cycles_per_call": c.max_cycles,
                                "cpu_pct": 100.0 * c.rate_hz * c.mean_cycles / hw.pclk_hz}
                       for c in costs},
        "cycle_table": CYCLES,
        "cpu_utilization_pct": utilization_pct,
    }


def machine_code_dict(hw: BoardHardware, costs: list[IsrCost],
                      record: "Recording | None") -> dict:
    """The cycles counted from the C firmware's ARM and Thumb machine code on the workload
    `record` holds, beside the hand table's; or how to get them when the oracle extra is
    missing (`record` None)."""
    from servobus.analysis.arm_build import INSTALL_HINT, ISAS, OracleUnavailable

    try:
        if record is None:
            raise OracleUnavailable("not recorded")
        from servobus.analysis.arm_budget import replay

        per_isa = {isa: replay(record.calls, record.rom, isa) for isa in ISAS}
    except (ImportError, OracleUnavailable):
        return {"unavailable": f"machine-code cycles need the oracle extra: {INSTALL_HINT}"}
    hand = {c.name: c.mean_cycles for c in costs}
    rates = rates_hz(hw)
    out: dict = {"cycle_model": "ARM7TDMI TRM S/N/I per executed instruction, zero wait states"}
    for isa, found in per_isa.items():
        isrs: dict[str, dict] = {}
        for name, mc in found.items():
            total = mc.mean_cycles + fixed_cycles(name)
            isrs[name] = {"instructions_per_call": mc.mean_instructions,
                          "instruction_mix_per_call": mc.mix,
                          "routine_cycles_per_call": mc.mean_cycles,
                          "cycles_per_call": total,
                          "worst_cycles_per_call": mc.max_cycles + fixed_cycles(name),
                          "hand_table_cycles_per_call": hand[name],
                          "machine_minus_hand_cycles": total - hand[name],
                          "cpu_pct": 100.0 * rates[name] * total / hw.pclk_hz}
        load = sum(rates[n] * float(v["cycles_per_call"]) for n, v in isrs.items()) / hw.pclk_hz
        out[isa] = {"interrupts": isrs, "cpu_utilization_pct": 100.0 * load}
    return out
