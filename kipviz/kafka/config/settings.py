"""Kafka config names, defaults, units, validation and ``.properties`` import.

Every Kafka setting kipviz models is declared once in :mod:`kipviz.kafka.config.declarations`
(:data:`CONSUMER`, :data:`BROKER`, :data:`STREAMS`: Kafka key, Python name with its unit, Java
type, ``ConfigDef`` range, default, unit, rule); the config classes here, the scenarios
(:mod:`kipviz.kafka.config.fields`) and the mechanisms' default constants all read them.
``ConsumerConfig`` is ``org.apache.kafka.clients.consumer.ConsumerConfig``'s settings,
``BrokerConfig`` a broker's (``ServerConfigs``, ``ReplicationConfigs``, ``SocketServerConfigs``,
``QuotaConfig`` and the dynamic throttled rates).

``buffer.memory`` on a consumer is KIP-81's proposal (default 104857600), which never shipped in
Apache Kafka: ``buffer_memory_bytes=None`` is today's consumer, without a memory pool.

Variants are made with ``dataclasses.replace(cfg, fetch_max_bytes=...)``, which validates again.
``from_properties`` returns a ``LoadedConfig``: the config, the keys it ``ignored`` (real Kafka
settings that kipviz does not model) and the ``unknown`` ones: a key Kafka does not define is a
warning with a "did you mean" hint (Kafka ignores it too), an error with ``strict=True``. The
shared machinery is in :mod:`kipviz.kafka.config.base`; ``.properties`` syntax in
:mod:`kipviz.kafka.config.properties`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kipviz.kafka.config.base import KafkaSettings, LoadedConfig
from kipviz.kafka.config.declarations import (
    BROKER,
    CONSUMER,
    KIP81_PROPOSED_BUFFER_MEMORY_BYTES,
    STREAMS,
    Setting,
)
from kipviz.kafka.config.fields import kafka_field
from kipviz.kafka.config.keys import KafkaConfigWarning
from kipviz.kafka.config.properties import parse_properties, read_properties

__all__ = [
    "BROKER",
    "CONSUMER",
    "KIP81_PROPOSED_BUFFER_MEMORY_BYTES",
    "STREAMS",
    "BrokerConfig",
    "ConsumerConfig",
    "KafkaConfigWarning",
    "KafkaSettings",
    "LoadedConfig",
    "Setting",
    "check_buffer_memory",
    "check_request_pool",
    "parse_properties",
    "read_properties",
]


@dataclass(frozen=True)
class ConsumerConfig(KafkaSettings):
    """A Kafka consumer's fetch, poll and memory settings (``ConsumerConfig``; KIP-74, KIP-81).

    ``buffer_memory_bytes`` is KIP-81's ``buffer.memory`` as proposed: ``None`` (the default) is
    the consumer Kafka ships, with no memory pool; set it (KIP-81 proposed
    ``KIP81_PROPOSED_BUFFER_MEMORY_BYTES``) to model the pool. It must be >= ``fetch.max.bytes``.
    """

    _ROLE: ClassVar[str] = "consumer"

    fetch_max_bytes: int = kafka_field(CONSUMER["fetch.max.bytes"])
    max_partition_fetch_bytes: int = kafka_field(CONSUMER["max.partition.fetch.bytes"])
    fetch_min_bytes: int = kafka_field(CONSUMER["fetch.min.bytes"])
    fetch_max_wait_ms: int = kafka_field(CONSUMER["fetch.max.wait.ms"])
    max_poll_records: int = kafka_field(CONSUMER["max.poll.records"])
    heartbeat_interval_ms: int = kafka_field(CONSUMER["heartbeat.interval.ms"])
    request_timeout_ms: int = kafka_field(CONSUMER["request.timeout.ms"])
    receive_buffer_bytes: int = kafka_field(CONSUMER["receive.buffer.bytes"])
    buffer_memory_bytes: int | None = kafka_field(CONSUMER["buffer.memory"])

    def _check_together(self) -> None:
        check_buffer_memory(self.buffer_memory_bytes, self.fetch_max_bytes)


@dataclass(frozen=True)
class BrokerConfig(KafkaSettings):
    """A Kafka broker's fetch, request-memory and quota settings (KIP-72, KIP-73, KIP-74).

    ``queued_max_request_bytes`` <= 0 (default -1) means no request memory pool (KIP-72); when
    positive it is the pool size and must be >= ``socket.request.max.bytes``, the pool's largest
    single allocation (``KafkaConfig.validateValues``). The replication throttles are the dynamic
    broker configs ``leader.replication.throttled.rate`` and ``follower.replication.throttled.rate``
    (bytes/s; ``None`` = unlimited, Kafka's ``Long.MAX_VALUE``); kipviz also reads them from a file.
    """

    _ROLE: ClassVar[str] = "broker"

    fetch_max_bytes: int = kafka_field(BROKER["fetch.max.bytes"])
    replica_fetch_max_bytes: int = kafka_field(BROKER["replica.fetch.max.bytes"])
    replica_fetch_response_max_bytes: int = kafka_field(
        BROKER["replica.fetch.response.max.bytes"])
    message_max_bytes: int = kafka_field(BROKER["message.max.bytes"])
    queued_max_request_bytes: int = kafka_field(BROKER["queued.max.request.bytes"])
    socket_request_max_bytes: int = kafka_field(BROKER["socket.request.max.bytes"])
    queued_max_requests: int = kafka_field(BROKER["queued.max.requests"])
    num_network_threads: int = kafka_field(BROKER["num.network.threads"])
    num_io_threads: int = kafka_field(BROKER["num.io.threads"])
    replication_quota_window_num: int = kafka_field(BROKER["replication.quota.window.num"])
    replication_quota_window_size_seconds: int = kafka_field(
        BROKER["replication.quota.window.size.seconds"])
    quota_window_num: int = kafka_field(BROKER["quota.window.num"])
    quota_window_size_seconds: int = kafka_field(BROKER["quota.window.size.seconds"])
    # atLeast(0) as in Kafka's QuotaConfig: 0 stops throttled replication (a move never ends)
    leader_replication_throttled_rate_bytes_per_s: int | None = kafka_field(
        BROKER["leader.replication.throttled.rate"])
    follower_replication_throttled_rate_bytes_per_s: int | None = kafka_field(
        BROKER["follower.replication.throttled.rate"])
    # tiered storage (KIP-405 readers, KIP-956's remote fetch quota)
    remote_log_reader_threads: int = kafka_field(BROKER["remote.log.reader.threads"])
    remote_fetch_max_bytes_per_s: int | None = kafka_field(
        BROKER["remote.log.manager.fetch.max.bytes.per.second"])

    def _check_together(self) -> None:
        check_request_pool(self.queued_max_request_bytes, self.socket_request_max_bytes)


def check_buffer_memory(buffer_memory_bytes: int | None, fetch_max_bytes: int) -> None:
    """KIP-81's rule (as proposed): ``buffer.memory``, when set, is >= ``fetch.max.bytes``, so a
    whole fetch response fits in the pool ("must be at least as big as max.fetch.bytes").

    >>> check_buffer_memory(1000, 52428800)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: buffer_memory_bytes (buffer.memory) must be >= fetch.max.bytes (52428800; ...): 1000
    """
    if buffer_memory_bytes is not None and buffer_memory_bytes < fetch_max_bytes:
        raise ValueError(f"buffer_memory_bytes (buffer.memory) must be >= fetch.max.bytes "
                         f"({fetch_max_bytes}; KIP-81: a whole fetch response must fit in the "
                         f"pool): {buffer_memory_bytes}")


def check_request_pool(queued_max_request_bytes: int, socket_request_max_bytes: int) -> None:
    """KIP-72's rule (``KafkaConfig.validateValues``): a request pool (``queued.max.request.bytes``
    > 0) holds at least the largest single request, ``socket.request.max.bytes``.

    >>> check_request_pool(1000, 104857600)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: queued_max_request_bytes (queued.max.request.bytes) must be <= 0 ...: 1000
    """
    if 0 < queued_max_request_bytes < socket_request_max_bytes:
        raise ValueError(f"queued_max_request_bytes (queued.max.request.bytes) must be <= 0 (no "
                         f"pool) or >= socket.request.max.bytes ({socket_request_max_bytes}, the "
                         f"pool's largest single allocation): {queued_max_request_bytes}")
