"""How a robot is put together from its description: its nodes on one bus, the engines that
run it, and what runs on that assembly (benchmarks, plots, identification)."""
