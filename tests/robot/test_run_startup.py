"""Start-up of `servobus run` (issue 11 item 6): a run imports nothing it does not use."""

import subprocess
import sys

# what only design analyses and plots use (numba itself imports scipy.linalg to find a BLAS)
UNUSED = ("scipy.signal", "scipy.optimize", "scipy.stats", "matplotlib", "pandas")

PROBE = f"""\
import sys
from servobus.tools import cmd_run
from servobus.robot.assembly import Robot, RobotConfig
robot = Robot(RobotConfig())
robot.run(0.004)
robot.report(1.0)
print(" ".join(sorted(n for n in sys.modules if n.startswith({UNUSED!r}))))
"""


def test_a_run_imports_no_design_analysis_or_plotting() -> None:
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "", result.stdout.split()[:8]
