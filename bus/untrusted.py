"""Quoting text from untrusted files in one-line error messages (no escape sequences)."""


def shown(text: str, limit: int = 60) -> str:
    """`text` in quotes on one line: non-printables escaped (\\x1b), cut to about `limit`
    characters at a whole character, with '...'."""
    pieces: list[str] = []
    length = 0
    for c in text:
        piece = c if c.isascii() and c.isprintable() else c.encode("unicode_escape").decode()
        if length + len(piece) > limit:
            return f"'{''.join(pieces)}...'"
        pieces.append(piece)
        length += len(piece)
    return f"'{''.join(pieces)}'"
