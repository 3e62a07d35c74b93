"""The run loop's chunks (robot/advance.py): every pause 1 ns before a period boundary, and a
chunk from such a pause spans whole periods (it once lost one period per chunk, so that the
compiled engine split each 1 s chunk into two batches)."""

from hypothesis import given
from hypothesis import strategies as st

from servobus.bus.scheduler import NS_PER_S, Environment
from servobus.robot.advance import advance

PERIOD_NS = 4_000_000


@given(st.integers(1, 40), st.sampled_from([0.1, 0.5, 1.0]), st.integers(0, 3))
def test_chunks_span_whole_periods_between_pauses_before_a_boundary(
        periods: int, chunk_s: float, start_periods: int) -> None:
    env = Environment()
    env.advance(start_periods * PERIOD_NS)
    start = env.now
    seen: list[float] = []
    advance(env, periods * chunk_s, PERIOD_NS, chunk_s, seen.append)
    chunk_ns = round(chunk_s * NS_PER_S)
    pauses = [start + round(sum(seen[:k + 1]) * NS_PER_S) for k in range(len(seen) - 1)]
    assert env.now == start + periods * chunk_ns
    assert len(seen) == periods
    assert pauses == [start + (k + 1) * chunk_ns - 1 for k in range(periods - 1)]


def test_each_compiled_chunk_is_one_batch(monkeypatch) -> None:
    """A 10 s run on the compiled engine runs every period but its first (the warm-up's last,
    cut by its end) compiled, its second 5 s chunk (``CHUNK_S``) in one call; the first chunk
    splits once, at the boards' first STATUS timers after that period (they fired on the
    LeanBus, and their next firing is an event the engine leaves to Python)."""
    from servobus.robot import engine_compiled as ec
    from servobus.robot.advance import CHUNK_S
    from servobus.robot.assembly import Robot, RobotConfig

    robot = Robot(RobotConfig(engine="compiled"))
    robot.run(0.1)
    calls: list[int] = []
    inner = ec.fast_forward_c

    def counted(n: int, *rest: object) -> int:
        calls.append(n)
        return inner(n, *rest)

    monkeypatch.setattr(ec, "fast_forward_c", counted)
    robot.run(2 * CHUNK_S)
    per_chunk = round(CHUNK_S / 0.004)
    assert calls == [24, per_chunk - 25, per_chunk]
