"""The shape every client's memory bound shares, and KIP-74's size of one response on the wire."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kipviz.kafka.clients.settings import read_client_config
from kipviz.kafka.config.checks import check_int, check_number
from kipviz.kafka.config.declarations import SettingTable

__all__ = [
    "MAX_BATCH_BYTES",
    "ClientMemoryBound",
    "bound_of",
    "checked_inputs",
    "response_wire_bytes",
    "settings_with_defaults",
]

MAX_BATCH_BYTES = 1048588
"""The largest record batch on the wire by default: the topic's ``max.message.bytes``."""


@dataclass(frozen=True)
class ClientMemoryBound:
    """One client's memory bound: ``bound_bytes``, the ``sentence`` naming the term that binds,
    and the ``terms`` it adds up (name, bytes)."""

    client: str
    bound_bytes: int
    sentence: str
    terms: tuple[tuple[str, int], ...]


def bound_of(client: str, terms: tuple[tuple[str, int], ...],
             say: Callable[[int, str, int], str]) -> ClientMemoryBound:
    """The bound that adds up ``terms`` (name, bytes), with the sentence ``say(bound, name,
    bytes)`` gives for the largest of them: the term that binds."""
    name, size = max(terms, key=lambda t: t[1])
    bound = sum(n for _, n in terms)
    return ClientMemoryBound(client, bound, say(bound, name, size), terms)


def response_wire_bytes(partitions_on_broker: int, response_max_bytes: int,
                        partition_max_bytes: int, max_batch_bytes: int) -> int:
    """KIP-74: one response holds at most ``max(min(response max, partitions x per-partition
    max), largest batch)`` record bytes (the first batch is returned even when larger)."""
    return max(min(response_max_bytes, partitions_on_broker * partition_max_bytes), max_batch_bytes)


def settings_with_defaults(table: SettingTable,
                           settings: Mapping[str, int] | None) -> dict[str, int]:
    """``settings`` over the table's defaults, each checked by its declared range."""
    given = read_client_config(table.role, dict(settings or {}))
    return {key: given.get(key, table.default_of(key)) for key in table}


def checked_inputs(partitions: int, brokers: int, max_batch_bytes: int,
                   compression_ratio: float) -> tuple[int, int]:
    """Check the workload inputs; returns (brokers that lead a partition, partitions on the
    busiest of them)."""
    check_int("partitions", partitions, 1)
    check_int("brokers", brokers, 1)
    check_int("max_batch_bytes", max_batch_bytes, 0)
    check_number("compression_ratio", compression_ratio, 1.0, finite=True)
    leaders = min(brokers, partitions)
    return leaders, -(-partitions // leaders)
