"""Logs as they come (issue 25, class 3): clocks that overflow, go back or stand still, stuck or
restarted TICK sequences, another robot's frames, CAN FD and zero-length ticks.  Each is a
correct result with a warning naming the first line concerned, or `error: FILE:LINE: ...` with
exit 2, through every command that reads logs; never a traceback or a silent wrong figure."""

import json
from pathlib import Path
from typing import Any

import can
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servobus.bus.load_meter import LoadMeter
from servobus.bus.log_reader import read_log
from servobus.bus.recorder import REPLAY_IDLE_S, long_gaps
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.bus.timing import Period, analyze, fitted_period
from servobus.tools.cli import main

PERIODS = 10  # 16 frames each, a tick first
SUFFIXES = (".log", ".asc", ".blf")


def recorded(tmp_path: Path) -> list[can.Message]:
    """The frames of a real simulated run."""
    path = tmp_path / "run.blf"
    ScheduleSim(Schema(), log_path=str(path)).run(PERIODS * 0.004)
    return list(read_log(path))


def written(path: Path, messages: list[can.Message]) -> Path:
    with can.Logger(str(path)) as writer:
        for msg in messages:
            writer.on_message_received(msg)
    return path


def copy(msg: can.Message, **changes: object) -> can.Message:
    names = ("timestamp", "arbitration_id", "is_extended_id", "is_remote_frame", "is_fd", "dlc",
             "data", "channel")
    fields: dict[str, Any] = {k: getattr(msg, k) for k in names}
    fields.update(changes)
    if "data" in changes and "dlc" not in changes:
        fields["dlc"] = len(fields["data"])
    return can.Message(**fields)


def line_of(path: Path, k: int) -> str:
    """Where the k-th frame (0-based) of a log written by `written` is, as errors name it."""
    if path.suffix == ".blf":
        return f"{path}: frame {k + 1}"
    skip = 0 if path.suffix == ".log" else next(
        n for n, line in enumerate(path.read_text().splitlines(), start=1)
        if "Start of measurement" in line)
    return f"{path}:{skip + k + 1}"


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict, str]:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out) if code == 0 else {}, err


def commands(path: Path) -> list[list[str]]:
    return [["analyze", "timing", "--log", str(path)], ["busload", "--log", str(path)],
            ["log", "replay", str(path), "--interface", "virtual", "--channel", "as-they-come"]]


@pytest.mark.parametrize("suffix", [".log", ".asc"])
@pytest.mark.parametrize("stamp", [1e308, 1e12])
def test_a_clock_beyond_the_year_9999_is_an_error_at_its_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str, stamp: float) -> None:
    messages = recorded(tmp_path)
    messages[20] = copy(messages[20], timestamp=stamp)
    path = written(tmp_path / f"overflow{suffix}", messages)
    for argv in commands(path):
        code, _, err = run(capsys, argv)
        assert code == 2 and err == f"error: {line_of(path, 20)}: timestamp {stamp:g} s is " \
                                    "after the year 9999\n", err


@pytest.mark.parametrize("stamp", ["nan", "inf", "1e308", "-1.0"])
def test_asc_frame_lines_python_can_would_skip_are_errors(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, stamp: str) -> None:
    path = tmp_path / "odd.asc"
    path.write_text("date Fri Nov 27 01:00:00.000 pm 2026\nbase hex  timestamps absolute\n"
                    f"Begin TriggerBlock\n 0.0 1  10   Rx   d 1 00\n {stamp} 1  10   Rx   d 1 01\n"
                    "End TriggerBlock\n")
    for argv in commands(path):
        code, _, err = run(capsys, argv)
        assert code == 2 and err.startswith(f"error: {path}:5: not a .asc frame line"), err


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_time_going_back_is_read_in_time_order_with_a_warning(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str) -> None:
    messages = recorded(tmp_path)
    shuffled = messages[:40] + messages[48:56] + messages[40:48] + messages[56:]
    in_order = written(tmp_path / f"in-order{suffix}", messages)
    path = written(tmp_path / f"back{suffix}", shuffled)
    notes: list[str] = []
    assert [m.timestamp for m in read_log(path, notes.append)] == \
        [m.timestamp for m in read_log(in_order)]
    assert len(notes) == 1 and notes[0].startswith(f"{line_of(path, 48)}: time goes back: 8 "
                                                   "frames are earlier than a frame before them")
    for argv, same in zip(commands(path), commands(in_order), strict=True):
        code, report, err = run(capsys, argv)
        assert code == 0 and err.startswith(f"warning: {line_of(path, 48)}: time goes back")
        assert report == {k: (str(path) if v == str(in_order) else v) for k, v in
                          run(capsys, same)[1].items()}


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_tick_sequence_that_never_changes_is_timed_by_the_timestamps(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str) -> None:
    """Before: ZeroDivisionError in fitted_period."""
    messages = [copy(m, data=b"\x07") if m.arbitration_id == 0x010 else m
                for m in recorded(tmp_path)]
    path = written(tmp_path / f"stuck{suffix}", messages)
    code, r, err = run(capsys, commands(path)[0])
    assert code == 0 and r["ticks"] == PERIODS
    assert r["fitted_period_us"] == pytest.approx(4000, rel=1e-4)
    assert r["slips"] == {"gaps": 0, "ticks_missing": 0} and r["missing_meas"]["frames"] == 0
    assert r["ticks_placed_by_time"] == PERIODS - 1 and r["repeated_ticks"] == 0
    assert err == f"warning: {line_of(path, 16)}: the TICK repeats the sequence number of the " \
                  f"tick before: {PERIODS - 1} such ticks placed by their timestamps (0 of them " \
                  "within half a period: the same tick again)\n"


def test_a_tick_seen_twice_is_one_period(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    messages = recorded(tmp_path)
    again = copy(messages[16], timestamp=messages[16].timestamp + 0.0001)
    path = written(tmp_path / "twice.log", [*messages[:17], again, *messages[17:]])
    code, r, err = run(capsys, commands(path)[0])
    assert code == 0 and r["ticks"] == PERIODS and r["repeated_ticks"] == 1
    assert r["slips"]["gaps"] == 0 and "1 such ticks placed by their timestamps (1 of" in err


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_another_robots_log_is_an_error_naming_the_first_foreign_frame(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str) -> None:
    """GuRoo's VEL_SP_1 (0x010, 8 bytes, every 2 ms) and ANNOUNCE_1 (0x021, 8 bytes): before,
    50 "ticks" and a fitted period of 2 ms for a 4 ms grid, without a word."""
    guroo = Schema(Path(Schema().path).with_name("guroo.dbc"), required=())
    names = [s.name for s in guroo.message("VEL_SP_1").signals]
    messages = []
    for k in range(50):
        _, data = guroo.encode_data("VEL_SP_1", dict.fromkeys(names, 0))
        messages.append(can.Message(timestamp=1 + 0.002 * k, arbitration_id=0x010, data=data,
                                    is_extended_id=False))
    messages.append(can.Message(timestamp=1.2, arbitration_id=0x021, data=bytes([1, 0]) * 4,
                                is_extended_id=False))
    path = written(tmp_path / f"guroo{suffix}", messages)
    code, _, err = run(capsys, commands(path)[0])
    assert code == 2 and err.startswith(
        f"error: {line_of(path, 0)}: ID 0x010 with 8 data bytes is not servobus.dbc's frame of "
        "that ID: the log holds no servobus.dbc TICK (ID 0x010, 1 byte): nothing to time")
    code, _, err = run(capsys, commands(path)[0] + ["--dbc", str(guroo.path)])
    assert code == 2 and err.endswith("guroo.dbc: the schema has no message TICK\n")


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_zero_length_ticks_are_left_out_and_named(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path, suffix: str) -> None:
    messages = recorded(tmp_path)
    empty = copy(messages[16], data=b"", timestamp=messages[16].timestamp + 0.0001)
    path = written(tmp_path / f"mixed{suffix}", [*messages[:17], empty, *messages[17:]])
    code, r, err = run(capsys, commands(path)[0])
    assert code == 0 and r["ticks"] == PERIODS and r["frames_not_in_schema"] == 1
    assert f"warning: {line_of(path, 17)}: ID 0x010 with 0 data bytes is not servobus.dbc's " \
           "frame of that ID: 1 such frames left out" in err
    only = written(tmp_path / f"only{suffix}", [copy(m, data=b"") for m in messages
                                                if m.arbitration_id == 0x010])
    code, _, err = run(capsys, commands(only)[0])
    assert code == 2 and err.startswith(f"error: {line_of(only, 0)}: ID 0x010 with 0 data bytes")


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_can_fd_frames_on_a_classic_bus_are_errors_at_their_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str) -> None:
    messages = recorded(tmp_path)
    messages.insert(30, can.Message(timestamp=messages[29].timestamp, arbitration_id=0x101,
                                    is_extended_id=False, is_fd=True, data=bytes(12)))
    path = written(tmp_path / f"fd{suffix}", messages)
    timing, busload = commands(path)[:2]
    code, _, err = run(capsys, timing)
    assert code == 2 and err == f"error: {line_of(path, 30)}: a CAN FD frame (ID 0x101) on a " \
                                "classic CAN bus (1000 kbit/s): its length needs the bus's data " \
                                "bit rate (--data-bitrate)\n"
    code, _, err = run(capsys, busload)
    assert code == 2 and err.startswith(f"error: {line_of(path, 30)}: a CAN FD frame (ID 0x101, "
                                        "at ") and err.endswith(
        " s) on a classic CAN bus (1000 kbit/s): its load needs the bus's data bit rate\n")
    code, report, err = run(capsys, [*timing, "--data-bitrate", "5M"])  # 12 bytes: not MEAS_1
    assert code == 0 and report["frames_not_in_schema"] == 1 and report["ticks"] == PERIODS
    assert f"warning: {line_of(path, 30)}: ID 0x101 with 12 data bytes (CAN FD) is not " \
           "servobus.dbc's frame of that ID: 1 such frames left out" in err


def test_a_fitted_period_far_off_the_nominal_is_said(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    path = written(tmp_path / "run.log", recorded(tmp_path))
    code, r, err = run(capsys, [*commands(path)[0], "--period", "8ms"])
    assert code == 0 and r["fitted_period_us"] == pytest.approx(4000, rel=1e-4)
    assert err == f"warning: the fitted period {r['fitted_period_us']:.3f} us is 50% off the " \
                  "nominal 8000 us: the " \
                  "log's period is not --period, or its TICK sequence numbers do not count ticks\n"
    code, _, err = run(capsys, commands(path)[0])
    assert code == 0 and err == ""


def test_a_restarted_tick_sequence_is_reported(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    messages = [copy(m, data=bytes([(m.data[0] + 200) % 256 if m.timestamp < 0.02 else 0]))
                if m.arbitration_id == 0x010 else m for m in recorded(tmp_path)]
    path = written(tmp_path / "restart.log", messages)
    code, r, err = run(capsys, commands(path)[0])
    assert code == 0 and r["ticks_off_their_sequence"] == 1
    first = next(k for k, m in enumerate(messages) if m.arbitration_id == 0x010 and
                 m.timestamp >= 0.02)
    assert f"warning: {line_of(path, first)}: the TICK sequence and the timestamps disagree" in err


def test_fitted_period_needs_two_indices() -> None:
    assert fitted_period([]) is None and fitted_period([Period(1.0, 3, 0.99)]) is None
    assert fitted_period([Period(1.0, 3, 1.0), Period(1.5, 3, 1.5)]) is None
    assert fitted_period([Period(1.0, 3, 1.0), Period(1.5, 4, 1.5)]) == pytest.approx(0.5)


def test_replay_names_the_gaps_it_cuts(tmp_path: Path) -> None:
    messages = recorded(tmp_path)[:3]
    messages[2] = copy(messages[2], timestamp=messages[1].timestamp + REPLAY_IDLE_S + 1)
    assert long_gaps(messages) == [2] and long_gaps(messages[:2]) == []


@pytest.fixture(scope="module")
def run_frames(tmp_path_factory: pytest.TempPathFactory) -> list[can.Message]:
    return recorded(tmp_path_factory.mktemp("run"))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), suffix=st.sampled_from(SUFFIXES))
def test_any_order_of_a_logs_frames_gives_the_same_reports(
        tmp_path_factory: pytest.TempPathFactory, run_frames: list[can.Message],
        data: st.DataObject, suffix: str) -> None:
    """Whatever order a recorder wrote the frames in, timing and load are those of the run,
    with one warning naming the first line where time goes back (none when in order)."""
    # the first frame stays first: python-can's .asc writer counts time from the first frame
    # it writes (and writes an earlier one's time as it is)
    shuffled = [run_frames[0], *data.draw(st.permutations(run_frames[1:]))]
    folder = tmp_path_factory.mktemp("order")
    path = written(folder / f"any{suffix}", shuffled)
    run = read_log(written(folder / f"run{suffix}", run_frames))  # the format's rounding
    notes: list[str] = []
    log = read_log(path, notes.append)
    assert [m.timestamp for m in log] == [m.timestamp for m in run]
    back = [k for k in range(1, len(shuffled))
            if shuffled[k].timestamp < max(m.timestamp for m in shuffled[:k])]
    if back:
        assert len(notes) == 1 and notes[0].startswith(
            f"{line_of(path, back[0])}: time goes back: {len(back)} frames are earlier")
    else:
        assert notes == []
    assert analyze(log, 4_000_000) == analyze(run, 4_000_000)
    assert LoadMeter().add_all(log).report() == LoadMeter().add_all(run).report()


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_log_without_ticks_is_an_error_naming_the_file(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str) -> None:
    path = written(tmp_path / f"no-tick{suffix}",
                   [m for m in recorded(tmp_path) if m.arbitration_id != 0x010])
    code, _, err = run(capsys, commands(path)[0])
    assert code == 2 and err == f"error: {path}: the log holds no TICK frame (ID 0x010): " \
                                "nothing to time\n"
