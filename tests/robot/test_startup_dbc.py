"""Start-up: a shipped DBC is parsed once per content and kept, not parsed at every start."""

import pickle
import shutil
from pathlib import Path

import cantools
import pytest

from servobus.bus import dbc_cache
from servobus.bus.schema import Schema, default_dbc


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped SPEJBL schema in a folder taken for the shipped one."""
    folder = tmp_path / "dbc"
    folder.mkdir()
    shutil.copy(default_dbc(), folder / "servobus.dbc")
    monkeypatch.setattr(dbc_cache, "SHIPPED", folder)
    return folder / "servobus.dbc"


def _no_parse(*args: object, **kwargs: object) -> None:
    raise AssertionError("parsed again")


def test_the_second_start_reads_the_kept_parse(shipped: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    first = Schema(shipped)
    assert len(list((shipped.parent / "__pycache__").glob("servobus.dbc*"))) == 1
    monkeypatch.setattr(cantools.database, "load_file", _no_parse)
    kept = Schema(shipped)
    values = {"seq": 200}
    assert kept.encode_data("TICK", values) == first.encode_data("TICK", values)
    fresh = cantools.database.load_string(default_dbc().read_text("cp1252"), "dbc")
    for message in fresh.messages:  # every message encodes as a fresh parse does
        signals = {s.name: s.minimum if s.minimum is not None else 0 for s in message.signals}
        assert kept.db.get_message_by_name(message.name).encode(signals) == message.encode(
            signals), message.name
    assert kept.bitrate == 1_000_000 and kept.tick_period_ns == 4_000_000


def test_an_edited_schema_is_parsed_anew(shipped: Path) -> None:
    Schema(shipped)
    text = shipped.read_text("cp1252")
    tick = 'BA_ "GenMsgCycleTime" BO_ 16 4;'
    assert tick in text
    shipped.write_text(text.replace(tick, tick.replace("4;", "5;")), "cp1252")
    assert Schema(shipped).tick_period_ns == 5_000_000
    kept = [p.name for p in (shipped.parent / "__pycache__").iterdir()]
    assert kept == ["servobus.dbc.pickle"]  # the old parse overwritten, not kept beside


def test_a_broken_kept_parse_is_ignored(shipped: Path) -> None:
    Schema(shipped)
    for kept in (shipped.parent / "__pycache__").glob("*.pickle"):
        kept.write_bytes(b"not a pickle")
    assert Schema(shipped).tick_period_ns == 4_000_000


def test_a_parse_that_cannot_be_kept_is_ignored(shipped: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> bytes:
        raise pickle.PicklingError("cannot pickle")

    monkeypatch.setattr(dbc_cache.pickle, "dumps", refuse)
    assert Schema(shipped).tick_period_ns == 4_000_000
    assert list((shipped.parent / "__pycache__").iterdir()) == []  # no temporary file left


def test_a_users_schema_elsewhere_is_not_kept(tmp_path: Path) -> None:
    mine = tmp_path / "mine.dbc"
    shutil.copy(default_dbc(), mine)
    assert Schema(mine).tick_period_ns == 4_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.dbc"]
