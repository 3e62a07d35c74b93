"""Robot-level script lines (faults and operator actions) read word by word against their
usage, so that an unknown word is named (``node 5 explodes at 1s``: 'explodes')."""

from servobus.bus.faults import (
    BUS_FAULTS,
    FaultScriptError,
    check_before_end,
    fit_words,
    parse_duration,
)


def script_words(kind: str, line: str, usages: dict[str, str]) -> list[str]:
    """The values of a robot-level script line whose first word is a key of `usages`; an
    unknown first word or a word that does not fit its usage is named in the error."""
    words = line.split()
    try:
        if not words or words[0] not in usages:
            first = words[0] if words else ""
            known = ", ".join(usages) if kind == "action" else ", ".join([*usages, *BUS_FAULTS])
            raise FaultScriptError(f"unknown {kind} {first!r}: use {known}")
        return fit_words(line, usages[words[0]])
    except FaultScriptError as err:
        raise FaultScriptError(f"{kind} {line.strip()!r}: {err}") from None


def script_time(kind: str, line: str, text: str, end_ns: int | None = None) -> int:
    """`parse_duration(text)`, before the run's end `end_ns` (None: not known), with the script
    line named in its error."""
    try:
        at = parse_duration(text)
        check_before_end(at, end_ns)
    except FaultScriptError as err:
        raise FaultScriptError(f"{kind} {line!r}: {err}") from None
    return at
