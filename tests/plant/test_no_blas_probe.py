"""Start-up: loading numba's CPU target for the kernels does not import scipy.linalg (numba's
BLAS probe, ~0.3 s), and the kernels still run; scipy.linalg stays importable afterwards."""

import subprocess
import sys

PROBE = """
import sys
from servobus.plant.board_node import can_tick_fast
from servobus.robot.assembly import Robot, RobotConfig
robot = Robot(RobotConfig())
robot.run(0.008)
assert robot.frames > 0
print(sorted(n for n in sys.modules if n.startswith('scipy.linalg')))
import scipy.linalg
print(scipy.linalg.solve([[2.0]], [4.0])[0])
"""


def test_a_run_loads_its_kernels_without_importing_scipy_linalg() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    assert out[0] == "[]" and float(out[1]) == 2.0
