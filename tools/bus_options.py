"""Command-line options shared by the commands on a bus: which python-can bus, and the
measurement frame size (light: no plant or kernel imports)."""

import argparse

from servobus.bus.factory import INTERFACES
from servobus.bus.schema import MEAS_BYTES
from servobus.tools import units


def add_bus_arguments(parser: argparse.ArgumentParser, default: str | None = "virtual",
                      help: str | None = None) -> None:
    """--interface (a python-can bus: not the in-process simulated one) and --channel."""
    parser.add_argument("--interface", choices=INTERFACES[1:], default=default, help=help)
    parser.add_argument("--channel", default="servobus",
                        help="e.g. vcan0, a virtual channel name, ws://127.0.0.1:54701/")


def add_meas_bytes_argument(parser: argparse.ArgumentParser, default: int | str | None = 2,
                            help: str | None = None) -> None:
    """--meas-bytes: the 2-byte (position) or 6-byte (position, supply, current) MEAS frames
    (`default` argparse.SUPPRESS: absent unless given)."""
    parser.add_argument("--meas-bytes", type=int, choices=MEAS_BYTES, default=default, help=help)


def add_frames_argument(parser: argparse.ArgumentParser) -> None:
    """--frames N: a live capture ends after N frames (as candump -n does), or at --duration."""
    parser.add_argument("--frames", type=units.FRAMES, default=None,
                        help="stop after this many frames (or at --duration, whichever is first)")
