"""The shape every client's memory bound shares, and what one response is on the wire.

A response is sized by the broker's one rule, KIP-74's fill with the first-batch exception
(:func:`kipviz.kafka.fetch.response.largest_response_bytes`, the one Java's answer uses), and
carries its own fields beside its records (:func:`kipviz.kafka.fetch.frame.largest_frame_bytes`,
at the largest of the request versions the client sends). A bound that counts each message or
record a client makes takes the records' size as an input: ``record_bytes``, each record's value
bytes (records without key or headers, as kipviz's workloads and ``kipviz reality`` write them),
:data:`DEFAULT_RECORD_BYTES` unless given; ``compression_ratio`` is the most any batch's records
decompress (decompressed over compressed bytes; 1: uncompressed), so ``r x`` the wire bytes
bounds what they decompress to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kipviz.kafka.clients.settings import read_client_config
from kipviz.kafka.config.checks import check_int, check_number
from kipviz.kafka.config.declarations import SettingTable
from kipviz.kafka.fetch.frame import largest_frame_bytes
from kipviz.kafka.fetch.response import largest_response_bytes

__all__ = [
    "DEFAULT_RECORD_BYTES",
    "MAX_BATCH_BYTES",
    "RECORD_BATCH_HEADER_BYTES",
    "RECORD_FRAMING_BYTES",
    "ClientMemoryBound",
    "Response",
    "Sentence",
    "bound_of",
    "checked_inputs",
    "response_of",
    "settings_with_defaults",
]

MAX_BATCH_BYTES = 1048588
"""The largest record batch on the wire by default: the topic's ``max.message.bytes``."""

DEFAULT_RECORD_BYTES = 1024
"""Each record's value bytes when the caller gives none: kipviz's workload default
(``Workload.record_bytes``)."""

RECORD_FRAMING_BYTES = 28
"""The most a record without key or headers adds to its value on the wire (``DefaultRecord``):
its length (varint, 5), attributes (1), timestamp delta (varlong, 10), offset delta (varint, 5),
key length (1: -1), value length (varint, 5) and header count (1)."""

RECORD_BATCH_HEADER_BYTES = 61
"""A record batch's header (``DefaultRecordBatch.RECORD_BATCH_OVERHEAD``): at worst one per
record, when each record is its own batch."""


class Sentence(str):
    """The bound's sentence: a string, and callable like the Java answer's ``sentence()``, so
    ``consumer_memory_bounds(scenario).sentence()`` reads every client's."""

    def __call__(self) -> str:
        return str(self)


@dataclass(frozen=True)
class ClientMemoryBound:
    """One client's memory bound: ``bound_bytes``, the ``sentence`` naming the term that binds,
    and the ``terms`` it adds up (name, bytes). ``rule`` (the client), ``lagging`` and
    ``lagging_bytes`` read as the Java answer's do: every client's bound is a lagging
    consumer's."""

    client: str
    bound_bytes: int
    sentence: Sentence
    terms: tuple[tuple[str, int], ...]

    @property
    def rule(self) -> str:
        return self.client

    @property
    def lagging(self) -> bool:
        return True

    @property
    def lagging_bytes(self) -> int:
        return self.bound_bytes

    @property
    def binding(self) -> str:
        """The largest term's name: the one that binds."""
        return max(self.terms, key=lambda t: t[1])[0]


def bound_of(client: str, terms: tuple[tuple[str, int], ...],
             say: Callable[[int, str, int], str]) -> ClientMemoryBound:
    """The bound that adds up ``terms`` (name, bytes), with the sentence ``say(bound, name,
    bytes)`` gives for the largest of them: the term that binds."""
    name, size = max(terms, key=lambda t: t[1])
    bound = sum(n for _, n in terms)
    return ClientMemoryBound(client, bound, Sentence(say(bound, name, size)), terms)


@dataclass(frozen=True)
class Response:
    """One response of the busiest broker: ``records_bytes`` (KIP-74's fill, capped by what the
    client reads), ``frame_bytes`` (its own fields), ``bytes`` (the buffer: both) and
    ``records`` (how many records of ``record_bytes`` its records can hold, at most)."""

    records_bytes: int
    frame_bytes: int
    records: int

    @property
    def bytes(self) -> int:
        return self.records_bytes + self.frame_bytes


def response_of(partitions: int, leaders: int, response_max_bytes: int,
                partition_max_bytes: int, max_batch_bytes: int, read_max_bytes: int,
                versions: range, record_bytes: int) -> Response:
    """The busiest broker's largest response to a client: the broker's fill
    (``largest_response_bytes``, the first-batch exception included: one partition's whole
    batch beside the others' limits) capped by the largest frame the client reads, with the
    fields of a response listing all its partitions at the largest of ``versions``."""
    on_broker = -(-partitions // leaders)
    records = min(largest_response_bytes(partitions, leaders, response_max_bytes,
                                         partition_max_bytes, max_batch_bytes=max_batch_bytes,
                                         version=versions.start),
                  read_max_bytes)
    per_partition = max(partition_max_bytes, max_batch_bytes)
    frame = max(largest_frame_bytes(on_broker, version=v, partition_records_bytes=per_partition)
                for v in versions)
    return Response(records, frame, records // record_bytes)


def settings_with_defaults(table: SettingTable,
                           settings: Mapping[str, int] | None) -> dict[str, int]:
    """``settings`` over the table's defaults, each checked by its declared range."""
    given = read_client_config(table.role, dict(settings or {}))
    return {key: given.get(key, table.default_of(key)) for key in table}


def checked_inputs(partitions: int, brokers: int, max_batch_bytes: int,
                   compression_ratio: float, record_bytes: int = DEFAULT_RECORD_BYTES,
                   ) -> tuple[int, int]:
    """Check the workload inputs; returns (brokers that lead a partition, partitions on the
    busiest of them)."""
    check_int("partitions", partitions, 1)
    check_int("brokers", brokers, 1)
    check_int("max_batch_bytes", max_batch_bytes, 0)
    check_number("compression_ratio", compression_ratio, 1.0, finite=True)
    check_int("record_bytes", record_bytes, 1)
    leaders = min(brokers, partitions)
    return leaders, -(-partitions // leaders)
