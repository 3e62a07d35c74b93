"""Build the C firmware (firmware/c) for the LPC2119's ARM7TDMI with the `ziglang` wheel.

`zig cc` cross-compiles and links (ld.lld) the C routines into a freestanding ELF, code from
flash address 0; the EABI software divide ``__aeabi_idiv`` comes from zig's compiler_rt, built
for the same CPU and instruction set (the LPC2119 has no divide instruction; the thesis'
GCC toolchain would link libgcc's, same contract).  ELFs are cached under the user cache dir,
keyed by the sources, compile and link flags, linker script and zig version (never
committed); the loader below reads the loadable segments and the function symbols with a
small ELF32 parser.
"""

import hashlib
import os
import struct
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import servobus.firmware
from servobus.plant.kernel_cache import sources_digest

C_DIR = Path(servobus.firmware.__file__).parent / "c"
ISAS = ("arm", "thumb")
CFLAGS = ("-mcpu=arm7tdmi", "-O2", "-fomit-frame-pointer", "-ffreestanding", "-fwrapv",
          "-std=c99", "-Wall", "-Wextra", "-Werror")
LINKER_SCRIPT = """SECTIONS {
  . = 0x00000000;
  .text : { *(.text .text.*) *(.rodata .rodata.*) }
  . = 0x40000000;
  .data : { *(.data .data.* .bss .bss.* COMMON) }
}
"""
INSTALL_HINT = "pip install 'servobus[oracle]' (the ziglang, unicorn and capstone wheels)"
ORACLE_PACKAGES = ("ziglang", "unicorn", "capstone")


class OracleUnavailable(RuntimeError):
    """The cross compiler or the CPU emulator is not installed."""


@dataclass(frozen=True)
class Image:
    """A linked firmware: loadable (address, bytes) segments and function addresses."""

    isa: str
    segments: tuple[tuple[int, bytes], ...]
    symbols: dict[str, int]  # Thumb functions have bit 0 set, as in the ELF


def require() -> None:
    """OracleUnavailable naming what to install unless the oracle's packages are importable
    (checked before any work that only the oracle needs)."""
    from importlib.util import find_spec

    missing = [name for name in ORACLE_PACKAGES if find_spec(name) is None]
    if missing:
        raise OracleUnavailable(f"the ARM oracle needs {', '.join(missing)}: {INSTALL_HINT}")


def cache_dir() -> Path:
    """Where built ELFs live: $SERVOBUS_CACHE or ~/.cache/servobus, subfolder arm."""
    root = os.environ.get("SERVOBUS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "servobus")
    return Path(root) / "arm"


def _zig_version() -> str:
    """The installed ziglang wheel's version (part of the cache key), or OracleUnavailable."""
    try:
        import ziglang  # noqa: F401  (presence check; the version pins the cache key)
    except ImportError as exc:
        raise OracleUnavailable(f"the ARM oracle needs zig: {INSTALL_HINT}") from exc
    from importlib.metadata import version

    return version("ziglang")


def build(isa: str, entry_points: Sequence[str]) -> Path:
    """The ELF of the C firmware for `isa` ('arm' or 'thumb') keeping `entry_points` (zig
    links with --gc-sections: a function no -u names is dropped), compiled if not cached."""
    if isa not in ISAS:
        raise ValueError(f"isa must be one of {ISAS}, not {isa!r}")
    target = "arm-freestanding-eabi" if isa == "arm" else "thumb-freestanding-eabi"
    flags = ["-target", target, *CFLAGS, "-Wl,--no-entry",
             *(f"-Wl,-u,{name}" for name in sorted(entry_points))]
    key = f"{_zig_version()} {flags} {LINKER_SCRIPT} {sources_digest([C_DIR], ('*.c', '*.h'))}"
    out = cache_dir() / f"servo-{isa}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.elf"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    script = out.with_suffix(".ld")
    script.write_text(LINKER_SCRIPT)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    cmd = [sys.executable, "-m", "ziglang", "cc", *flags, f"-Wl,-T,{script}",
           *(str(s) for s in sorted(C_DIR.glob("*.c"))), "-o", str(tmp)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"zig cc failed ({done.returncode}):\n{done.stderr}")
    tmp.replace(out)
    return out


def read_elf(path: Path, isa: str) -> Image:
    """Parse an ARM ELF32 (little endian): PT_LOAD segments and FUNC symbols."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise ValueError(f"{path}: not a little-endian ELF32 file")
    phoff, shoff = struct.unpack_from("<II", data, 28)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 42)
    segments = []
    for k in range(phnum):
        p_type, offset, vaddr, _, filesz, memsz = struct.unpack_from(
            "<IIIIII", data, phoff + k * phentsize)
        if p_type == 1 and memsz:  # PT_LOAD
            segments.append((vaddr, data[offset:offset + filesz].ljust(memsz, b"\0")))
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + k * shentsize)
                for k in range(shnum)]
    symbols: dict[str, int] = {}
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 16):
            name_off, value, _, info = struct.unpack_from("<IIIB", data, off)
            if info & 0xF == 2:  # STT_FUNC
                start = strtab[4] + name_off
                name = data[start:data.index(b"\0", start)].decode()
                symbols[name] = value
    return Image(isa=isa, segments=tuple(segments), symbols=symbols)


def load(isa: str, entry_points: Sequence[str]) -> Image:
    """Build (or reuse) and parse the firmware image for `isa` with `entry_points`."""
    return read_elf(build(isa, entry_points), isa)
