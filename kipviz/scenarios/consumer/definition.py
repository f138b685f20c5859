"""The consumer scenario's settings: one consumer, its Kafka settings (by Kafka version) and the
cluster around it, validated at construction (:class:`ConsumerScenario`). Import it from
:mod:`kipviz.scenarios.consumer.scenario`, which holds ``simulate`` as every kind's
``scenario.py`` does (the two would pass the 400-line ceiling in one module).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kipviz.kafka.clients.bounds import CLIENT_NAMES
from kipviz.kafka.clients.fetching import ClientFetch, client_fetch
from kipviz.kafka.clients.settings import CLIENTS, read_client_config
from kipviz.kafka.config.checks import bounds_text
from kipviz.kafka.config.declarations import BROKER, CONSUMER
from kipviz.kafka.config.fields import (
    FieldRule,
    check_declared,
    choice,
    flag,
    items,
    kafka_field,
    knob,
    nested,
    values_from,
)
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig, check_buffer_memory
from kipviz.kafka.config.versions import (
    fetch_request_version,
    has,
    kafka_version_field,
    request_ordering,
    version_key,
)
from kipviz.kafka.consumer.buffer_memory import pooled_bytes_bound
from kipviz.kafka.consumer.memory import one_round
from kipviz.kafka.fetch.request import Ordering
from kipviz.kafka.fetch.response import largest_response_bytes, response_limit_bytes
from kipviz.kafka.fetch.session import FetchOrder, java_fetch_order
from kipviz.scenarios.consumer.kernel import HEARTBEAT_RESPONSE_BYTES
from kipviz.scenarios.workload import Workload

__all__ = ["TOPIC", "ConsumerScenario"]

TOPIC = "events"
_ORDERINGS = f"an Ordering ({', '.join(f'{o.name} = {o.value}' for o in Ordering)})"


@dataclass(frozen=True)
class ConsumerScenario:
    """One consumer, its Kafka settings and the cluster around it; vary it with ``replace``."""

    partitions: int = knob(100, at_least=1)
    brokers: int = knob(3, at_least=1)
    fetch_max_bytes: int = kafka_field(CONSUMER["fetch.max.bytes"])
    max_partition_fetch_bytes: int = kafka_field(CONSUMER["max.partition.fetch.bytes"])
    broker_fetch_max_bytes: int = kafka_field(BROKER["fetch.max.bytes"],
                                              label="broker fetch.max.bytes")
    fetch_min_bytes: int = kafka_field(CONSUMER["fetch.min.bytes"])
    fetch_max_wait_ms: int = kafka_field(CONSUMER["fetch.max.wait.ms"])
    # None: as this Kafka version does (kipviz.kafka.fetch.session.java_fetch_order): its request
    # order for full fetches and re-added partitions, the fetch session's for incremental ones
    ordering: Ordering | None = choice(None, Ordering, optional=True, rule=_ORDERINGS)
    # KIP-227 (1.1): False makes every fetch full, as a broker with
    # max.incremental.fetch.session.cache.slots=0 or a session evicted before each fetch
    incremental_fetch_sessions: bool = flag(True)
    # how the Java consumer got its partitions, which decides the order it starts in: "group"
    # (a classic group's assignment, in topic-partition order: ConsumerCoordinator.onJoinComplete's
    # TreeSet) or "assign" (KafkaConsumer.assign: a HashSet, then SubscriptionState.assignFromUser's
    # HashMap, so Java hash order; measured on 4.4.0 and 3.9.2, kipviz reality partition_order)
    assignment: str = choice("group", ("group", "assign"))
    # fetch request version (a Java short); None: the newest the Kafka version sends (<= 2:
    # before KIP-74)
    version: int | None = knob(None, at_least=0, optional=True, java="short",
                               label="fetch request version")
    # "MAJOR.MINOR": the rules of that release
    kafka_version: str = kafka_version_field()
    # the client's consumer_byte_rate quota (None: Long.MAX_VALUE, no quota)
    fetch_quota_bytes_per_s: float | None = kafka_field(
        CONSUMER["consumer_byte_rate"], above=0, number=True, label="consumer_byte_rate")
    # Consumer.pause(...) at pause_at_ms
    paused_partitions: tuple[int, ...] = items(of=FieldRule(at_least=0),
                                               rule="a tuple of partitions")
    pause_at_ms: int = knob(0, at_least=0)
    consume_bytes_per_s: float = knob(100e6, above=0, number=True)
    rtt_ms: int = knob(10, at_least=1)
    # each broker's link to the consumer (1 Gbit/s)
    network_bytes_per_s: float = knob(125e6, above=0, number=True)
    tick_ms: int = knob(10, at_least=1)
    ticks: int = knob(1000, at_least=1)
    windows: int = knob(20, at_least=1)
    workload: Workload = nested(Workload, Workload)
    # KIP-81 (as proposed, never shipped): None is today's consumer, without a pool; a pool
    # of 0 bytes could hold nothing, so the model asks for >= 1 (and >= fetch.max.bytes)
    buffer_memory_bytes: int | None = kafka_field(CONSUMER["buffer.memory"], at_least=1)
    # a what-if: Kafka's SimpleMemoryPool is non-strict in KIP-72/81
    strict_pool: bool = flag(False)
    coordinator_bypass: bool = flag(True)  # KIP-81 step 3.b: heartbeats are read even when dry
    # KIP-81's rejected alternative: at most N fetch responses in flight or not yet consumed
    max_in_flight_fetches: int | None = knob(None, at_least=1, optional=True)
    heartbeat_interval_ms: int = kafka_field(CONSUMER["heartbeat.interval.ms"])  # 0: none
    # Kafka puts no bound on session.timeout.ms; a session of 0 ms would expire at once
    session_timeout_ms: int = kafka_field(CONSUMER["session.timeout.ms"], at_least=1)
    # issue 31: whose consumer fetches (kipviz.kafka.clients.fetching); "java" is the fields above
    client: str = choice("java", CLIENT_NAMES)
    # the client's own settings by its own names ({"queued.max.messages.kbytes": 10000}, or
    # (name, value) pairs); Java's are the fields above
    client_settings: tuple[tuple[str, int], ...] | Mapping[str, int] = items(
        of=(("name", FieldRule(kind="text")), ("value", FieldRule())),
        rule="(name, value) pairs of the client's settings")
    # decompressed bytes per wire byte: librdkafka and franz-go hold decompressed records
    compression_ratio: float = knob(1.0, at_least=1.0, number=True)

    def __post_init__(self) -> None:
        if isinstance(self.client_settings, Mapping):
            object.__setattr__(self, "client_settings", tuple(sorted(self.client_settings.items())))
        check_declared(self)  # each field's rule, from its declaration (kipviz.kafka.config.fields)
        self._check_client()
        if self.windows > self.ticks:
            raise ValueError(f"windows must be <= ticks ({self.ticks}): {self.windows}")
        self._check_version()
        if self.ordering == Ordering.SESSION and not has(self.kafka_version, "fetch_sessions"):
            raise ValueError(f"ordering must not be SESSION before fetch sessions (KIP-227, "
                             f"Kafka 1.1; kafka_version {self.kafka_version!r}): "
                             f"{self.ordering!r}")
        if self.ordering == Ordering.SESSION and not self.incremental_fetch_sessions:
            raise ValueError(f"ordering must not be SESSION without incremental fetch sessions "
                             f"(incremental_fetch_sessions=False): {self.ordering!r}")
        for i, p in enumerate(self.paused_partitions):
            if p >= self.partitions:
                raise ValueError(f"paused_partitions[{i}] must be a partition, 0.."
                                 f"{self.partitions - 1}: {p}")
        check_buffer_memory(self.buffer_memory_bytes, self.fetch_max_bytes)  # KIP-81's rule
        if (self.buffer_memory_bytes is not None and not self.coordinator_bypass
                and self.heartbeat_interval_ms > 0
                and self.buffer_memory_bytes < HEARTBEAT_RESPONSE_BYTES):
            raise ValueError(f"buffer_memory_bytes (buffer.memory) must be >= "
                             f"{HEARTBEAT_RESPONSE_BYTES} (a heartbeat response) when heartbeats "
                             f"do not bypass the pool: {self.buffer_memory_bytes}")

    def _check_client(self) -> None:
        """Client settings by the client's own names, and none of Java's what-ifs on another
        client (the pause, KIP-81's pool and in-flight cap are modelled on Java's consumer)."""
        if self.client == "java":
            if self.client_settings:
                raise ValueError(f"client_settings must be empty for client 'java' (its settings "
                                 f"are the scenario's own fields): {dict(self.client_settings)}")
            return
        table = CLIENTS[self.client]
        pairs = dict(self.client_settings)
        for key, value in pairs.items():
            if key not in table and not (self.client == "librdkafka"
                                         and key == "max.partition.fetch.bytes"):
                raise ValueError(f"client_settings ({key}) must be a {self.client} setting "
                                 f"({', '.join(sorted(table))}): {value}")
        read_client_config(self.client, pairs)  # ranges, one error shape
        self.client_fetch  # noqa: B018 - the combinations each client refuses, at construction
        for name, default in (("paused_partitions", ()), ("buffer_memory_bytes", None),
                              ("ordering", None), ("incremental_fetch_sessions", True),
                              ("max_in_flight_fetches", None)):
            if getattr(self, name) != default:
                raise ValueError(f"{name} must be {default!r} for client {self.client!r} (a "
                                 f"what-if on Java's consumer): {getattr(self, name)!r}")

    @property
    def client_fetch(self) -> ClientFetch | None:
        """How a client other than Java's fetches and holds (None for ``"java"``:
        :func:`kipviz.kafka.clients.fetching.client_fetch`)."""
        if self.client == "java":
            return None
        return client_fetch(self.client, dict(self.client_settings),
                            compression_ratio=self.compression_ratio)

    @property
    def request_max_bytes(self) -> int:
        """The request's MaxBytes: ``fetch_max_bytes``, or the client's (its own rules)."""
        c = self.client_fetch
        return self.fetch_max_bytes if c is None else c.fetch_max_bytes

    @property
    def partition_max_bytes(self) -> int:
        """Each partition's MaxBytes: ``max_partition_fetch_bytes``, or the client's."""
        c = self.client_fetch
        return self.max_partition_fetch_bytes if c is None else c.partition_max_bytes

    def _check_version(self) -> None:
        """A fetch request version the chosen Kafka release can send (4.0 dropped v0 to v3)."""
        if self.version is None:
            return
        newest = fetch_request_version(self.kafka_version)
        oldest = 4 if version_key(self.kafka_version) >= (4, 0) else 0
        if not oldest <= self.version <= newest:
            raise ValueError(f"version (fetch request version) must be "
                             f"{bounds_text(oldest, newest)} for kafka_version "
                             f"{self.kafka_version!r}: {self.version}")

    @property
    def fetch_version(self) -> int:
        """The fetch request version sent: ``version``, or the newest the release sends."""
        return (fetch_request_version(self.kafka_version) if self.version is None
                else self.version)

    @property
    def request_ordering(self) -> Ordering:
        """``ordering``, or the order the release's consumer uses
        (:mod:`kipviz.kafka.config.versions`)."""
        return (request_ordering(self.kafka_version) if self.ordering is None
                else Ordering(self.ordering))

    @property
    def fetch_order(self) -> FetchOrder:
        """How partitions are ordered: the consumer's request order and, with incremental fetch
        sessions, the session's (:func:`kipviz.kafka.fetch.session.java_fetch_order`)."""
        return java_fetch_order(self.kafka_version, self.ordering,
                                incremental_fetch_sessions=self.incremental_fetch_sessions,
                                fetch_version=self.fetch_version)

    @property
    def mode(self) -> str:
        """``"today"`` (no pool), ``"kip81_pool"`` or ``"in_flight_cap"`` (the rejected one)."""
        if self.buffer_memory_bytes is not None:
            return "kip81_pool"
        return "today" if self.max_in_flight_fetches is None else "in_flight_cap"

    def largest_response_bytes(self, max_batch_bytes: int = 0) -> int:
        """The largest fetch response a broker can send this consumer
        (:func:`kipviz.kafka.fetch.response.largest_response_bytes`)."""
        return largest_response_bytes(self.partitions, self.brokers, self.response_max_bytes,
                                      self.partition_max_bytes,
                                      max_batch_bytes=max_batch_bytes, version=self.fetch_version)

    @classmethod
    def from_configs(cls, consumer: ConsumerConfig, broker: BrokerConfig | None = None,
                     **scenario: Any) -> ConsumerScenario:
        """A scenario with the settings of a consumer's (and broker's) Kafka config that it
        models (those its fields declare: :func:`kipviz.kafka.config.fields.values_from`);
        ``scenario`` sets the rest."""
        return cls(**{**values_from(cls, consumer, broker or BrokerConfig()), **scenario})

    @property
    def response_max_bytes(self) -> int:
        """The broker's response limit for this consumer, as the Kafka version applies it: the
        broker's fetch.max.bytes (KIP-541) and the quota window (KAFKA-9677), both from 2.5."""
        return response_limit_bytes(self.kafka_version, self.request_max_bytes,
                                    self.broker_fetch_max_bytes, self.fetch_quota_bytes_per_s)

    def bounds(self, max_batch_bytes: int = 0) -> dict[str, int]:
        """The analytic memory bounds drawn beside the simulated memory."""
        p, b, mpfb = self.partitions, self.brokers, self.partition_max_bytes
        kip = one_round(b, self.request_max_bytes, mpfb, p)  # the KIP's arithmetic
        held = one_round(b, self.response_max_bytes, mpfb, p, max_batch_bytes)  # what holds
        return {
            "pre_kip74_bound_bytes": kip.buffered_bytes,
            "kip74_bound_bytes": kip.bound_bytes,
            "in_flight_bound_bytes": held.in_flight_bytes,
            "buffered_bound_bytes": held.buffered_bytes,
            "largest_response_bytes": self.largest_response_bytes(max_batch_bytes),
            **({} if self.buffer_memory_bytes is None else {
                "buffer_memory_bytes": self.buffer_memory_bytes,
                "pooled_bound_bytes": pooled_bytes_bound(
                    self.buffer_memory_bytes, self.largest_response_bytes(max_batch_bytes),
                    strict=self.strict_pool)}),
        }


