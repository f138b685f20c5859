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

from kipviz.kafka.config.base import KafkaSettings, LoadedConfig, config_field
from kipviz.kafka.config.declarations import (
    BROKER,
    CONSUMER,
    KIP81_PROPOSED_BUFFER_MEMORY_BYTES,
    STREAMS,
    Setting,
)
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

    fetch_max_bytes: int = config_field(CONSUMER["fetch.max.bytes"])
    max_partition_fetch_bytes: int = config_field(CONSUMER["max.partition.fetch.bytes"])
    fetch_min_bytes: int = config_field(CONSUMER["fetch.min.bytes"])
    fetch_max_wait_ms: int = config_field(CONSUMER["fetch.max.wait.ms"])
    max_poll_records: int = config_field(CONSUMER["max.poll.records"])
    heartbeat_interval_ms: int = config_field(CONSUMER["heartbeat.interval.ms"])
    request_timeout_ms: int = config_field(CONSUMER["request.timeout.ms"])
    receive_buffer_bytes: int = config_field(CONSUMER["receive.buffer.bytes"])
    buffer_memory_bytes: int | None = config_field(CONSUMER["buffer.memory"])

    def _check_together(self) -> None:
        memory = self.buffer_memory_bytes
        if memory is not None and memory < self.fetch_max_bytes:
            raise ValueError(f"buffer.memory must be >= fetch.max.bytes (KIP-81): "
                             f"{memory} < {self.fetch_max_bytes}")


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
    _WHERE: ClassVar[str] = " on a broker"

    fetch_max_bytes: int = config_field(BROKER["fetch.max.bytes"])
    replica_fetch_max_bytes: int = config_field(BROKER["replica.fetch.max.bytes"])
    replica_fetch_response_max_bytes: int = config_field(
        BROKER["replica.fetch.response.max.bytes"])
    message_max_bytes: int = config_field(BROKER["message.max.bytes"])
    queued_max_request_bytes: int = config_field(BROKER["queued.max.request.bytes"])
    socket_request_max_bytes: int = config_field(BROKER["socket.request.max.bytes"])
    queued_max_requests: int = config_field(BROKER["queued.max.requests"])
    num_network_threads: int = config_field(BROKER["num.network.threads"])
    num_io_threads: int = config_field(BROKER["num.io.threads"])
    replication_quota_window_num: int = config_field(BROKER["replication.quota.window.num"])
    replication_quota_window_size_seconds: int = config_field(
        BROKER["replication.quota.window.size.seconds"])
    quota_window_num: int = config_field(BROKER["quota.window.num"])
    quota_window_size_seconds: int = config_field(BROKER["quota.window.size.seconds"])
    # atLeast(0) as in Kafka's QuotaConfig: 0 stops throttled replication (a move never ends)
    leader_replication_throttled_rate_bytes_per_s: int | None = config_field(
        BROKER["leader.replication.throttled.rate"])
    follower_replication_throttled_rate_bytes_per_s: int | None = config_field(
        BROKER["follower.replication.throttled.rate"])

    def _check_together(self) -> None:
        queued, largest = self.queued_max_request_bytes, self.socket_request_max_bytes
        if 0 < queued < largest:
            raise ValueError(f"queued.max.request.bytes must be -1 or <= 0 (disabled) or "
                             f">= socket.request.max.bytes on a broker: {queued} < {largest}")
