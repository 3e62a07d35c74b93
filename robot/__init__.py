"""How the robot is put together: time trigger, 12 emulated boards and the PID host on one bus,
and what runs on that assembly (benchmarks, plots, identification)."""
