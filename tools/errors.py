"""Errors the tools report to the user as ``error: ...`` (never a traceback)."""


class ServobusError(Exception):
    """A user-facing error: bad option values, bad input files, an unavailable bus."""
