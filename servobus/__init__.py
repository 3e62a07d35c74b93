"""servobus: an emulator of a distributed robot joint-control system on CAN.

The installed package maps the repository's top-level folders to ``servobus.<folder>``:
``servobus.firmware``, ``servobus.plant``, ``servobus.bus``, ``servobus.host``, … .
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("servobus")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
