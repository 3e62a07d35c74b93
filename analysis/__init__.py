"""Analyses of the design: the lifted current loop, step metrics, the CPU budget of the firmware."""
