"""The `servobus` command line only: one module per subcommand, each a thin library call."""
