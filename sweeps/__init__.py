"""The shipped sweep files (`servobus sweep alpha-scan`, `tuning-map`, `fault-campaign`)."""
