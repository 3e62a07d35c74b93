"""The run loop every robot shares: advance simulated time in chunks, each pause just before a
period boundary, so that a pause (a progress report, Ctrl-C) never cuts a period; and the
engine fields both robots' reports and benches write."""

from collections.abc import Callable
from typing import Any

from servobus.bus.deferred_signals import deferred_signals
from servobus.bus.scheduler import NS_PER_S, Environment

ENGINES = ("auto", "compiled", "period", "reference")  # `--engine`: both robots' choices
CHUNK_S = 5.0  # a compiled engine's pauses (progress, Ctrl-C): fewer, longer batches


def advance(env: Environment, duration_s: float, period_ns: int, chunk_s: float,
            progress: Callable[[float], None] | None = None) -> None:
    """Run `env` for `duration_s`; `progress` hears the simulated seconds of every chunk.
    SIGINT / SIGTERM stop it between two events and are raised once it has stopped."""
    if duration_s <= 0:
        raise ValueError(f"duration must be positive, got {duration_s}")
    end = env.now + round(duration_s * NS_PER_S)
    with deferred_signals() as held:  # Ctrl-C stops between two events: log = report
        while env.now < end and not held:
            before = env.now
            # a chunk from a pause 1 ns before a tick spans whole periods to 1 ns before a tick
            until = min(end, env.now + 1 + round(chunk_s * NS_PER_S))
            if until < end and until // period_ns * period_ns - 1 > before:
                until = until // period_ns * period_ns - 1  # the same events either way
            env.run(until=until, stop=lambda: bool(held))
            if progress is not None:
                progress((env.now - before) / NS_PER_S)


def run_and_close(env: Environment, duration_s: float, period_ns: int, chunk_s: float,
                  progress: Callable[[float], None] | None, close: Callable[[], None]) -> None:
    """A robot's run: `advance`, then `close` (its log) even when interrupted; a signal takes
    effect once the log is closed."""
    with deferred_signals():
        try:
            advance(env, duration_s, period_ns, chunk_s, progress)
        finally:
            close()


def chunk_for(chunk_s: float, compiled: bool) -> float:
    """The run loop's chunk: the one asked for, at least CHUNK_S on a compiled engine."""
    return max(chunk_s, CHUNK_S) if compiled else chunk_s


def engine_fields(robot: Any) -> dict:
    """What a report says of the engine: the one chosen, the periods each engine ran (a
    compiled run) and why a run fell back (if it did)."""
    return {"engine": robot.engine,
            **({"engine_periods": dict(robot.compiled.counts)} if robot.compiled else {}),
            **({"engine_fallback": robot.engine_fallback} if robot.engine_fallback else {})}
