"""The planner's files: what ``kafka-reassign-partitions`` and ``kafka-log-dirs`` print, read.

``load_reassignment`` reads what ``kafka-reassign-partitions --generate`` writes (proposed and,
optionally, current assignment); ``load_partition_sizes`` what ``kafka-log-dirs --describe``
prints (two status lines, then the JSON) or a flat ``{"topic-partition": bytes}`` mapping. File
errors name the file and the line; the entries' rules are Kafka's
(:mod:`kipviz.kafka.replication.reassignment`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kipviz.kafka.replication.reassignment import (
    ReassignmentPlan,
    parse_assignment,
    partition_sizes,
)

__all__ = ["generate_output", "load_partition_sizes", "load_reassignment", "read_json"]

Source = str | os.PathLike[str] | Mapping[str, Any]


def _data(source: Source, what: str) -> object:
    return source if isinstance(source, Mapping) else read_json(source, what)


def read_json(path: str | os.PathLike[str], what: str) -> Any:
    """The JSON in the file at ``path``, after any lines of text before it (as
    ``kafka-log-dirs --describe`` prints); ValueError naming the file (and the line) if it
    cannot be read or is not JSON."""
    name = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{what} file {name!r} cannot be read: {err}") from err
    lines = text.splitlines(keepends=True)
    skipped = next((i for i, line in enumerate(lines) if line.lstrip().startswith(("{", "["))),
                   None)
    if skipped is None:
        detail = "it is empty" if not text.strip() else "it holds no JSON object"
        raise ValueError(f"{what} file {name!r} is not JSON: {detail}")
    try:
        return json.loads("".join(lines[skipped:]))
    except json.JSONDecodeError as err:
        raise ValueError(f"{what} file {name!r}, line {err.lineno + skipped}, column "
                         f"{err.colno}: not JSON: {err.msg}") from err


# the headings ReassignPartitionsCommand prints before each JSON of --generate's output
# (4.4 tools/.../reassign/ReassignPartitionsCommand.java:573-575)
CURRENT_HEADING = "Current partition replica assignment"
PROPOSED_HEADING = "Proposed partition reassignment configuration"


def generate_output(path: str | os.PathLike[str]) -> tuple[Any, Any] | None:
    """The (current, proposed) JSONs of a file holding the whole saved output of
    ``kafka-reassign-partitions --generate`` (both headings, each followed by its JSON); None for
    a file of one JSON. ValueError naming the file, the heading and the line if either JSON is
    not JSON."""
    name = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"reassignment file {name!r} cannot be read: {err}") from err
    lines = text.splitlines()
    heads = {h: next((i for i, line in enumerate(lines) if line.strip() == h), None)
             for h in (CURRENT_HEADING, PROPOSED_HEADING)}
    if None in heads.values():
        return None
    found = []
    for heading, at in heads.items():
        assert at is not None
        start = next((i for i in range(at + 1, len(lines)) if lines[i].strip()), None)
        if start is None or not lines[start].lstrip().startswith("{"):
            raise ValueError(f"reassignment file {name!r}: no JSON after {heading!r} "
                             f"(line {at + 1})")
        try:
            value, _ = json.JSONDecoder().raw_decode(lines[start].strip())
        except json.JSONDecodeError as err:
            raise ValueError(f"reassignment file {name!r}, line {start + 1}, column "
                             f"{err.colno}: not JSON: {err.msg}") from err
        found.append(value)
    return found[0], found[1]


def load_reassignment(path_or_mapping: Source, *,
                      current: Source | None = None) -> ReassignmentPlan:
    """Parse a ``kafka-reassign-partitions`` JSON (a path or an already-loaded mapping).

    A file holding the whole saved output of ``--generate`` (its two headings, each followed by
    its JSON on one line) is read too: the proposed assignment, and the current one unless
    ``current`` is given.

    Rules (ValueError naming the entry and the rule): ``version`` 1, a non-empty ``partitions``
    list, each with a non-empty ``topic``, ``partition >= 0``, a non-empty list of distinct broker
    ids >= 0 as ``replicas``, optional ``log_dirs`` of the same length, no partition twice.
    """
    both = None if isinstance(path_or_mapping, Mapping) else generate_output(path_or_mapping)
    if both is not None:
        path_or_mapping = both[1]
        current = both[0] if current is None else current
    proposed = parse_assignment(_data(path_or_mapping, "reassignment"), "reassignment")
    now = None if current is None else parse_assignment(_data(current, "current"), "current")
    return ReassignmentPlan(proposed, now)


def load_partition_sizes(path_or_mapping: Source) -> dict[str, int]:
    """Partition sizes in bytes keyed ``"topic-partition"`` (for ``bytes_per_broker``), from a
    flat mapping or a file of what ``kafka-log-dirs --describe`` prints (two status lines, then
    the JSON): :func:`kipviz.kafka.replication.reassignment.partition_sizes`."""
    return partition_sizes(_data(path_or_mapping, "partition sizes"))
