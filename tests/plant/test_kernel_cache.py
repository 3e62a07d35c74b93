"""The kernels' on-disk cache is flushed when a source the kernel inlines changes."""

import importlib.util
import sys
from pathlib import Path

from servobus.plant.kernel_cache import KERNEL_SOURCES, cached_njit, is_cached, sources_digest

KERNEL = "from helper import step\n\n\ndef kernel(x):\n    return step(x)\n"


def _load(folder: Path):
    """Import kernel.py from `folder` afresh (helper.py beside it)."""
    sys.path.insert(0, str(folder))
    try:
        sys.modules.pop("helper", None)
        spec = importlib.util.spec_from_file_location("kernel_mod", folder / "kernel.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(folder))


def test_a_changed_inlined_function_is_recompiled(tmp_path: Path) -> None:
    (tmp_path / "kernel.py").write_text(KERNEL)
    helper = ("from numba.extending import register_jitable\n\n\n@register_jitable\n"
              "def step(x):\n    return x + {}\n")
    (tmp_path / "helper.py").write_text(helper.format(1))
    first = cached_njit(_load(tmp_path).kernel, [tmp_path])
    assert first(1) == 2
    again = cached_njit(_load(tmp_path).kernel, [tmp_path])
    assert again(1) == 2 and sum(again.stats.cache_hits.values()) == 1  # loaded from disk
    (tmp_path / "helper.py").write_text(helper.format(5))  # kernel.py itself is unchanged
    changed = cached_njit(_load(tmp_path).kernel, [tmp_path])
    assert changed(1) == 6 and sum(changed.stats.cache_hits.values()) == 0


def test_the_digest_covers_firmware_and_plant(tmp_path: Path) -> None:
    names = {p.name for folder in KERNEL_SOURCES for p in folder.glob("*.py")}
    assert {"int32.py", "board.py", "rig.py", "frontend.py", "motor.py"} <= names
    (tmp_path / "a.py").write_text("x = 1\n")
    before = sources_digest([tmp_path])
    (tmp_path / "a.py").write_text("x = 2\n")
    assert sources_digest([tmp_path]) != before


def test_is_cached_tells_whether_the_first_call_will_compile(tmp_path: Path) -> None:
    """What `servobus run` asks before building the robot (which compiles on a cold cache)."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    (tmp_path / "helper.py").write_text("from numba.extending import register_jitable\n\n\n"
                                        "@register_jitable\ndef step(x):\n    return x + 1\n")
    cold = cached_njit(_load(tmp_path).kernel, [tmp_path])
    assert not is_cached(cold)
    assert cold(1) == 2
    assert is_cached(cached_njit(_load(tmp_path).kernel, [tmp_path]))
