"""The bytes a fetch response carries around its records: its header and every topic's and
partition's own fields, by request version (``FetchResponse.json``, versions 4-18 in 4.4;
flexible, with tagged fields and varint lengths, from 12; topic ids instead of names from 13).

A consumer reads a response into one buffer of exactly this size plus the records
(``NetworkReceive`` allocates the size its 4-byte prefix announces, NetworkReceive.java:96-103),
and every record it buffers is a slice of that buffer, so a response kept reachable costs its
frame too. Measured on real 3.9.2 and 4.4.0 brokers (``kipviz reality``): a v17 response of one
topic and two partitions of 262,144 record bytes each is 113 bytes more than its records (17 for
the header and top-level fields, 18 for the topic, 39 a partition); a v4 response likewise
matches :func:`response_frame_bytes` to the byte.

Per version (``FetchResponse.json``): the response header's correlation id (4, and a tagged-field
count from v12); ``ThrottleTimeMs`` (4, v1+), ``ErrorCode`` (2, v7+), ``SessionId`` (4, v7+); the
topic array's count; per topic its name (v0-12: int16 or, v12, varint length and the bytes) or
``TopicId`` (16, v13+) and its partition count; per partition ``PartitionIndex`` 4,
``ErrorCode`` 2, ``HighWatermark`` 8, ``LastStableOffset`` 8 (v4+), ``LogStartOffset`` 8 (v5+),
``AbortedTransactions`` (its count: null for read_uncommitted, v4+), ``PreferredReadReplica``
4 (v11+) and the records' length. Tagged fields that are set only on errors or leader changes
(``DivergingEpoch``, ``CurrentLeader``, ``SnapshotId``, ``NodeEndpoints``) are left out: absent
in a normal response.

>>> response_frame_bytes([262_144, 262_144], version=17)
113
>>> response_frame_bytes([100_000, 0, 0], version=4, topic_name="kip74")
113
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FLEXIBLE_FETCH_VERSION", "largest_frame_bytes", "response_frame_bytes",
           "uvarint_bytes"]

FLEXIBLE_FETCH_VERSION = 12      # FetchResponse.json "flexibleVersions": "12+"
TOPIC_ID_FETCH_VERSION = 13      # TopicId replaces Topic from v13
MAX_TOPIC_NAME_BYTES = 249       # Topic.validate: at most 249 characters of [a-zA-Z0-9._-]


def uvarint_bytes(value: int) -> int:
    """Bytes of ``value`` as an unsigned varint (``ByteUtils.sizeOfUnsignedVarint``)."""
    if value < 0:
        raise ValueError(f"value must be an integer >= 0: {value}")
    n = 1
    while value >= 0x80:
        value >>= 7
        n += 1
    return n


def _partition_bytes(records_bytes: int, version: int) -> int:
    flexible = version >= FLEXIBLE_FETCH_VERSION
    fixed = 4 + 2 + 8 + (8 if version >= 4 else 0) + (8 if version >= 5 else 0) \
        + (4 if version >= 11 else 0)
    aborted = (1 if flexible else 4) if version >= 4 else 0
    length = uvarint_bytes(records_bytes + 1) if flexible else 4
    return fixed + aborted + length + (1 if flexible else 0)


def _topic_bytes(partitions: int, version: int, topic_name_bytes: int) -> int:
    flexible = version >= FLEXIBLE_FETCH_VERSION
    if version >= TOPIC_ID_FETCH_VERSION:
        name = 16
    elif flexible:
        name = uvarint_bytes(topic_name_bytes + 1) + topic_name_bytes
    else:
        name = 2 + topic_name_bytes
    count = uvarint_bytes(partitions + 1) if flexible else 4
    return name + count + (1 if flexible else 0)


def _top_bytes(topics: int, version: int) -> int:
    flexible = version >= FLEXIBLE_FETCH_VERSION
    header = 4 + (1 if flexible else 0)
    body = (4 if version >= 1 else 0) + (6 if version >= 7 else 0)
    count = uvarint_bytes(topics + 1) if flexible else 4
    return header + body + count + (1 if flexible else 0)


def response_frame_bytes(records_bytes: Sequence[int], *, version: int,
                         topic_name: str = "", topics: Sequence[Sequence[int]] | None = None,
                         topic_names: Sequence[str] | None = None) -> int:
    """A response's bytes beyond its records, for one topic whose partitions carry
    ``records_bytes`` each (or for ``topics``, each a list of its partitions' record bytes, with
    ``topic_names``). ``version`` is the FetchRequest version the consumer sent."""
    if version < 0:
        raise ValueError(f"version (fetch request version) must be an integer >= 0: {version}")
    groups = [list(records_bytes)] if topics is None else [list(t) for t in topics]
    names = [topic_name] * len(groups) if topic_names is None else list(topic_names)
    if len(names) != len(groups):
        raise ValueError(f"topic_names must name each of the {len(groups)} topics: {names}")
    total = _top_bytes(len(groups), version)
    for name, parts in zip(names, groups, strict=True):
        total += _topic_bytes(len(parts), version, len(name.encode()))
        total += sum(_partition_bytes(r, version) for r in parts)
    return total


def largest_frame_bytes(partitions: int, *, version: int, partition_records_bytes: int,
                        topics: int = 1, topic_name_bytes: int = MAX_TOPIC_NAME_BYTES) -> int:
    """The most a response listing ``partitions`` (over ``topics``) can add to its records when
    no partition carries more than ``partition_records_bytes``: the bound's frame. Names count
    at Kafka's longest (249 bytes) unless ``topic_name_bytes`` says otherwise (only versions
    before 13 send names)."""
    if partitions < 1:
        raise ValueError(f"partitions must be an integer >= 1: {partitions}")
    topics = max(1, min(topics, partitions))
    return (_top_bytes(topics, version)
            + topics * _topic_bytes(-(-partitions // topics), version, topic_name_bytes)
            + partitions * _partition_bytes(partition_records_bytes, version))
