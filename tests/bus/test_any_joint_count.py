"""The bus side of a time-triggered robot of any joint count: on generated DBCs of 1, 3, 7 and
16 joints (7 in uneven groups), busload's predicted period and the simulated schedule's frames
and timing, against counts by hand and the can-utils oracle."""

import itertools
from pathlib import Path

import pytest

from servobus.bus.busload import busload
from servobus.bus.dbc_generate import TimeTriggeredBus, generate
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.bus.timing import analyze_log
from tests.bus.canutils_oracle import cfl_exact

# joints -> the host's actuation groups (ACTUATION_k carries 2 bytes per joint)
SHAPES = {1: ((1,),), 3: ((1, 2, 3),), 7: ((1, 2), (3, 4, 5), (6, 7)),
          16: ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16))}
# Davis 2007 worst-case stuffed length of a standard frame of n data bytes, with g = 34 bits of
# SOF..CRC besides the data: g + 8n + 13 + floor((g + 8n - 1) / 4), worked out by hand
DAVIS = {1: 34 + 8 + 13 + 10,     # 65: TICK (seq)
         2: 34 + 16 + 13 + 12,    # 75: MEAS_j, a one-joint ACTUATION
         4: 34 + 32 + 13 + 16,    # 95: a two-joint ACTUATION, STATUS_j
         6: 34 + 48 + 13 + 20,    # 115: MEAS6_j, a three-joint ACTUATION
         8: 34 + 64 + 13 + 24}    # 135: a four-joint ACTUATION
PERIOD_US = 4000  # the generated period, 4 ms; at 1 Mbit/s one bit is 1 us
IFS_BITS = 3  # the intermission after every frame (ISO 11898-1), counted in a frame's length


def dbc_of(folder: Path, joints: int) -> Path:
    """The generated DBC of a robot of `joints` boards in SHAPES' groups, written to `folder`."""
    path = folder / f"r{joints}.dbc"
    path.write_text(generate(TimeTriggeredBus(
        f"{joints} joints", tuple(f"JOINT_{j}" for j in range(1, joints + 1)), SHAPES[joints],
        PERIOD_US // 1000, 1_000_000)).as_dbc_string())
    return path


@pytest.mark.parametrize("meas_bytes", [2, 6])
@pytest.mark.parametrize("joints", sorted(SHAPES))
def test_predicted_period_by_hand(tmp_path: Path, joints: int, meas_bytes: int) -> None:
    groups = SHAPES[joints]
    report = busload(Schema(dbc_of(tmp_path, joints)), meas_bytes=meas_bytes)
    meas = "MEAS6" if meas_bytes == 6 else "MEAS"
    assert [f["name"] for f in report["schedule"]] == [
        "TICK", *(f"{meas}_{j}" for j in range(1, joints + 1)),
        *(f"ACTUATION_{k}" for k in range(1, len(groups) + 1))]
    bits = DAVIS[1] + joints * DAVIS[meas_bytes] + sum(DAVIS[2 * len(g)] for g in groups)
    worst = report["models"]["worst_case"]
    assert worst["frame_bits"] == bits
    assert worst["load_pct"] == pytest.approx(100 * bits / PERIOD_US)
    assert worst["host_window_s"] == pytest.approx((PERIOD_US - bits) * 1e-6)
    # no stuffing at all: 34 + 8n + 13 bits a frame
    assert report["models"]["no_stuffing"]["frame_bits"] == \
        (47 + 8) + joints * (47 + 8 * meas_bytes) + sum(47 + 16 * len(g) for g in groups)


@pytest.mark.parametrize("joints", sorted(SHAPES))
def test_exact_period_agrees_with_can_utils(tmp_path: Path, joints: int) -> None:
    """The robot at rest: TICK seq, positions 512 (bytes 00 02), zero current references."""
    groups = SHAPES[joints]
    exact = busload(Schema(dbc_of(tmp_path, joints)))["exact"]
    rest = sum(cfl_exact(0x100 + j, b"\x00\x02") for j in range(1, joints + 1)) + \
        sum(cfl_exact(0x020 + k, bytes(2 * len(g))) for k, g in enumerate(groups))
    per_seq = [cfl_exact(0x010, bytes([seq])) + rest for seq in range(256)]
    assert (exact["frame_bits"], exact["frame_bits_min"]) == (max(per_seq), min(per_seq))


@pytest.mark.parametrize("joints", sorted(SHAPES))
def test_status_every_100ms_and_the_ticks_response_time(tmp_path: Path, joints: int) -> None:
    """Every cyclic message is timed against its own period; the TICK, the highest priority,
    waits at most for the longest lower-priority cyclic frame (Davis 2007: B + C)."""
    groups = SHAPES[joints]
    rows = {m["name"]: m for m in busload(Schema(dbc_of(tmp_path, joints)))["messages"]}
    status = {f"STATUS_{j}" for j in range(1, joints + 1)}
    assert rows.keys() == {"TICK", *status, *(f"MEAS_{j}" for j in range(1, joints + 1)),
                           *(f"ACTUATION_{k}" for k in range(1, len(groups) + 1))}
    assert {rows[name]["period_s"] for name in status} == {0.1}
    assert {m["period_s"] for name, m in rows.items() if name not in status} == {0.004}
    blocking = max(DAVIS[4], *(DAVIS[2 * len(g)] for g in groups))  # STATUS or an ACTUATION
    assert rows["TICK"]["wcrt_s"] == pytest.approx((blocking + DAVIS[1]) * 1e-6)
    assert all(m["meets_deadline"] for m in rows.values())


@pytest.mark.parametrize("joints", sorted(SHAPES))
def test_simulated_schedule_and_its_timing(tmp_path: Path, joints: int) -> None:
    """50 periods of 0.2 s: every joint answers every tick, the host sends every group's frame,
    and the log's timing finds each of them in every period."""
    groups = SHAPES[joints]
    schema = Schema(dbc_of(tmp_path, joints))
    log = tmp_path / "run.log"
    report = ScheduleSim(schema, log_path=str(log)).run(0.2)
    assert report["host_complete_periods"] == 50
    assert report["frames"] == 50 * (1 + joints + len(groups))
    timing = analyze_log(log, PERIOD_US * 1000, schema)
    assert timing["ticks"] == 50
    assert list(timing["tick_to_meas_us"]) == [f"MEAS_{j}" for j in range(1, joints + 1)]
    assert timing["missing_meas"] == timing["missing_actuation"] == {"periods": 0, "frames": 0}


def test_timing_of_the_legs_simulated_log(tmp_path: Path) -> None:
    """The 6-joint leg (its shipped generated DBC, groups 1-4 and 5-6): the measurements follow
    the tick back to back, each tick-to-MEAS latency the sum of the frames' exact lengths
    (can-utils) up to it; the host answers the last one 200 us later (HostTraffic's compute
    time) and its two actuation frames follow back to back, the last one's end being its
    length less the intermission after it."""
    schema = Schema(Path(__file__).resolve().parents[2] / "robots" / "spejbl-leg.dbc")
    log = tmp_path / "leg.log"
    ScheduleSim(schema, log_path=str(log)).run(0.2)
    timing = analyze_log(log, 4_000_000, schema)
    meas = list(itertools.accumulate(cfl_exact(0x100 + j, b"\x00\x02") for j in range(1, 7)))
    assert {name: (t["min"], t["max"]) for name, t in timing["tick_to_meas_us"].items()} == \
        {f"MEAS_{j}": (meas[j - 1], meas[j - 1]) for j in range(1, 7)}
    last = meas[-1] + 200 + cfl_exact(0x020, bytes(8)) + cfl_exact(0x021, bytes(4)) - IFS_BITS
    assert (timing["tick_to_last_actuation_us"]["min"],
            timing["tick_to_last_actuation_us"]["max"]) == (last, last)
    assert timing["missing_actuation"] == {"periods": 0, "frames": 0}
