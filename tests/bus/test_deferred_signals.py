"""Held signals: a hold sees a signal an enclosing hold took (an interrupt just before a run's
own hold began stops that run), and a throwaway run's holds hold nothing."""

import signal

import pytest

from servobus.bus.deferred_signals import deferred_signals, undeferred
from servobus.bus.scheduler import Environment
from servobus.robot.advance import advance

PERIOD_NS = 4_000_000


def _ticking() -> tuple[Environment, list[int]]:
    """An environment with an event every period, and the instants it ran."""
    env, seen = Environment(), []

    def tick() -> None:
        seen.append(env.now)
        env.call_at(env.now + PERIOD_NS, tick)

    env.call_at(0, tick)
    return env, seen


def test_a_signal_held_around_a_run_stops_the_run_before_its_first_event() -> None:
    env, seen = _ticking()
    with pytest.raises(KeyboardInterrupt), deferred_signals() as outer:
        signal.raise_signal(signal.SIGINT)  # taken by the outer hold: the run has not begun
        assert outer and len(outer) == 1
        advance(env, 1.0, PERIOD_NS, 0.1)
        assert seen == [] and env.now == 0
    env_free, seen_free = _ticking()
    advance(env_free, 0.02, PERIOD_NS, 0.1)
    assert len(seen_free) == 6  # the same run with no signal: ticks at 0, 4, …, 20 ms


def test_an_inner_hold_alone_is_false_until_it_or_an_outer_one_takes_a_signal() -> None:
    with pytest.raises(KeyboardInterrupt), deferred_signals() as outer:
        with deferred_signals() as inner:
            assert not inner and not outer
            signal.raise_signal(signal.SIGINT)  # the innermost handler takes it
            assert inner and len(outer) == 0
        assert len(outer) == 1  # handed outwards when the inner hold ended


def test_undeferred_holds_hold_nothing() -> None:
    with pytest.raises(KeyboardInterrupt), undeferred(), deferred_signals() as held:
        signal.raise_signal(signal.SIGINT)
        pytest.fail(f"the signal was held: {held}")
