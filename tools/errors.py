"""Errors the tools report to the user as ``error: ...`` (never a traceback)."""


class ServobusError(Exception):
    """A user-facing error: bad option values, bad input files, an unavailable bus."""


def user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions printed as ``error: ...``; imported when a command runs, not at start-up."""
    import can

    from servobus.bus.factory import BusUnavailable
    from servobus.bus.faults import FaultScriptError
    from servobus.bus.schema import SchemaError
    from servobus.host.trajectory import TrajectoryError

    return (ServobusError, SchemaError, FaultScriptError, BusUnavailable, TrajectoryError,
            can.CanError, ValueError, OSError)
