"""The shipped CAN FD robot (spejbl-fd: SPEJBL at 1/5 Mbit/s, one 24-byte ACTUATION) runs on
every engine to the same log, byte for byte, and the same report; its frames on the wire are
FD frames with BRS, timed as ``frame_bits_fd`` counts them; a cyclic robot (GuRoo's kinds) on
CAN FD the same."""

from itertools import pairwise
from pathlib import Path

import can
import pytest

from servobus.bus.bit_timing import BitTiming
from servobus.bus.controller import InvalidFrame
from servobus.bus.log_reader import read_log
from servobus.bus.period_engine import LeanBus
from servobus.bus.scheduler import Environment
from servobus.robot.assembly import Robot, RobotConfig
from servobus.robot.described import DescribedConfig, DescribedRobot
from servobus.robot.engine_run import NodeBus
from servobus.robot.robot_file import load
from servobus.tools.cli import main

NOT_COMPARED = ("wall_time_s", "rtf", "engine", "engine_periods", "engine_fallback")


def run(tmp: Path, engine: str, seconds: float, suffix: str = ".log",
        **kwargs: object) -> tuple[bytes, dict]:
    log = tmp / f"{engine}{suffix}"
    robot = Robot(RobotConfig(robot="spejbl-fd", engine=engine, log_path=str(log), **kwargs))
    robot.run(seconds)
    report = robot.report(1.0)
    return log.read_bytes(), report


@pytest.mark.parametrize("kwargs", [{}, {"mode": "local-p", "seed": 3}])
def test_every_engine_writes_the_same_fd_log(tmp_path: Path, kwargs: dict) -> None:
    """0.25 s (63 ticks, 0 to 248 ms) on the reference medium, the LeanBus and the compiled loop."""
    ref_log, ref = run(tmp_path, "reference", 0.25, **kwargs)
    for engine in ("period", "auto"):
        log, report = run(tmp_path, engine, 0.25, **kwargs)
        assert log == ref_log, engine
        assert {k: v for k, v in report.items() if k not in NOT_COMPARED} == \
            {k: v for k, v in ref.items() if k not in NOT_COMPARED}
    assert report["engine"] == "compiled" and report["engine_periods"]["compiled"] > 55
    assert ref["ticks"] == 63 and ref["slips"] == 0 and not ref["servo_faults"]
    assert ref["rx_faults"] == ref["tx_faults"] == 0


def test_the_period_is_fd_frames_back_to_back(tmp_path: Path) -> None:
    """A period's frames: TICK, 12 MEAS6 and one 24-byte ACTUATION_1, all FD with BRS; within
    the measurement burst each frame ends one frame time after the one before (the boards queue
    at the TICK's end, so the wire never idles), that time the exact FD length at 1/5 Mbit/s."""
    run(tmp_path, "auto", 0.05, ".blf")  # nanosecond stamps (candump's are microseconds)
    frames: list[can.Message] = list(read_log(tmp_path / "auto.blf"))
    assert all(m.is_fd and m.bitrate_switch and not m.error_state_indicator for m in frames)
    actuation = [m for m in frames if m.arbitration_id == 0x20]
    assert actuation and all(len(m.data) == 24 for m in actuation)
    timing = BitTiming(1_000_000, 5_000_000)
    tick = next(k for k, m in enumerate(frames) if m.arbitration_id == 0x10 and k > 0)
    burst = frames[tick:tick + 13]
    assert [m.arbitration_id for m in burst] == [0x10, *range(0x111, 0x11D)]
    for before, after in pairwise(burst):
        assert round((after.timestamp - before.timestamp) * 1e9) == timing.frame_ns(after)


def test_a_cyclic_robot_on_can_fd_runs_equal_on_every_engine(tmp_path: Path) -> None:
    """guroo-arm on a 1/2 Mbit/s CAN FD bus (its DBC generated FD): set-points and feedback as
    FD frames with BRS, the same log from the reference medium, the LeanBus and the compiled
    loop; a feedback frame (8 bytes) lasts its exact FD length."""
    toml = tmp_path / "arm-fd.toml"
    toml.write_text('base = "guroo-arm"\nname = "arm-fd"\n\n[bus]\ndata_bitrate = 2000000\n'
                    'dbc = "arm-fd.dbc"\n')
    assert main(["robot", "dbc", str(toml), "--out", str(tmp_path / "arm-fd.dbc")]) == 0
    logs, reports = [], []
    for engine in ("reference", "period", "auto"):
        log = tmp_path / f"{engine}.blf"
        robot = DescribedRobot(load(str(toml)), DescribedConfig(engine=engine,
                                                                log_path=str(log)))
        robot.run(0.2)
        reports.append({k: v for k, v in robot.report(1.0).items() if k not in NOT_COMPARED})
        logs.append(log.read_bytes())
    assert logs[0] == logs[1] == logs[2] and reports[0] == reports[1] == reports[2]
    assert robot.engine == "compiled"
    frames = list(read_log(tmp_path / "auto.blf"))
    assert len(frames) > 200 and all(m.is_fd and m.bitrate_switch for m in frames)
    timing = BitTiming(1_000_000, 2_000_000)
    ends = [round(m.timestamp * 1e9) for m in frames]
    back_to_back = [(a, b) for (a, b), m in zip(pairwise(ends), frames[1:], strict=True)
                    if b - a == timing.frame_ns(m)]
    assert len(back_to_back) > len(frames) // 3


def test_the_period_engine_bus_takes_frames_in_their_dbc_format_only() -> None:
    """A node's can.Message on the LeanBus: its ID's format on this bus (FD with BRS for
    0x20, classic for 0x30) or InvalidFrame, as the reference medium would carry it; what a
    controller refuses is refused here too."""
    lean = LeanBus(Environment(), BitTiming(1_000_000, 5_000_000), {0x20: True})
    lean.attach("A", {})
    bus = NodeBus(lean, 0)
    bus.send(can.Message(arbitration_id=0x20, data=bytes(24), is_fd=True, bitrate_switch=True,
                         is_extended_id=False))
    bus.send(can.Message(arbitration_id=0x30, data=b"\x01", is_extended_id=False))
    for wrong in (can.Message(arbitration_id=0x20, data=bytes(8), is_extended_id=False),
                  can.Message(arbitration_id=0x20, data=bytes(24), is_fd=True,
                              is_extended_id=False),
                  can.Message(arbitration_id=0x30, data=b"\x01", is_fd=True,
                              is_extended_id=False),
                  can.Message(arbitration_id=0x20, data=bytes(13), is_fd=True,
                              bitrate_switch=True, is_extended_id=False)):
        with pytest.raises(InvalidFrame):
            bus.send(wrong)
