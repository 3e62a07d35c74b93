"""Start-up of `servobus run` on a warm numba cache (issue 11 item 6: first period <= 1 s).

Two figures, each over several fresh interpreters: the wall time of the whole command
``python -m servobus run --duration 0.004 --json`` (start, one period, report, exit), and
inside a probe that does what the command does, the time from the launch of the process to
the end of its first simulated period, split into imports, building the robot (numba loads
the cached kernels) and the period itself.  Times across processes are ``time.time()``: the
launch is taken by the parent just before it starts the child.  The warm-up run writes
Python's bytecode cache as well as numba's (even where PYTHONDONTWRITEBYTECODE is set: an
installed package has its bytecode; compiling ~90 modules from source costs ~0.1 s per start).
"""

import json
import os
import subprocess
import sys
import time

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
