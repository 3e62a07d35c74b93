"""The firmware's machine code as an oracle: call the C routines in an ARM7TDMI emulator.

A ``Machine`` holds one `unicorn` CPU (ARMv4T: the TI925T model, the binding has no ARM7TDMI;
same instruction set, no hardware divide, 32x32->64 SMULL) with the LPC2119's memory map: flash
from 0x00000000 (the code; the ROM constants at ROM_ADDR), RAM from 0x40000000 (the RAM struct
at its start, the stack at its top).  ``call`` writes a RAM/ROM state, runs one routine to its
return and reads the RAM back; ``ROUTINES`` pairs each C routine with the Python firmware
function it must match bit for bit.
"""

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from servobus.analysis.arm_build import INSTALL_HINT, Image, OracleUnavailable, load
from servobus.firmware import board, current_loop, decimator, encoder, local_p, position, protection
from servobus.firmware.int32 import wrap32

FLASH_BASE, FLASH_SIZE = 0x00000000, 128 * 1024
RAM_BASE, RAM_SIZE_BYTES = 0x40000000, 16 * 1024
ROM_ADDR = 0x00010000  # the flash constants (rom_t), after the code
RAM_ADDR = RAM_BASE  # the RAM struct (ram_t)
STACK_TOP = RAM_BASE + RAM_SIZE_BYTES
RETURN_ADDR = FLASH_SIZE - 16  # LR on entry: the run stops when the routine returns here


@dataclass(frozen=True)
class Routine:
    """One C routine, its Python twin and its integer arguments after (ram[, rom])."""

    python: Callable[..., Any]
    takes_rom: bool
    nargs: int
    returns: bool


ROUTINES: dict[str, Routine] = {
    "decimator_push": Routine(decimator.push, False, 1, False),
    "decimator_fill": Routine(decimator.fill, False, 1, False),
    "measured_current": Routine(current_loop.measured_current, True, 0, True),
    "set_reference": Routine(current_loop.set_reference, True, 1, False),
    "pi_step": Routine(current_loop.pi_step, True, 1, True),
    "pot_sample": Routine(position.pot_sample, True, 1, False),
    "encoder_read": Routine(encoder.encoder_read, False, 2, False),
    "protection_check": Routine(protection.check, True, 2, True),
    "p_sample": Routine(local_p.p_sample, True, 1, True),
    "p_step": Routine(local_p.p_step, True, 0, True),
    "board_reset": Routine(board.reset, True, 1, False),
    "set_mode": Routine(board.set_mode, False, 1, False),
    "adc_isr": Routine(board.adc_isr, False, 1, False),
    "pwm_isr": Routine(board.pwm_isr, True, 4, False),
    "can_tick": Routine(board.can_tick, True, 0, False),
    "can_actuation": Routine(board.can_actuation, False, 1, False),
    "can_posref": Routine(board.can_posref, False, 1, False),
}


def _pack(words: Sequence[int] | np.ndarray) -> bytes:
    """int32 words as little-endian bytes (the struct's memory image)."""
    return struct.pack(f"<{len(words)}i", *(int(w) for w in words))


class Machine:
    """One emulated LPC2119 running the C firmware built for `isa` ('arm' or 'thumb')."""

    def __init__(self, isa: str = "arm", image: Image | None = None) -> None:
        try:
            import unicorn
            from unicorn import arm_const
        except ImportError as exc:
            raise OracleUnavailable(f"the ARM oracle needs unicorn: {INSTALL_HINT}") from exc
        self.image = image or load(isa, tuple(ROUTINES))
        self.isa = self.image.isa
        self._regs = arm_const
        self.uc = unicorn.Uc(unicorn.UC_ARCH_ARM, unicorn.UC_MODE_ARM)
        self.uc.ctl_set_cpu_model(arm_const.UC_CPU_ARM_TI925T)
        self.uc.mem_map(FLASH_BASE, FLASH_SIZE)
        self.uc.mem_map(RAM_BASE, RAM_SIZE_BYTES)
        for addr, blob in self.image.segments:
            self.uc.mem_write(addr, blob)
        self.uc.mem_write(RETURN_ADDR, _pack([0, 0, 0, 0]))

    def entry(self, name: str) -> int:
        """Address of a routine (bit 0 set for Thumb code)."""
        return self.image.symbols[name]

    def call(self, name: str, ram: np.ndarray, rom: np.ndarray | None,
             args: Sequence[int] = ()) -> tuple[np.ndarray, int]:
        """Run routine `name` on a copy of `ram`, and `rom` when the routine takes it (a name
        outside ROUTINES gets `rom` when one is given); return the RAM after and r0."""
        r = self._regs
        self.uc.mem_write(RAM_ADDR, _pack(ram))
        params = [RAM_ADDR]
        routine = ROUTINES.get(name)
        if rom is not None and (routine is None or routine.takes_rom):
            self.uc.mem_write(ROM_ADDR, _pack(rom))
            params.append(ROM_ADDR)
        params += [int(a) & 0xFFFFFFFF for a in args]
        sp = STACK_TOP - 64
        self.uc.mem_write(sp, struct.pack(f"<{len(params[4:])}I", *params[4:]))
        for reg, value in zip((r.UC_ARM_REG_R0, r.UC_ARM_REG_R1, r.UC_ARM_REG_R2,
                               r.UC_ARM_REG_R3), params, strict=False):
            self.uc.reg_write(reg, value)
        self.uc.reg_write(r.UC_ARM_REG_SP, sp)
        self.uc.reg_write(r.UC_ARM_REG_LR, RETURN_ADDR)
        self.uc.reg_write(r.UC_ARM_REG_CPSR, 0x13)  # supervisor mode, ARM state, flags clear
        self.uc.emu_start(self.entry(name), RETURN_ADDR, count=100_000)
        if self.uc.reg_read(r.UC_ARM_REG_PC) != RETURN_ADDR:
            raise RuntimeError(f"{name} did not return within 100000 instructions")
        out = np.frombuffer(self.uc.mem_read(RAM_ADDR, 4 * len(ram)), dtype="<i4")
        return out.astype(np.int64), wrap32(self.uc.reg_read(r.UC_ARM_REG_R0))


def run_python(name: str, ram: np.ndarray, rom: np.ndarray,
               args: Sequence[int] = ()) -> tuple[np.ndarray, int | None]:
    """The Python firmware's RAM after routine `name` on a copy of `ram`, and its result."""
    routine = ROUTINES[name]
    after = np.array(ram, dtype=np.int64)
    lead = (after, rom) if routine.takes_rom else (after,)
    result = routine.python(*lead, *(int(a) for a in args))
    return after, (int(result) if routine.returns else None)


def compare(machine: Machine, name: str, ram: np.ndarray, rom: np.ndarray,
            args: Sequence[int] = ()) -> str | None:
    """Run one case both ways; None if the RAM (and result) agree, else what differs."""
    want, want_r0 = run_python(name, ram, rom, args)
    got, got_r0 = machine.call(name, ram, rom, args)
    diff = [k for k in range(len(want)) if want[k] != got[k]]
    if diff:
        cells = ", ".join(f"[{k}] python {want[k]} machine {got[k]}" for k in diff)
        return f"{name}({list(args)}) on {machine.isa}: RAM differs at {cells}"
    if want_r0 is not None and want_r0 != got_r0:
        return f"{name}({list(args)}) on {machine.isa}: returns python {want_r0} machine {got_r0}"
    return None
