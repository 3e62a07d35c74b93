"""The compile phase of `servobus run`: numba's compiles measured, announced and kept out of the
run's clock; the cold-compile speed-ups leave results alone; `bench startup --cold`."""

import ctypes
import json
import math

import numba
import pytest
from numba.core import inline_closurecall

from servobus.plant.compile_speed import frame_chunks_kept
from servobus.plant.kernel_cache import cached_njit  # noqa: F401  (installs the inliner's copy)
from servobus.robot.bench_startup import bench_startup_cold, installed_folders
from servobus.robot.compile_phase import COMPILING, CompileClock
from servobus.tools.cli import main


def _arena_allocator() -> tuple[int | None, int | None, int | None]:
    """CPython's current arena allocator (context, alloc, free)."""
    fields = (ctypes.c_void_p * 3)()
    ctypes.pythonapi.PyObject_GetArenaAllocator(ctypes.byref(fields))
    return fields[0], fields[1], fields[2]


def test_the_clock_counts_each_top_level_compile_once_and_announces_it() -> None:
    @numba.njit
    def inner(x: float) -> float:
        return x * 2.0

    @numba.njit
    def outer(x: float) -> float:
        return inner(x) + 1.0

    said: list[str] = []
    clock = CompileClock(said.append)
    with clock.installed():
        assert outer(1.5) == 4.0  # compiles outer, and inner inside it
        assert outer(2.5) == 6.0  # compiled already: no event
    assert clock.compiles == 1
    assert clock.seconds > 0.0
    assert said[0].startswith(f"{COMPILING}") and "outer" in said[0]
    assert said[1].endswith(" s\n") and len(said) == 2
    with clock.installed():
        assert outer(3.5) == 8.0
    assert clock.compiles == 1  # nothing compiled, nothing heard


def _depth(n: int) -> int:
    """n frames deep: crosses CPython's frame-stack chunks on the way down and back."""
    return 0 if n == 0 else 1 + _depth(n - 1)


def test_frame_chunks_are_kept_only_inside_the_block_and_results_do_not_change() -> None:
    own = _arena_allocator()
    with frame_chunks_kept():
        assert _arena_allocator() != own
        assert all(_depth(600) == 600 for _ in range(200))
        kept = [str(k) for k in range(300_000)]  # arenas of small objects, freed after
    assert _arena_allocator() == own
    assert _depth(600) == 600
    assert kept[299_999] == "299999"
    del kept  # its arenas go back through CPython's own allocator


def test_the_scope_sharing_inliner_is_installed_and_inlines_the_same() -> None:
    # what it saves (one scope copy per source scope) is compile time: bench startup --cold
    assert inline_closurecall.InlineWorker.inline_ir.__name__ == "_inline_ir_sharing"

    @numba.njit(inline="always")
    def piece(a: float, b: float) -> float:
        c = a * b
        return c + math.sqrt(abs(c)) if c > 0 else c - a

    @numba.njit
    def twice(a: float, b: float) -> float:
        return piece(a, b) + piece(b, -a)

    for a, b in ((1.5, 2.0), (-3.0, 0.25), (0.0, 7.0)):
        assert twice(a, b) == twice.py_func(a, b)


def test_bench_startup_cold_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "startup", "--robot", "guroo"]) == 2
    assert "--robot applies to bench startup --cold only" in capsys.readouterr().err
    assert main(["bench", "startup", "--duration", "1"]) == 2
    assert "--duration applies" in capsys.readouterr().err
    assert main(["bench", "startup", "--cold", "--runs", "0"]) == 2
    assert "error: argument --runs" in capsys.readouterr().err


def test_the_fresh_copy_holds_every_subpackage_a_run_imports() -> None:
    folders = installed_folders()
    for name in ("servobus", "servobus.bus", "servobus.plant", "servobus.robot",
                 "servobus.tools", "servobus.firmware", "servobus.host", "servobus.presets"):
        assert (folders[name] / "__init__.py").is_file(), name


def test_a_cold_run_reports_its_compile_apart_from_its_wall_time() -> None:
    """One first run from a fresh copy with an empty numba cache (~15 s on 2 cores)."""
    result = bench_startup_cold(runs=1, robot="guroo", duration=0.05)
    assert json.loads(json.dumps(result)) == result
    assert result["runs"] == 1
    assert result["command"].endswith("run --robot guroo --duration 0.05 --json")
    compile_s, wall_s = result["compile_s"]["median"], result["wall_time_s"]["median"]
    assert compile_s > 2.0  # the kernels compiled: nothing came from a cache
    assert wall_s < 1.0 < compile_s  # 0.05 simulated s, the compile not in it
    assert result["command_wall_s"]["min"] > compile_s
    assert result["command_cpu_s"]["min"] > 0.5 * compile_s
    assert result["target_command_wall_s"] == 20.0
