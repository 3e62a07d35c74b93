"""Errors the tools report to the user as ``error: ...`` (never a traceback)."""


class ServobusError(Exception):
    """A user-facing error: bad option values, bad input files, an unavailable bus."""


def user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions printed as ``error: ...``; imported when a command runs, not at start-up.
    The packages' own input errors (SchemaError, FaultScriptError, TrajectoryError,
    LogReadError) are ValueErrors."""
    import can

    from servobus.bus.factory import BusUnavailable

    return ServobusError, BusUnavailable, can.CanError, ValueError, OSError
