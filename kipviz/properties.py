"""Java ``.properties`` text, read as ``java.util.Properties.load`` reads it (Kafka's
``Utils.loadProps``): comments, the three separators, continued lines and escapes.

A malformed ``\\uXXXX`` escape is an error, as in Java ("Malformed \\uxxxx encoding.").
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["parse_properties", "read_properties"]

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
# key: escaped or ordinary characters up to an unescaped blank, '=' or ':'; then blanks, at most
# one separator, blanks; the value is the rest (Properties.load counts " \t\f" as blanks)
_KEY_VALUE = re.compile(r"((?:\\.|[^=: \t\f\\])*)[ \t\f]*(?:[=:][ \t\f]*)?(.*)", re.DOTALL)


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text as ``java.util.Properties.load`` does.

    Lines starting (after blanks) with ``#`` or ``!`` are comments; a key ends at the first
    unescaped ``=``, ``:`` or blank (``key=value``, ``key: value``, ``key value``); a line ending
    in an odd number of backslashes continues on the next, whose leading blanks are dropped;
    ``\\t``, ``\\n``, ``\\uXXXX`` and ``\\<char>`` escapes are decoded. Leading blanks of a value
    are dropped and, as in Java, trailing ones kept (Kafka strips them when it parses numbers).
    A repeated key keeps its last value.
    """
    result: dict[str, str] = {}
    lines = iter(re.split(r"\r\n|\r|\n", text))
    for natural in lines:
        line = natural.lstrip(" \t\f")
        if not line or line[0] in "#!":
            continue
        while (len(line) - len(line.rstrip("\\"))) % 2 == 1:  # odd backslashes: continued
            line = line[:-1] + next(lines, "").lstrip(" \t\f")
        match = _KEY_VALUE.fullmatch(line)
        assert match is not None  # the pattern matches every string
        result[_unescape(match[1])] = _unescape(match[2])
    return result


def _unescape(text: str) -> str:
    def decode(match: re.Match[str]) -> str:
        code = match[1]
        if len(code) == 5:
            return chr(int(code[1:], 16))
        if code == "u":
            raise ValueError(f"malformed \\uxxxx escape in .properties text: {text!r}")
        return _ESCAPES.get(code, code)

    return _ESCAPE.sub(decode, text)


def read_properties(path: str | os.PathLike[str]) -> dict[str, str]:
    """The ``.properties`` file at ``path``, read as ISO-8859-1 as ``Properties.load(InputStream)``
    does; a directory or an unreadable file raises ``OSError`` naming the path, bad syntax a
    ``ValueError`` naming it."""
    where = Path(path)
    if where.is_dir():
        raise IsADirectoryError(f"{where} is a directory, not a .properties file")
    text = where.read_text(encoding="latin-1")
    try:
        return parse_properties(text)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
