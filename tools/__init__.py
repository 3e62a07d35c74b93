"""The servobus command line and analysis tools."""
