"""The shipped DBC files parsed once per content, not once per start (cantools: ~20-40 ms).

The parsed database of a shipped schema (servobus.dbc) is pickled beside it in
``__pycache__``, keyed by the file's bytes and the cantools and Python versions, the way Python
keeps a module's bytecode; a user's DBC elsewhere is parsed every time (nothing is written into
the user's folders).  A cache that cannot be read or written is ignored.
"""

import hashlib
import os
import pickle
import sys
from contextlib import suppress
from pathlib import Path

import cantools

SHIPPED = Path(__file__).resolve().parent.parent / "dbc"  # the servobus.dbc package's folder


def cache_file(path: Path, text: bytes) -> Path | None:
    """Where the parse of `path` with contents `text` is kept (None: a DBC not shipped)."""
    if path.resolve().parent != SHIPPED.resolve():
        return None
    key = hashlib.sha256(b"\0".join((text, cantools.__version__.encode(),
                                     sys.version.encode()))).hexdigest()[:20]
    return SHIPPED / "__pycache__" / f"{path.name}.{key}.pickle"


def load_dbc(path: Path) -> object:
    """``cantools.database.load_file(path, strict=True)``, from the cache when it holds this
    file's contents; cantools' errors come from the parse as before."""
    cached = cache_file(path, path.read_bytes())
    if cached is not None:
        with suppress(Exception), cached.open("rb") as file:
            return pickle.load(file)
    db = cantools.database.load_file(str(path), strict=True)
    if cached is not None:
        with suppress(OSError):
            cached.parent.mkdir(exist_ok=True)
            temporary = cached.with_name(f"{cached.name}.{os.getpid()}")
            temporary.write_bytes(pickle.dumps(db, pickle.HIGHEST_PROTOCOL))
            os.replace(temporary, cached)
    return db
