"""``python -m servobus``: the same command line as the ``servobus`` script."""

from servobus.tools.cli import run

run()
