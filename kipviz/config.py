"""Kafka config names, defaults, units, validation and ``.properties`` import.

Each modelled setting is a field whose name carries its unit and whose metadata holds its Kafka
key and its ConfigDef bound, so the mapping lives in one table per class. Defaults and rules are
Kafka's: ``ConsumerConfig`` (``org.apache.kafka.clients.consumer.ConsumerConfig``),
``BrokerConfig`` (``KafkaConfig`` / ``ServerConfigs``, ``ReplicationConfigs``,
``SocketServerConfigs``, ``QuotaConfigs`` and the dynamic ``DynamicConfig.Broker`` rates).

``buffer.memory`` on a consumer is KIP-81's proposal (default 104857600), which never shipped in
Apache Kafka: ``buffer_memory_bytes=None`` is today's consumer, without a memory pool.

Variants are made with ``dataclasses.replace(cfg, fetch_max_bytes=...)``, which validates again.
``from_properties`` returns a ``LoadedConfig``: the config and the keys it ``ignored`` (real Kafka
settings that kipviz does not model); an unknown key is an error with a "did you mean" hint.
"""

from __future__ import annotations

import dataclasses
import difflib
import numbers
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

__all__ = [
    "KIP81_PROPOSED_BUFFER_MEMORY_BYTES",
    "BrokerConfig",
    "ConsumerConfig",
    "LoadedConfig",
    "parse_properties",
]

KIP81_PROPOSED_BUFFER_MEMORY_BYTES = 104857600
"""KIP-81's proposed default for consumer ``buffer.memory`` (never shipped in Kafka)."""

_JAVA_RANGE = {"int": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}
_INTEGER = re.compile(r"[+-]?[0-9]+")  # Integer.parseInt / Long.parseLong after trim()
_COMMON_PREFIXES = ("ssl.", "sasl.", "listener.name.")


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Real Kafka settings that kipviz accepts in a .properties file but does not model.
_CONSUMER_UNMODELLED = _names("""
    allow.auto.create.topics auto.commit.interval.ms auto.include.jmx.reporter auto.offset.reset
    bootstrap.resolve.timeout.ms bootstrap.servers check.crcs client.dns.lookup client.id
    client.rack config.providers connections.max.idle.ms default.api.timeout.ms enable.auto.commit
    enable.metrics.push exclude.internal.topics group.id group.instance.id group.protocol
    group.remote.assignor interceptor.classes internal.leave.group.on.close
    internal.throw.on.fetch.stable.offset.unsupported isolation.level key.deserializer
    max.poll.interval.ms metadata.max.age.ms metadata.recovery.rebootstrap.trigger.ms
    metadata.recovery.strategy metric.reporters metrics.num.samples metrics.recording.level
    metrics.sample.window.ms partition.assignment.strategy reconnect.backoff.max.ms
    reconnect.backoff.ms retry.backoff.max.ms retry.backoff.ms security.protocol security.providers
    send.buffer.bytes session.timeout.ms share.acknowledgement.mode
    socket.connection.setup.timeout.max.ms socket.connection.setup.timeout.ms value.deserializer
""")

_BROKER_UNMODELLED = _names("""
    advertised.listeners allow.everyone.if.no.acl.found alter.config.policy.class.name
    authorizer.class.name auto.create.topics.enable auto.leader.rebalance.enable background.threads
    broker.id broker.id.generation.enable broker.rack client.quota.callback.class compression.type
    config.providers connections.max.idle.ms control.plane.listener.name controlled.shutdown.enable
    controlled.shutdown.max.retries controlled.shutdown.retry.backoff.ms controller.listener.names
    controller.quorum.bootstrap.servers controller.quorum.voters create.topic.policy.class.name
    default.replication.factor delegation.token.expiry.time.ms delegation.token.max.lifetime.ms
    delegation.token.secret.key delete.topic.enable early.start.listeners
    fetch.purgatory.purge.interval.requests group.coordinator.rebalance.protocols
    group.initial.rebalance.delay.ms group.max.session.timeout.ms group.max.size
    group.min.session.timeout.ms inter.broker.listener.name inter.broker.protocol.version
    leader.imbalance.check.interval.seconds leader.imbalance.per.broker.percentage
    listener.security.protocol.map listeners log.cleaner.dedupe.buffer.size log.cleaner.enable
    log.cleaner.threads log.cleanup.policy log.dir log.dirs log.flush.interval.messages
    log.flush.interval.ms log.index.size.max.bytes log.local.retention.bytes log.local.retention.ms
    log.message.format.version log.message.timestamp.type log.retention.bytes
    log.retention.check.interval.ms log.retention.hours log.retention.minutes log.retention.ms
    log.roll.hours log.roll.ms log.segment.bytes log.segment.delete.delay.ms
    max.connection.creation.rate max.connections max.connections.per.ip
    max.connections.per.ip.overrides max.incremental.fetch.session.cache.slots
    max.request.partition.size.limit metadata.log.dir metadata.log.segment.bytes
    metadata.max.retention.bytes metric.reporters metrics.num.samples metrics.recording.level
    metrics.sample.window.ms min.insync.replicas node.id num.partitions
    num.recovery.threads.per.data.dir num.replica.alter.log.dirs.threads num.replica.fetchers
    offsets.commit.timeout.ms offsets.retention.minutes offsets.topic.num.partitions
    offsets.topic.replication.factor principal.builder.class process.roles
    producer.purgatory.purge.interval.requests remote.fetch.max.wait.ms
    remote.log.storage.system.enable replica.alter.log.dirs.io.max.bytes.per.second
    replica.fetch.backoff.ms replica.fetch.min.bytes replica.fetch.wait.max.ms
    replica.high.watermark.checkpoint.interval.ms replica.lag.time.max.ms replica.selector.class
    replica.socket.receive.buffer.bytes replica.socket.timeout.ms request.timeout.ms
    reserved.broker.max.id security.inter.broker.protocol security.providers
    socket.listen.backlog.size socket.receive.buffer.bytes socket.send.buffer.bytes super.users
    transaction.max.timeout.ms transaction.state.log.min.isr
    transaction.state.log.replication.factor transactional.id.expiration.ms
    unclean.leader.election.enable zookeeper.connect zookeeper.connection.timeout.ms
    zookeeper.session.timeout.ms zookeeper.set.acl
""")


def _setting(key: str, default: int | None, *, at_least: int | None = None,
             above: int | None = None, java: str = "int") -> Any:
    """A field for Kafka setting ``key`` with its ConfigDef bound (``atLeast``) and Java type."""
    rule = {"kafka": key, "at_least": at_least, "above": above, "java": java}
    return field(default=default, metadata=rule)


ConfigT = TypeVar("ConfigT", bound="_Settings")


@dataclass(frozen=True)
class LoadedConfig(Generic[ConfigT]):
    """What ``from_properties`` read: the ``config`` and the real Kafka keys it ``ignored``."""

    config: ConfigT
    ignored: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Settings:
    """Shared behaviour: per-field validation, Kafka key mapping and .properties import."""

    _ROLE: ClassVar[str] = ""
    _WHERE: ClassVar[str] = ""  # appended to every rule in an error message
    _UNMODELLED: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value, key, rule = getattr(self, f.name), f.metadata["kafka"], f.metadata
            if value is None and f.default is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{key} must be an int, not {type(value).__name__}: {value!r}")
            value = int(value)
            object.__setattr__(self, f.name, value)  # numpy ints become plain ints
            low, high = _JAVA_RANGE[rule["java"]]
            if not low <= value <= high:
                raise ValueError(f"{key} must fit in a Java {rule['java']}{self._WHERE}: {value}")
            if rule["at_least"] is not None and value < rule["at_least"]:
                raise ValueError(f"{key} must be >= {rule['at_least']}{self._WHERE}: {value}")
            if rule["above"] is not None and value <= rule["above"]:
                raise ValueError(f"{key} must be > {rule['above']} when set{self._WHERE}: {value}")
        self._check_together()

    def _check_together(self) -> None:
        """Rules that relate two settings (none by default)."""

    @classmethod
    def kafka_keys(cls) -> dict[str, str]:
        """Field name -> Kafka key, e.g. ``{"fetch_max_bytes": "fetch.max.bytes", ...}``."""
        return {f.name: f.metadata["kafka"] for f in dataclasses.fields(cls)}

    @classmethod
    def from_properties(cls, source: str | os.PathLike[str] | Mapping[str, object]
                        ) -> LoadedConfig[Self]:
        """Read a ``.properties`` file (path) or a mapping of Kafka keys to values.

        Values are integers as Kafka parses them (surrounding whitespace stripped). Keys kipviz
        models set fields; other real Kafka settings are listed in ``ignored`` (in file order);
        any other key raises ``ValueError`` with the closest known key as a hint. Files are read
        as ISO-8859-1, as Kafka's ``Utils.loadProps`` (``Properties.load(InputStream)``) does.
        """
        if isinstance(source, Mapping):
            entries: Mapping[str, object] = source
        else:
            entries = parse_properties(Path(source).read_text(encoding="latin-1"))
        fields_by_key = {key: name for name, key in cls.kafka_keys().items()}
        values: dict[str, int] = {}
        ignored: list[str] = []
        for key, raw in entries.items():
            if key in fields_by_key:
                values[fields_by_key[key]] = _parse_int(key, raw)
            elif key in cls._UNMODELLED or key.startswith(_COMMON_PREFIXES):
                ignored.append(key)
            else:
                known = [*fields_by_key, *cls._UNMODELLED]
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ValueError(f"unknown {cls._ROLE} config {key!r}{hint}")
        return LoadedConfig(cls(**values), tuple(ignored))

    def to_kafka_dict(self, *, include_defaults: bool = True) -> dict[str, int]:
        """Kafka key -> value; unset optional settings (``None``) are left out."""
        out: dict[str, int] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None and (include_defaults or value != f.default):
                out[f.metadata["kafka"]] = value
        return out

    def to_properties(self, *, include_defaults: bool = False) -> str:
        """``key=value`` lines, by default only for settings that differ from Kafka's default."""
        items = self.to_kafka_dict(include_defaults=include_defaults).items()
        return "".join(f"{key}={value}\n" for key, value in items)


def _parse_int(key: str, raw: object) -> int:
    if isinstance(raw, numbers.Integral) and not isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, str) and _INTEGER.fullmatch(raw.strip()):
        return int(raw.strip())
    raise ValueError(f"{key} must be an integer: {raw!r}")


@dataclass(frozen=True)
class ConsumerConfig(_Settings):
    """A Kafka consumer's fetch, poll and memory settings (``ConsumerConfig``; KIP-74, KIP-81).

    ``buffer_memory_bytes`` is KIP-81's ``buffer.memory`` as proposed: ``None`` (the default) is
    the consumer Kafka ships, with no memory pool; set it (KIP-81 proposed
    ``KIP81_PROPOSED_BUFFER_MEMORY_BYTES``) to model the pool. It must be >= ``fetch.max.bytes``.
    """

    _ROLE: ClassVar[str] = "consumer"
    _UNMODELLED: ClassVar[frozenset[str]] = _CONSUMER_UNMODELLED

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
    _UNMODELLED: ClassVar[frozenset[str]] = _BROKER_UNMODELLED

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


# --- java.util.Properties.load syntax ----------------------------------------------------------

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
