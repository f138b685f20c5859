"""Java ``.properties`` text, read as ``java.util.Properties.load`` reads it (Kafka's
``Utils.loadProps``): comments, the three separators, continued lines and escapes.

The parsing is the ``javaproperties`` library's (it follows ``Properties.load`` to the letter);
this module keeps kipviz's names and messages. A malformed ``\\uXXXX`` escape is an error, as in
Java ("Malformed \\uxxxx encoding.").
"""

from __future__ import annotations

import os
from pathlib import Path

import javaproperties

__all__ = ["parse_properties", "read_properties"]


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text as ``java.util.Properties.load`` does.

    Lines starting (after blanks) with ``#`` or ``!`` are comments; a key ends at the first
    unescaped ``=``, ``:`` or blank (``key=value``, ``key: value``, ``key value``); a line ending
    in an odd number of backslashes continues on the next, whose leading blanks are dropped;
    ``\\t``, ``\\n``, ``\\uXXXX`` and ``\\<char>`` escapes are decoded. Leading blanks of a value
    are dropped and, as in Java, trailing ones kept (Kafka strips them when it parses numbers).
    A repeated key keeps its last value.

    >>> parse_properties("# a comment\\nfetch.max.bytes = 1048576\\nclient.id: app \\\\\\n  one\\n")
    {'fetch.max.bytes': '1048576', 'client.id': 'app one'}
    """
    try:
        return dict(javaproperties.loads(text))
    except javaproperties.InvalidUEscapeError as err:
        raise ValueError(f"malformed \\uxxxx escape in .properties text: {err.escape!r}") from None


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
