"""ARM7TDMI cycles of the machine code as executed: every instruction unicorn runs, classified.

A code hook sees each instruction before it executes (registers hold its operands), decodes it
once per address with capstone and charges the ARM7TDMI TRM's timings (section 6, Instruction
Cycle Timings) in sequential (S), non-sequential (N) and internal (I) cycles:

    data processing     1S, +1I with a register-specified shift, +1S+1N when it writes the PC
    MUL / MLA           1S+mI / 1S+(m+1)I;  SMULL,UMULL 1S+(m+1)I;  SMLAL,UMLAL 1S+(m+2)I
                        m = 1..4 by the significant bytes of the multiplier operand Rs
    LDR                 1S+1N+1I (2S+2N+1I into the PC);  STR 2N
    LDM / POP           nS+1N+1I ((n+1)S+2N+1I with the PC);  STM / PUSH (n-1)S+2N
    B, BL, BX           2S+1N (Thumb BL, one 32-bit step for unicorn: 1S, then 2S+1N)
    condition failed    1S

Cycles are S+N+I: zero flash wait states (MAM fully on), the hand table's assumption.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from servobus.analysis.arm_build import INSTALL_HINT, OracleUnavailable
from servobus.analysis.arm_oracle import Machine

try:
    import capstone
    from capstone.arm_const import ARM_REG_PC
except ImportError as exc:  # the same message as a missing zig or unicorn
    raise OracleUnavailable(f"the ARM cycle count needs capstone: {INSTALL_HINT}") from exc

_MUL_EXTRA = {"mul": 0, "mla": 1, "smull": 1, "umull": 1, "smlal": 2, "umlal": 2}
_SHIFTS = {"asr", "lsl", "lsr", "ror"}
_REG_SHIFT_TYPES = {6, 7, 8, 9, 10}  # capstone ARM_SFT_*_REG
# capstone ARM_CC_EQ .. ARM_CC_LE as tests of the flags N, Z, C, V (AL and none: always)
_CONDITIONS: dict[int, Callable[[int, int, int, int], Any]] = {
    1: lambda n, z, c, v: z, 2: lambda n, z, c, v: not z, 3: lambda n, z, c, v: c,
    4: lambda n, z, c, v: not c, 5: lambda n, z, c, v: n, 6: lambda n, z, c, v: not n,
    7: lambda n, z, c, v: v, 8: lambda n, z, c, v: not v,
    9: lambda n, z, c, v: c and not z, 10: lambda n, z, c, v: not c or z,
    11: lambda n, z, c, v: n == v, 12: lambda n, z, c, v: n != v,
    13: lambda n, z, c, v: not z and n == v, 14: lambda n, z, c, v: z or n != v}


@dataclass
class Cost:
    """Instructions and S/N/I cycles of one or more routine runs."""

    instructions: int = 0
    s: int = 0
    n: int = 0
    i: int = 0
    classes: Counter[str] = field(default_factory=Counter)

    @property
    def cycles(self) -> int:
        """S + N + I at zero wait states."""
        return self.s + self.n + self.i


@dataclass(frozen=True)
class _Insn:
    """An instruction's timing class, decoded once per address."""

    kind: str  # dp, mul, ldr, str, ldm, stm, branch, bl_thumb
    cond: int  # capstone ARM_CC_*; 15 (AL) or 0 (none) always executes
    writes_pc: bool = False
    reg_shift: bool = False
    nregs: int = 0
    rs: int = -1  # unicorn register id of the multiplier operand
    mul_extra: int = 0
    unsigned: bool = False


def _multiplier_m(value: int, unsigned: bool) -> int:
    """ARM7TDMI multiply cycles m: 1..4 by how many top bytes of Rs are all 0 (or all 1)."""
    for m, bits in ((1, 8), (2, 16), (3, 24)):
        top = value >> bits
        if top == 0 or (not unsigned and top == (1 << (32 - bits)) - 1):
            return m
    return 4


def _condition_passes(cond: int, cpsr: int) -> bool:
    """Whether a capstone ARM_CC_* condition holds for the CPSR flags N Z C V."""
    test = _CONDITIONS.get(cond)
    return True if test is None else bool(test(
        (cpsr >> 31) & 1, (cpsr >> 30) & 1, (cpsr >> 29) & 1, (cpsr >> 28) & 1))


class CycleCounter:
    """Counts what a Machine executes while `run` calls its routines."""

    def __init__(self, machine: Machine) -> None:
        from unicorn import UC_HOOK_CODE, arm_const

        self.machine = machine
        self._uc_regs = arm_const
        self._disasm = {}
        for thumb, mode in ((False, capstone.CS_MODE_ARM), (True, capstone.CS_MODE_THUMB)):
            md = capstone.Cs(capstone.CS_ARCH_ARM, mode)
            md.detail = True
            self._disasm[thumb] = md
        self._decoded: dict[int, _Insn] = {}
        self._cost = Cost()
        machine.uc.hook_add(UC_HOOK_CODE, self._on_code)
        self.enabled = False

    def run(self, name: str, ram: np.ndarray, rom: np.ndarray | None,
            args: Sequence[int] = ()) -> tuple[np.ndarray, int, Cost]:
        """Machine.call (which passes rom to the routines that take it) with its cost counted."""
        self._cost, self.enabled = Cost(), True
        try:
            after, r0 = self.machine.call(name, ram, rom, args)
        finally:
            self.enabled = False
        return after, r0, self._cost

    def _reg(self, insn: Any, reg: int) -> int:
        """unicorn's id of a capstone register (by name: r0..r12, sb, sl, fp, ip, sp, lr, pc)."""
        return int(getattr(self._uc_regs, f"UC_ARM_REG_{insn.reg_name(reg).upper()}"))

    def _decode(self, uc: Any, address: int, size: int) -> _Insn:
        """Classify the instruction at `address` (ARM or Thumb by the CPSR's T bit)."""
        code = bytes(uc.mem_read(address, size))
        thumb = bool(uc.reg_read(self._uc_regs.UC_ARM_REG_CPSR) & 0x20)
        md = self._disasm[thumb]
        insn = next(md.disasm(code, address, 1), None)
        if insn is None:
            raise RuntimeError(f"undecodable instruction {code.hex()} at {address:#x}")
        ops = insn.operands
        pc = ARM_REG_PC
        base = insn.insn_name()
        if base in _MUL_EXTRA:
            rs = ops[2] if base in ("mul", "mla") else ops[3]  # Thumb MULS Rd,Rm,Rd: Rs=Rd
            return _Insn("mul", insn.cc, rs=self._reg(insn, rs.reg),
                         mul_extra=_MUL_EXTRA[base], unsigned=base.startswith("u"))
        if base in ("b", "bl", "bx", "blx"):
            return _Insn("bl_thumb" if thumb and size == 4 else "branch", insn.cc)
        if base.startswith("ldm") or base == "pop":
            regs = [o.reg for o in ops if o.type == 1][(0 if base == "pop" else 1):]
            return _Insn("ldm", insn.cc, writes_pc=pc in regs, nregs=len(regs))
        if base.startswith("stm") or base == "push":
            regs = [o.reg for o in ops if o.type == 1][(0 if base == "push" else 1):]
            return _Insn("stm", insn.cc, nregs=len(regs))
        if base.startswith("ldr"):
            return _Insn("ldr", insn.cc, writes_pc=ops[0].reg == pc)
        if base.startswith("str"):
            return _Insn("str", insn.cc)
        reg_shift = any(o.shift.type in _REG_SHIFT_TYPES for o in ops) or (
            base in _SHIFTS and ops[-1].type == 1)
        writes_pc = bool(ops) and ops[0].type == 1 and ops[0].reg == pc and base not in (
            "cmp", "cmn", "tst", "teq")
        return _Insn("dp", insn.cc, writes_pc=writes_pc, reg_shift=reg_shift)

    def _on_code(self, uc: Any, address: int, size: int, _data: Any) -> None:
        """unicorn's code hook: charge the instruction about to execute."""
        if not self.enabled:
            return
        insn = self._decoded.get(address)
        if insn is None:
            insn = self._decoded[address] = self._decode(uc, address, size)
        cost = self._cost
        cost.instructions += 1
        if insn.cond not in (0, 15) and not _condition_passes(
                insn.cond, uc.reg_read(self._uc_regs.UC_ARM_REG_CPSR)):
            cost.s += 1
            cost.classes["skipped"] += 1
            return
        cost.classes[insn.kind] += 1
        s, n, i = _timing(insn, uc)
        cost.s, cost.n, cost.i = cost.s + s, cost.n + n, cost.i + i


def _timing(insn: _Insn, uc: Any) -> tuple[int, int, int]:
    """(S, N, I) of one executed instruction."""
    if insn.kind == "dp":
        return (2, 1, int(insn.reg_shift)) if insn.writes_pc else (1, 0, int(insn.reg_shift))
    if insn.kind == "mul":
        m = _multiplier_m(uc.reg_read(insn.rs), insn.unsigned)
        return 1, 0, m + insn.mul_extra
    if insn.kind == "ldr":
        return (2, 2, 1) if insn.writes_pc else (1, 1, 1)
    if insn.kind == "str":
        return 0, 2, 0
    if insn.kind == "ldm":
        return (insn.nregs + 1, 2, 1) if insn.writes_pc else (insn.nregs, 1, 1)
    if insn.kind == "stm":
        return insn.nregs - 1, 2, 0
    if insn.kind == "bl_thumb":  # both halves in one hook call: 1S, then 2S+1N
        return 3, 1, 0
    return 2, 1, 0  # branch

