"""Bad log files through every command that reads logs: a clear error naming the file (and
line or frame), a warning with frame counts for a truncated or unclosed BLF."""

import re
import zlib
from pathlib import Path

import pytest
from can.io.blf import FILE_HEADER_STRUCT, LOG_CONTAINER_STRUCT, OBJ_HEADER_BASE_STRUCT

from servobus.bus.log_reader import LogReadError, LogWarning, read_log
from servobus.bus.schedule_sim import ScheduleSim
from servobus.bus.schema import Schema
from servobus.tools.cli import main

PERIODS = 5  # 16 frames each


def recorded(tmp_path: Path, suffix: str) -> Path:
    path = tmp_path / f"run{suffix}"
    ScheduleSim(Schema(), log_path=str(path)).run(PERIODS * 0.004)
    return path


def frames(messages) -> list[tuple]:
    return [(m.timestamp, m.arbitration_id, bytes(m.data)) for m in messages]


def cli_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err and err.count("\n") == 1
    return err


def commands(path: Path) -> list[list[str]]:
    return [["busload", "--log", str(path)],
            ["log", "replay", str(path), "--interface", "virtual", "--channel", "bad-logs"]]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("garbage.blf", bytes(range(256)) * 4, r"garbage\.blf: not a BLF file \(1024 bytes"),
    ("empty.blf", b"", r"empty\.blf: not a BLF file \(0 bytes"),
    ("bad.log", b"(0.1) can0 101#0002 R\nnot a frame\n", r"bad\.log:2: not a candump frame"),
    ("short.log", b"(0.1) can0 101#0002\n(0.2) can0\n", r"short\.log:2: not a candump"),
    ("odd.log", b"(0.1) can0 101#000\n", r"odd\.log:1: not a candump frame"),
    ("bad.asc", b"date x\nbase hex\n 1.0 1 101 Rx\n", r"bad\.asc:3: not a \.asc frame line"),
    ("binary.log", b"\xff\xfe\x00garbage\n", r"binary\.log:1: not a text log"),
    ("huge-id.log", b"(0.1) can0 801#00\n", r"huge-id\.log:1: CAN ID 0x801 does not fit 11"),
    ("nine.log", b"(0.1) can0 101#001122334455667788\n", r"nine\.log:1: 9 data bytes"),
    ("nan.log", b"(nan) can0 101#00\n", r"nan\.log:1: bad timestamp nan"),
])
def test_malformed_logs_are_errors_naming_the_file(capsys, tmp_path: Path, name: str,
                                                    content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    for argv in commands(path):
        assert re.search(message, cli_error(capsys, argv)), argv


def test_bit_flipped_blf_is_an_error_naming_file_and_frame_count(capsys, tmp_path) -> None:
    path = recorded(tmp_path, ".blf")
    data = bytearray(path.read_bytes())
    data[300] ^= 0x10  # inside the compressed container
    path.write_bytes(bytes(data))
    for argv in commands(path):
        err = cli_error(capsys, argv)
        assert "run.blf: corrupt BLF data after 0 frames (damaged compressed data" in err


def test_half_truncated_blf_warns_with_frames_read_and_header_count(capsys, tmp_path) -> None:
    path = recorded(tmp_path, ".blf")
    full = read_log(path)
    data = path.read_bytes()
    assert FILE_HEADER_STRUCT.unpack_from(data)[12] == len(full) == 16 * PERIODS
    path.write_bytes(data[:len(data) // 2])
    with pytest.warns(LogWarning, match=r"truncated BLF: \d+ of the header's \d+ bytes; "
                                        rf"read \d+ frames of the header's {len(full)} objects"):
        part = read_log(path)
    assert 0 < len(part) < len(full) and frames(part) == frames(full[:len(part)])
    assert main(["busload", "--log", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("warning: ") and f"of the header's {len(full)}" in captured.err
    assert f"frames                {len(part)}" in captured.out


def test_unclosed_blf_header_counts_zero_objects_and_is_flagged(tmp_path) -> None:
    path = recorded(tmp_path, ".blf")
    data = path.read_bytes()
    header = list(FILE_HEADER_STRUCT.unpack_from(data))
    header[12] = 0  # the object count, as left by a writer killed before stop()
    path.write_bytes(FILE_HEADER_STRUCT.pack(*header) + data[FILE_HEADER_STRUCT.size:])
    notes: list[str] = []
    assert len(read_log(path, notes.append)) == 16 * PERIODS
    assert notes == [f"{path}: the BLF header counts 0 objects (its writer never closed it); "
                     f"read {16 * PERIODS} frames"]


@pytest.mark.parametrize("suffix", [".log", ".asc"])
def test_cut_text_log_warns_and_keeps_the_whole_lines(tmp_path, suffix: str) -> None:
    path = recorded(tmp_path, suffix)
    full = read_log(path)
    text = path.read_bytes()
    path.write_bytes(text[:text.rindex(b"\n", 0, len(text) // 2) + 1])
    notes: list[str] = []
    part = read_log(path, notes.append)
    assert 0 < len(part) < len(full) and frames(part) == frames(full[:len(part)])
    if suffix == ".asc":
        assert notes == [f"{path}: no 'End TriggerBlock' (file truncated or never closed)"]
    else:
        assert notes == []
    path.write_bytes(text[:text.rindex(b"\n", 0, len(text) // 2) + 5])
    notes.clear()
    read_log(path, notes.append)
    assert len(notes) == 1 and "the last line is cut" in notes[0]


def test_intact_logs_read_without_warnings_in_all_formats(tmp_path, recwarn) -> None:
    frames = {s: read_log(recorded(tmp_path, s)) for s in (".log", ".asc", ".blf")}
    assert len(recwarn) == 0
    ids = {s: [(m.arbitration_id, bytes(m.data)) for m in f] for s, f in frames.items()}
    assert ids[".log"] == ids[".asc"] == ids[".blf"] and len(ids[".log"]) == 16 * PERIODS
    with pytest.raises(LogReadError, match="unknown log format"):
        read_log(Path(__file__))


def test_blf_object_of_size_zero_is_an_error_not_an_endless_loop(capsys, tmp_path) -> None:
    """python-can's BLF parser yields the same frame forever for an object of size 0."""
    path = recorded(tmp_path, ".blf")
    data = path.read_bytes()
    start = FILE_HEADER_STRUCT.unpack_from(data)[1]
    sig, size, version, obj_size, obj_type = OBJ_HEADER_BASE_STRUCT.unpack_from(data, start)
    method, _ = LOG_CONTAINER_STRUCT.unpack_from(data, start + size)
    raw = bytearray(zlib.decompress(data[start + size + LOG_CONTAINER_STRUCT.size:
                                         start + obj_size]))
    raw[8:12] = bytes(4)  # the first CAN object's size
    body = LOG_CONTAINER_STRUCT.pack(method, len(raw)) + zlib.compress(bytes(raw))
    obj = OBJ_HEADER_BASE_STRUCT.pack(sig, size, version, size + len(body), obj_type) + body
    path.write_bytes(data[:start] + obj + bytes(len(obj) % 4))
    err = cli_error(capsys, ["busload", "--log", str(path)])
    assert "run.blf: corrupt BLF: more frames than" in err
