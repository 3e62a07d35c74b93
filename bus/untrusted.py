"""Quoting text from untrusted files in one-line error messages (no escape sequences)."""


def shown(text: str | bytes, limit: int = 60) -> str:
    """`text` in quotes on one line: non-printables escaped (\\x1b), cut to `limit` with '...'."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    quoted = "".join(c if c.isascii() and c.isprintable() else
                     c.encode("unicode_escape").decode("ascii") for c in text)
    return f"'{quoted[:limit]}{'...' if len(quoted) > limit else ''}'"
