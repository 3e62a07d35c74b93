"""Shipped robot description files (docs/robot-file.md) and the DBCs generated for them."""
