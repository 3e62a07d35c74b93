"""Start-up of `servobus run`: on a warm numba cache (first period <= 1 s), and cold (<= 20 s).

Warm, two figures, each over several fresh interpreters: the wall time of the whole command
``python -m servobus run --duration 0.004 --json`` (start, one period, report, exit), and
inside a probe that does what the command does, the time from the launch of the process to
the end of its first simulated period, split into imports, building the robot (numba loads
the cached kernels) and the period itself.  Times across processes are ``time.time()``: the
launch is taken by the parent just before it starts the child.  The warm-up run writes
Python's bytecode cache as well as numba's (even where PYTHONDONTWRITEBYTECODE is set: an
installed package has its bytecode; compiling ~90 modules from source costs ~0.1 s per start).

Cold (``bench_startup_cold``): the first ``servobus run`` after ``pip install``, each time from a
fresh copy of the installed package's folders without ``__pycache__`` (imported through a finder
that maps ``servobus`` and its subpackages onto the copy, as an editable install's finder maps
them onto the clone) and a fresh empty ``NUMBA_CACHE_DIR``: no bytecode and no compiled kernel,
what a fresh clone has; the third-party packages keep the bytecode their install wrote.
"""

import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from servobus.bus.bench import spread

DURATION = "0.004"  # one 4 ms period
HEAVY = ("scipy.linalg", "matplotlib", "pandas")  # modules a run must not need

PROBE = f"""\
import json, sys, time
from servobus.tools import cmd_run  # what `servobus run` imports
from servobus.robot.assembly import Robot, RobotConfig
imported = time.time()
robot = Robot(RobotConfig())
built = time.time()
robot.run({DURATION})
first = time.time()
heavy = sorted(set(sys.modules) & set({HEAVY!r}))
print(json.dumps({{"imported": imported, "built": built, "first": first, "heavy": heavy}}))
"""


def _command_wall(env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "servobus", "run", "--duration", DURATION, "--json"],
                   check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def _warm_up() -> None:
    """One run that fills numba's cache and Python's bytecode cache, not counted."""
    _command_wall({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})


def _probe() -> dict:
    launched = time.time()
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True,
                         text=True).stdout
    times = json.loads(out.strip().splitlines()[-1])
    return {"imports_s": times["imported"] - launched,
            "robot_built_s": times["built"] - times["imported"],
            "first_period_s": times["first"] - times["built"],
            "to_first_period_s": times["first"] - launched, "heavy": times["heavy"]}


def bench_startup(runs: int = 5) -> dict:
    """`runs` fresh processes of each kind after one that warms the numba cache."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    _warm_up()  # a cold cache compiles here, not in the figures
    walls = [_command_wall() for _ in range(runs)]
    probes = [_probe() for _ in range(runs)]
    result = {"runs": runs, "command": f"python -m servobus run --duration {DURATION} --json",
              "command_wall_s": spread(walls)}
    for key in ("to_first_period_s", "imports_s", "robot_built_s", "first_period_s"):
        result[key] = spread([p[key] for p in probes])
    result["heavy_modules_imported"] = sorted({m for p in probes for m in p["heavy"]})
    result["target_to_first_period_s"] = 1.0
    return result


COLD_TARGET_S = 20.0  # the first run's report within this many wall seconds
# the child of a cold run: servobus and its subpackages from the copies in MAPPING, then the CLI
COLD_CHILD = """\
import sys
from importlib.machinery import PathFinder
from importlib.util import spec_from_file_location

MAPPING = {mapping!r}


class Copies:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name in MAPPING:
            return spec_from_file_location(name, MAPPING[name] + "/__init__.py",
                                           submodule_search_locations=[MAPPING[name]])
        parent = name.rpartition(".")[0]
        return PathFinder.find_spec(name, [MAPPING[parent]]) if parent in MAPPING else None


sys.meta_path.insert(0, Copies)
from servobus.tools.cli import main
sys.exit(main({argv!r}))
"""


def installed_folders() -> dict[str, Path]:
    """The folders of servobus and of each of its subpackages, as imported here."""
    import servobus

    root = Path(servobus.__file__).parent
    folders = {"servobus": root}
    for folder in sorted({*root.iterdir(), *root.parent.iterdir()}):
        if (folder / "__init__.py").is_file() and folder != root:
            spec = importlib.util.find_spec(f"servobus.{folder.name}")
            if spec is not None and spec.submodule_search_locations is not None and \
                    Path(next(iter(spec.submodule_search_locations))) == folder:
                folders[f"servobus.{folder.name}"] = folder
    return folders


def _cold_run(argv: list[str]) -> dict:
    """One `servobus run` (argv) from a fresh copy with an empty numba cache: the command's
    wall and CPU seconds (its process's user + system time) and its report."""
    with tempfile.TemporaryDirectory(prefix="servobus-cold-") as tmp:
        mapping = {}
        for name, folder in installed_folders().items():
            copy = Path(tmp, "src", name)
            shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
            mapping[name] = str(copy)
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp, "numba"))}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        child = subprocess.run([sys.executable, "-c",
                                COLD_CHILD.format(mapping=mapping, argv=argv)],
                               check=False, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - start
        if child.returncode != 0:  # the run's own error, as the user would have seen it
            raise ValueError(f"the cold run `servobus {' '.join(argv)}` failed (exit status "
                             f"{child.returncode}): {child.stderr.strip()[-600:]}")
        out = child.stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "report": json.loads(out)}


def bench_startup_cold(runs: int = 3, robot: str = "spejbl", duration: float = 10.0) -> dict:
    """`runs` first runs (``servobus run --robot ROBOT --duration DURATION --json``), each from
    a fresh copy with an empty numba cache: min / median / max of the command's wall and CPU
    seconds and of its report's ``compile_s``, ``wall_time_s`` and ``rtf``."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    argv = ["run", "--robot", robot, "--duration", repr(duration), "--json"]
    shots = [_cold_run(argv) for _ in range(runs)]
    result: dict = {"runs": runs, "command": "python -m servobus " + " ".join(argv),
                    "command_wall_s": spread([s["wall"] for s in shots]),
                    "command_cpu_s": spread([s["cpu"] for s in shots])}
    for key in ("compile_s", "wall_time_s", "rtf"):
        result[key] = spread([s["report"][key] for s in shots])
    result["target_command_wall_s"] = COLD_TARGET_S
    return result
