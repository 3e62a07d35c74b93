"""Layers import downwards only; nothing but the command line imports `servobus.tools`."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# package -> the servobus packages it may import (README, "Layout")
ALLOWED = {
    "firmware": set(),
    "presets": {"firmware"},
    "dbc": set(),
    "bus": {"firmware"},
    "plant": {"firmware", "presets", "bus"},
    "analysis": {"firmware", "presets", "plant"},
    "host": {"presets", "bus", "analysis", "plant"},  # plant: kernel_cache for host_step
    "robot": {"firmware", "presets", "bus", "plant", "analysis", "host"},
    "tools": {"firmware", "presets", "bus", "plant", "analysis", "host", "robot", "sweep"},
    "sweep": {"presets", "bus", "host", "robot"},
    "sweeps": set(),
    "robots": set(),
}


def imported_packages(path: Path) -> set[str]:
    """The `servobus.<package>` names a module imports, anywhere in it (lazy imports too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {n.split(".")[1] for n in names if n.startswith("servobus.") and n.count(".") >= 1}


def test_every_package_imports_only_the_layers_below_it() -> None:
    assert set(ALLOWED) == {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"servobus",
                                                                                 "tests"}
    for package, allowed in ALLOWED.items():
        for module in (ROOT / package).rglob("*.py"):
            extra = imported_packages(module) - allowed - {package}
            assert not extra, f"{module.relative_to(ROOT)} imports servobus.{sorted(extra)}"


def test_nothing_imports_bare_top_level_folders() -> None:
    bare = set(ALLOWED)
    for module in ROOT.rglob("*.py"):
        if {".venv", ".ci-venv", ".mypy_cache"} & set(module.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                assert node.module.split(".")[0] not in bare, f"{module}: from {node.module}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] not in bare, f"{module}: import {alias.name}"
