"""The shipped DBC files parsed once per content, not once per start (cantools: ~20-40 ms).

The parsed database of a shipped schema (servobus.dbc) is pickled beside it in
``__pycache__``, one file per schema holding its key (the file's bytes and the cantools and
Python versions) with the parse, overwritten when the key changes, the way Python keeps a
module's bytecode; a user's DBC elsewhere is parsed every time (nothing is written into the
user's folders).  A kept parse that cannot be read, or cannot be written, is ignored.
"""

import hashlib
import logging
import os
import pickle
import sys
from contextlib import suppress
from importlib import resources
from pathlib import Path

import cantools

SHIPPED = Path(str(resources.files("servobus.dbc")))  # as ``schema.shipped_dbc`` finds it


def cache_file(path: Path) -> Path | None:
    """Where the parse of `path` is kept (None: a DBC not shipped)."""
    if path.resolve().parent != SHIPPED.resolve():
        return None
    return SHIPPED / "__pycache__" / f"{path.name}.pickle"


def _key(text: bytes) -> str:
    """The kept parse's key: the file's contents and the versions that made the parse."""
    return hashlib.sha256(b"\0".join((text, cantools.__version__.encode(),
                                      sys.version.encode()))).hexdigest()


def load_dbc(path: Path) -> object:
    """``cantools.database.load_file(path, strict=True)``, from the kept parse when its key is
    this file's; cantools' errors come from the parse as before."""
    cached = cache_file(path)
    if cached is None:
        return _parse(path)
    key = _key(path.read_bytes())
    with suppress(Exception), cached.open("rb") as file:
        kept_key, db = pickle.load(file)
        if kept_key == key:
            return db
    db = _parse(path)
    _keep(cached, key, db)
    return db


def _parse(path: Path) -> object:
    """cantools' strict parse, its warnings about messages given twice held back: the schema
    refuses such a DBC with an error naming both (``schema._check_db``)."""
    log = logging.getLogger("cantools")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        return cantools.database.load_file(str(path), strict=True)
    finally:
        log.setLevel(level)


def _keep(cached: Path, key: str, db: object) -> None:
    """Write the parse under its key (through a temporary file, removed if anything fails)."""
    temporary = cached.with_name(f"{cached.name}.{os.getpid()}")
    try:
        cached.parent.mkdir(exist_ok=True)
        temporary.write_bytes(pickle.dumps((key, db), pickle.HIGHEST_PROTOCOL))
        os.replace(temporary, cached)
    except Exception:  # a cache that cannot be written is ignored
        with suppress(OSError):
            temporary.unlink()
