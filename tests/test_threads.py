"""A run is single-threaded: no BLAS worker threads busy-waiting beside it (servobus sets
OPENBLAS_NUM_THREADS=1 unless the user chose; before, a GuRoo build's expm left OpenBLAS's
threads spinning a second core through a short run: 0.26 s CPU in 0.13 s wall)."""

import os
import subprocess
import sys

PROBE = """
import os, servobus
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.robot_file import load as load_robot

GUROO_FILE = load_robot("guroo")
DescribedRobot(GUROO_FILE, DescribedConfig()).run(0.05)
print(len(os.listdir(f"/proc/{os.getpid()}/task")), os.environ["OPENBLAS_NUM_THREADS"])
"""


def test_a_guroo_run_has_no_blas_threads_unless_asked() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == ["1", "1"]
    env["OPENBLAS_NUM_THREADS"] = "2"  # the user's choice stands
    threads, value = subprocess.run([sys.executable, "-c", PROBE], env=env, check=True,
                                    capture_output=True, text=True).stdout.split()
    assert value == "2" and int(threads) > 1
