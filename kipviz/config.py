"""Kafka config names, defaults, units, validation and ``.properties`` import.

Each modelled setting is a field whose name carries its unit and whose metadata holds its Kafka
key and its ConfigDef bound, so the mapping lives in one table per class. Defaults and rules are
Kafka's: ``ConsumerConfig`` (``org.apache.kafka.clients.consumer.ConsumerConfig``),
``BrokerConfig`` (``KafkaConfig`` / ``ServerConfigs``, ``ReplicationConfigs``,
``SocketServerConfigs``, ``QuotaConfigs`` and the dynamic ``DynamicConfig.Broker`` rates).

``buffer.memory`` on a consumer is KIP-81's proposal (default 104857600), which never shipped in
Apache Kafka: ``buffer_memory_bytes=None`` is today's consumer, without a memory pool.

Variants are made with ``dataclasses.replace(cfg, fetch_max_bytes=...)``, which validates again.
``from_properties`` returns a ``LoadedConfig``: the config, the keys it ``ignored`` (real Kafka
settings that kipviz does not model) and the ``unknown`` ones: a key Kafka does not define is a
warning with a "did you mean" hint (Kafka ignores it too), an error with ``strict=True``. The
shared machinery is in ``kipviz._settings``; ``.properties`` syntax in ``kipviz.properties``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kipviz._settings import LoadedConfig, _setting, _Settings
from kipviz.kafka_keys import KafkaConfigWarning
from kipviz.properties import parse_properties, read_properties

__all__ = [
    "KIP81_PROPOSED_BUFFER_MEMORY_BYTES",
    "BrokerConfig",
    "ConsumerConfig",
    "KafkaConfigWarning",
    "LoadedConfig",
    "parse_properties",
    "read_properties",
]

KIP81_PROPOSED_BUFFER_MEMORY_BYTES = 104857600
"""KIP-81's proposed default for consumer ``buffer.memory`` (never shipped in Kafka)."""


@dataclass(frozen=True)
class ConsumerConfig(_Settings):
    """A Kafka consumer's fetch, poll and memory settings (``ConsumerConfig``; KIP-74, KIP-81).

    ``buffer_memory_bytes`` is KIP-81's ``buffer.memory`` as proposed: ``None`` (the default) is
    the consumer Kafka ships, with no memory pool; set it (KIP-81 proposed
    ``KIP81_PROPOSED_BUFFER_MEMORY_BYTES``) to model the pool. It must be >= ``fetch.max.bytes``.
    """

    _ROLE: ClassVar[str] = "consumer"

    fetch_max_bytes: int = _setting("fetch.max.bytes", 52428800, at_least=0)
    max_partition_fetch_bytes: int = _setting("max.partition.fetch.bytes", 1048576, at_least=0)
    fetch_min_bytes: int = _setting("fetch.min.bytes", 1, at_least=0)
    fetch_max_wait_ms: int = _setting("fetch.max.wait.ms", 500, at_least=0)
    max_poll_records: int = _setting("max.poll.records", 500, at_least=1)
    # Kafka's ConfigDef puts no bound on heartbeat.interval.ms, but a negative interval means
    # nothing, so kipviz rejects it.
    heartbeat_interval_ms: int = _setting("heartbeat.interval.ms", 3000, at_least=0)
    request_timeout_ms: int = _setting("request.timeout.ms", 30000, at_least=0)
    # -1 means "use the operating system's default" (CommonClientConfigs.RECEIVE_BUFFER_LOWER_BOUND)
    receive_buffer_bytes: int = _setting("receive.buffer.bytes", 65536, at_least=-1)
    buffer_memory_bytes: int | None = _setting("buffer.memory", None, at_least=0, java="long")

    def _check_together(self) -> None:
        memory = self.buffer_memory_bytes
        if memory is not None and memory < self.fetch_max_bytes:
            raise ValueError(f"buffer.memory must be >= fetch.max.bytes (KIP-81): "
                             f"{memory} < {self.fetch_max_bytes}")


@dataclass(frozen=True)
class BrokerConfig(_Settings):
    """A Kafka broker's fetch, request-memory and quota settings (KIP-72, KIP-73, KIP-74).

    ``queued_max_request_bytes`` <= 0 (default -1) means no request memory pool (KIP-72); when
    positive it is the pool size and must be >= ``socket.request.max.bytes``, the pool's largest
    single allocation (``KafkaConfig.validateValues``). The replication throttles are the dynamic
    broker configs ``leader.replication.throttled.rate`` and ``follower.replication.throttled.rate``
    (bytes/s; ``None`` = unlimited, Kafka's ``Long.MAX_VALUE``); kipviz also reads them from a file.
    """

    _ROLE: ClassVar[str] = "broker"
    _WHERE: ClassVar[str] = " on a broker"

    fetch_max_bytes: int = _setting("fetch.max.bytes", 57671680, at_least=1024)
    replica_fetch_max_bytes: int = _setting("replica.fetch.max.bytes", 1048576, at_least=0)
    replica_fetch_response_max_bytes: int = _setting(
        "replica.fetch.response.max.bytes", 10485760, at_least=0)
    message_max_bytes: int = _setting("message.max.bytes", 1048588, at_least=0)
    queued_max_request_bytes: int = _setting("queued.max.request.bytes", -1, java="long")
    socket_request_max_bytes: int = _setting("socket.request.max.bytes", 104857600, at_least=1)
    queued_max_requests: int = _setting("queued.max.requests", 500, at_least=1)
    num_network_threads: int = _setting("num.network.threads", 3, at_least=1)
    num_io_threads: int = _setting("num.io.threads", 8, at_least=1)
    replication_quota_window_num: int = _setting("replication.quota.window.num", 11, at_least=1)
    replication_quota_window_size_seconds: int = _setting(
        "replication.quota.window.size.seconds", 1, at_least=1)
    quota_window_num: int = _setting("quota.window.num", 11, at_least=1)
    quota_window_size_seconds: int = _setting("quota.window.size.seconds", 1, at_least=1)
    # Kafka's DynamicConfig accepts 0 (atLeast(0)), which stops throttled replication outright;
    # kipviz asks for a positive rate so that move times stay finite.
    leader_replication_throttled_rate_bytes_per_s: int | None = _setting(
        "leader.replication.throttled.rate", None, above=0, java="long")
    follower_replication_throttled_rate_bytes_per_s: int | None = _setting(
        "follower.replication.throttled.rate", None, above=0, java="long")

    def _check_together(self) -> None:
        queued, largest = self.queued_max_request_bytes, self.socket_request_max_bytes
        if 0 < queued < largest:
            raise ValueError(f"queued.max.request.bytes must be -1 or <= 0 (disabled) or "
                             f">= socket.request.max.bytes on a broker: {queued} < {largest}")
