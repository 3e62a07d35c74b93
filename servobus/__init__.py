"""servobus: an emulator of a distributed robot joint-control system on CAN.

The installed package maps the repository's top-level folders to ``servobus.<folder>``:
``servobus.firmware``, ``servobus.plant``, ``servobus.bus``, ``servobus.host``, … .
"""

import os
from importlib.metadata import PackageNotFoundError, version

# servobus' linear algebra is a few small matrices at build time (scipy's expm); after it,
# OpenBLAS's worker threads busy-wait ~0.1 s beside the single-core simulation, a second core's
# worth of CPU through a short run: one BLAS thread unless the user chose (before numpy loads)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

try:
    __version__ = version("servobus")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
