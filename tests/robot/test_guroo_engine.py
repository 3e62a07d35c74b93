"""GuRoo's compiled period engine (robot.guroo_compiled / guroo_sync) against the reference
path (python-can Medium): the same log frame by frame (timestamp ns, ID, data), the same run
report but for the engine fields, the same feedback samples; and which engine ran what."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.bus.log_reader import read_log
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.robot_file import load as load_robot

GUROO_FILE = load_robot("guroo")

ENGINE_FIELDS = ("engine", "engine_periods", "engine_fallback")


def _run(log: Path, durations: list[float], **config) -> tuple[dict, list, DescribedRobot]:
    robot = DescribedRobot(GUROO_FILE, DescribedConfig(log_path=str(log), keep_records=True,
                                                  **config))
    for seconds in durations[:-1]:
        robot.env.run(until=robot.env.now + round(seconds * 1e9))  # a run in pieces
    robot.run(durations[-1])
    frames = [(round(m.timestamp * 1e9), m.arbitration_id, bytes(m.data)) for m in read_log(log)]
    return robot.report(1.0), frames, robot


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**16), loop=st.sampled_from(["2002", "2khz"]),
       durations=st.sampled_from([[0.3], [0.1234567, 0.1], [0.0421, 0.2003]]))
def test_compiled_engine_equals_reference_frame_by_frame(tmp_path_factory, seed: int, loop: str,
                                                         durations: list[float]) -> None:
    tmp = tmp_path_factory.mktemp("ceq")
    compiled, frames_c, robot_c = _run(tmp / "c.log", durations, seed=seed, loop=loop)
    reference, frames_r, robot_r = _run(tmp / "r.log", durations, seed=seed, loop=loop,
                                        engine="reference")
    assert compiled["engine"] == "compiled" and reference["engine"] == "reference"
    periods = compiled["engine_periods"]
    assert periods["compiled"] > 10 * periods["period"] > 0  # boot and the run's end in Python
    assert len(frames_c) > 1000 and frames_c == frames_r
    strip = [{k: v for k, v in r.items() if k not in (*ENGINE_FIELDS, "bus_load_pct")}
             for r in (compiled, reference)]
    assert strip[0] == strip[1]
    assert compiled["bus_load_pct"] == pytest.approx(reference["bus_load_pct"], abs=1e-9)
    samples = [r.nodes["CENTRAL"].samples for r in (robot_c, robot_r)]  # type: ignore[attr-defined]
    assert len(samples[0]) > 100 and samples[0] == samples[1]


def test_a_period_the_engine_does_not_model_runs_on_the_lean_bus(tmp_path: Path) -> None:
    """Pacing to wall time runs period by period; a fault script on the reference path."""
    paced = DescribedRobot(GUROO_FILE, DescribedConfig(realtime_factor=50.0))
    assert paced.engine == "period" and "--realtime" in paced.engine_fallback  # type: ignore[operator]
    faulty = DescribedRobot(GUROO_FILE, DescribedConfig(faults=["node 2 silent at 0.1s"]))
    assert faulty.engine == "reference"
    with pytest.raises(ValueError, match="engine compiled: a run paced"):
        DescribedRobot(GUROO_FILE, DescribedConfig(engine="compiled", realtime_factor=2.0))
    period = DescribedRobot(GUROO_FILE, DescribedConfig(engine="period"))
    assert period.engine == "period" and period.compiled is None


def test_a_full_batch_of_250_periods_equals_the_reference(tmp_path: Path) -> None:
    """One piece long enough for batches of BATCH periods (the frame and sample buffers filled
    exactly), then a short one: the same log, report and samples."""
    from servobus.robot.guroo_sync import BATCH

    compiled, frames_c, robot_c = _run(tmp_path / "c.log", [1.1, 0.01])
    reference, frames_r, robot_r = _run(tmp_path / "r.log", [1.1, 0.01], engine="reference")
    assert compiled["engine_periods"]["compiled"] > 2 * BATCH == 500
    assert frames_c == frames_r
    strip = [{k: v for k, v in r.items() if k not in (*ENGINE_FIELDS, "bus_load_pct")}
             for r in (compiled, reference)]
    assert strip[0] == strip[1]
    samples = [r.nodes["CENTRAL"].samples for r in (robot_c, robot_r)]  # type: ignore[attr-defined]
    assert samples[0] == samples[1]
