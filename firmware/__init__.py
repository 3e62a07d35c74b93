"""Servo-board firmware: integer-only code as it would run on the LPC2119 (no floats, no I/O)."""
