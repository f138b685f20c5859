"""Every Kafka setting kipviz models, declared once: Kafka name, Python name, Java type, range,
default, unit and rule.

Defaults and validators are Kafka's ``ConfigDef`` definitions on apache/kafka trunk:
``ConsumerConfig`` and ``CommonClientConfigs`` (clients), ``ServerConfigs``,
``SocketServerConfigs``, ``ReplicationConfigs``, ``QuotaConfig`` (with ``DynamicConfig.Broker``'s
throttled rates), ``RemoteLogManagerConfig``, ``ShareGroupConfig``, ``LogConfig`` and
``StreamsConfig``. Two never shipped and are declared as their KIPs proposed them: KIP-81's
consumer ``buffer.memory`` and KIP-770's ``input.buffer.max.bytes``.

``at_least`` / ``at_most`` is the range kipviz enforces: Kafka's ``atLeast(n)`` /
``between(a, b)``; where Kafka has no validator and a value would mean nothing (a negative
interval), ``note`` says what kipviz asks instead. A ``None`` default means "unset": Kafka's
``Long.MAX_VALUE`` (no throttle, no quota) or a setting Kafka does not have.

Look a setting up by role and Kafka name: ``CONSUMER["fetch.max.bytes"].default`` is 52428800,
``BROKER["fetch.max.bytes"].default`` 57671680 (the same key means two settings).

>>> CONSUMER["fetch.max.bytes"].validator, BROKER["replica.fetch.max.bytes"].validator
('atLeast(0)', 'atLeast(0)')
>>> BROKER["group.share.delivery.count.limit"].validator
'between(2, 10)'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from kipviz.kafka.units import MiB

__all__ = ["BROKER", "CONSUMER", "GROUP", "KIP81_PROPOSED_BUFFER_MEMORY_BYTES", "ROLES",
           "STREAMS", "Setting", "SettingTable"]

JAVA_TYPES = ("short", "int", "long", "double")


@dataclass(frozen=True)
class Setting:
    """One Kafka setting: ``key`` (Kafka's name), ``name`` (kipviz's, in Kafka's words with its
    unit), ``java`` type, ``default`` (None: unset / ``Long.MAX_VALUE``), the range kipviz
    enforces (``at_least``, ``at_most``), ``unit``, a one-line ``rule`` and Kafka's ``source``
    class; ``note`` says where kipviz's range differs from Kafka's validator."""

    role: str
    key: str
    name: str
    java: str
    default: int | None
    at_least: int | None
    at_most: int | None
    unit: str
    rule: str
    source: str
    note: str = ""
    # earlier defaults, oldest first: (value, release) is "value until that release", after which
    # the next one (and, after the last, ``default``) holds
    default_until: tuple[tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        if self.java not in JAVA_TYPES:
            raise ValueError(f"java must be one of {', '.join(JAVA_TYPES)}: {self.java!r}")

    def default_in(self, kafka_version: str) -> int | None:
        """The default in release ``kafka_version`` ("MAJOR.MINOR"): the first earlier default
        whose release is still to come, else :attr:`default` (Kafka's newest).

        >>> locks = BROKER["group.share.partition.max.record.locks"]
        >>> locks.default_in("4.0"), locks.default_in("4.1"), locks.default
        (200, 2000, 2000)
        """
        key = _release_key(kafka_version)
        for value, until in self.default_until:
            if key < _release_key(until):
                return value
        return self.default

    @property
    def validator(self) -> str:
        """The range as Kafka's ``ConfigDef`` writes it: ``atLeast(0)``, ``between(2, 10)``."""
        if self.at_least is not None and self.at_most is not None:
            return f"between({self.at_least}, {self.at_most})"
        if self.at_least is not None:
            return f"atLeast({self.at_least})"
        return "none"


class SettingTable(Mapping[str, Setting]):
    """The settings of one role, by Kafka key (read-only)."""

    def __init__(self, role: str, settings: tuple[Setting, ...]) -> None:
        self.role = role
        self._by_key = {s.key: s for s in settings}
        if len(self._by_key) != len(settings):
            raise ValueError(f"a {role} key is declared twice")

    def __getitem__(self, key: str) -> Setting:
        try:
            return self._by_key[key]
        except KeyError:
            raise KeyError(f"kipviz declares no {self.role} setting {key!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_key)

    def __len__(self) -> int:
        return len(self._by_key)

    def __repr__(self) -> str:
        return f"SettingTable({self.role!r}, {len(self)} settings)"

    def default_of(self, key: str) -> int:
        """The Kafka default of ``key``, for a setting that has one (ValueError if unset)."""
        default = self[key].default
        if default is None:
            raise ValueError(f"{self.role} setting {key!r} has no default (unset)")
        return default


def _release_key(kafka_version: str) -> tuple[int, ...]:
    """``"4.1"`` -> ``(4, 1)``: releases ordered as releases."""
    return tuple(int(part) for part in kafka_version.split("."))


def _declare(role: str, source: str, rows: tuple[tuple[object, ...], ...]) -> tuple[Setting, ...]:
    """Settings from ``(key, name, java, default, at_least, at_most, unit, rule[, note])`` rows,
    each with the ``source`` class; a row's own source may follow after ``@`` in its key. A
    default that changed between releases is written ``(200, "4.1", 2000)``: 200 until 4.1,
    2000 from then on (:attr:`Setting.default_until`)."""
    out = []
    for key, name, java, default, low, high, unit, rule, *note in rows:
        key, _, own = str(key).partition("@")
        steps = default if isinstance(default, tuple) else (default,)
        until = tuple(zip(steps[:-1:2], steps[1:-1:2], strict=True))
        out.append(Setting(role, key, str(name), str(java), steps[-1],
                           low, high, str(unit), str(rule), own or source,  # type: ignore[arg-type]
                           str(note[0]) if note else "", until))
    return tuple(out)


KIP81_PROPOSED_BUFFER_MEMORY_BYTES = 104857600
"""KIP-81's proposed default for consumer ``buffer.memory`` (never shipped in Kafka)."""

_NO_BOUND = ("Kafka's ConfigDef has no validator; kipviz rejects a negative value, which "
             "means nothing")

CONSUMER = SettingTable("consumer", _declare("consumer", "ConsumerConfig", (
    ("fetch.max.bytes", "fetch_max_bytes", "int", 52428800, 0, None, "bytes",
     "most bytes a broker returns for one fetch request (KIP-74); a first batch may exceed it"),
    ("max.partition.fetch.bytes", "max_partition_fetch_bytes", "int", 1048576, 0, None, "bytes",
     "most bytes a broker returns per partition; a first batch may exceed it"),
    ("fetch.min.bytes", "fetch_min_bytes", "int", 1, 0, None, "bytes",
     "the broker parks a fetch until it holds this many bytes or fetch.max.wait.ms passes"),
    ("fetch.max.wait.ms", "fetch_max_wait_ms", "int", 500, 0, None, "ms",
     "longest a broker parks a fetch that holds fewer than fetch.min.bytes"),
    ("max.poll.records", "max_poll_records", "int", 500, 1, None, "records",
     "most records one poll() returns (a share fetch's MaxRecords, KIP-932)"),
    ("heartbeat.interval.ms", "heartbeat_interval_ms", "int", 3000, 0, None, "ms",
     "time between heartbeats to the group coordinator", _NO_BOUND),
    ("session.timeout.ms", "session_timeout_ms", "int", 45000, None, None, "ms",
     "the coordinator removes a member it has not heard from for this long"),
    ("request.timeout.ms", "request_timeout_ms", "int", 30000, 0, None, "ms",
     "how long the client waits for a response before it retries or fails"),
    ("receive.buffer.bytes@CommonClientConfigs", "receive_buffer_bytes", "int", 65536, -1, None,
     "bytes", "the socket's SO_RCVBUF; -1 is the operating system's default"),
    ("buffer.memory@KIP-81 (proposed)", "buffer_memory_bytes", "long", None, 0, None, "bytes",
     "KIP-81's pool for fetched bytes, >= fetch.max.bytes; unset is today's consumer (no pool)"),
    ("consumer_byte_rate@QuotaConfig", "fetch_quota_bytes_per_s", "long", None, None, None,
     "bytes/s", "a client's fetch quota; unset is Long.MAX_VALUE (no quota)"),
)))

BROKER = SettingTable("broker", _declare("broker", "ServerConfigs", (
    ("fetch.max.bytes", "fetch_max_bytes", "int", 57671680, 1024, None, "bytes",
     "the broker caps every consumer's fetch response at this (KIP-541, Kafka 2.5)"),
    ("message.max.bytes", "message_max_bytes", "int", 1048588, 0, None, "bytes",
     "largest record batch the broker accepts"),
    ("num.io.threads", "num_io_threads", "int", 8, 1, None, "threads",
     "request handler threads"),
    ("queued.max.request.bytes@SocketServerConfigs", "queued_max_request_bytes", "long", -1,
     None, None, "bytes",
     "KIP-72's request memory pool; <= 0 means none, else >= socket.request.max.bytes"),
    ("socket.request.max.bytes@SocketServerConfigs", "socket_request_max_bytes", "int",
     104857600, 1, None, "bytes", "largest request the broker reads; larger closes the connection"),
    ("queued.max.requests@SocketServerConfigs", "queued_max_requests", "int", 500, 1, None,
     "requests", "the request queue; the network threads block when it is full"),
    ("num.network.threads@SocketServerConfigs", "num_network_threads", "int", 3, 1, None,
     "threads", "network (processor) threads per listener"),
    ("replica.fetch.max.bytes@ReplicationConfigs", "replica_fetch_max_bytes", "int", 1048576, 0,
     None, "bytes", "most bytes a follower asks per partition; a first batch may exceed it"),
    ("replica.fetch.response.max.bytes@ReplicationConfigs", "replica_fetch_response_max_bytes",
     "int", 10485760, 0, None, "bytes", "most bytes in one replica fetch response"),
    ("replication.quota.window.num@QuotaConfig", "replication_quota_window_num", "int", 11, 1,
     None, "windows", "samples of the replication quotas' rate (KIP-73)"),
    ("replication.quota.window.size.seconds@QuotaConfig",
     "replication_quota_window_size_seconds", "int", 1, 1, None, "s",
     "span of one replication quota sample"),
    ("quota.window.num@QuotaConfig", "quota_window_num", "int", 11, 1, None, "windows",
     "samples of the client quotas' rate"),
    ("quota.window.size.seconds@QuotaConfig", "quota_window_size_seconds", "int", 1, 1, None, "s",
     "span of one client quota sample"),
    ("controller.quota.window.num@QuotaConfig", "controller_quota_window_num", "int", 11, 1,
     None, "windows", "samples of the controller mutation quota (KIP-599)"),
    ("controller.quota.window.size.seconds@QuotaConfig", "controller_quota_window_size_seconds",
     "int", 1, 1, None, "s", "span of one controller mutation quota sample"),
    ("leader.replication.throttled.rate@QuotaConfig",
     "leader_replication_throttled_rate_bytes_per_s", "long", None, 0, None, "bytes/s",
     "a leader's throttled replication rate (KIP-73); unset is Long.MAX_VALUE; 0 stops it"),
    ("follower.replication.throttled.rate@QuotaConfig",
     "follower_replication_throttled_rate_bytes_per_s", "long", None, 0, None, "bytes/s",
     "a follower's throttled replication rate (KIP-73); unset is Long.MAX_VALUE; 0 stops it"),
    ("metrics.num.samples@MetricConfigs", "metrics_num_samples", "int", 2, 1, None, "samples",
     "samples of a metric's rate"),
    ("metrics.sample.window.ms@MetricConfigs", "metrics_sample_window_ms", "long", 30000, 1, None,
     "ms", "span of one metric sample"),
    ("log.segment.bytes@LogConfig", "segment_bytes", "int", 1024 * MiB, 1 * MiB, None, "bytes",
     "largest log segment file"),
    ("remote.fetch.max.wait.ms@RemoteLogManagerConfig", "remote_fetch_max_wait_ms", "int", 500,
     1, None, "ms", "DelayedRemoteFetch's timeout (KIP-1018, Kafka 3.8)"),
    ("remote.log.reader.threads@RemoteLogManagerConfig", "remote_log_reader_threads", "int", 10,
     1, None, "threads", "threads reading remote segments (KIP-405)"),
    ("remote.log.manager.fetch.max.bytes.per.second@RemoteLogManagerConfig",
     "remote_fetch_max_bytes_per_s", "long", None, 1, None, "bytes/s",
     "KIP-956's remote fetch quota; unset is Long.MAX_VALUE (no quota)"),
    ("remote.log.manager.copy.max.bytes.per.second@RemoteLogManagerConfig",
     "remote_copy_max_bytes_per_s", "long", None, 1, None, "bytes/s",
     "KIP-956's remote copy quota; unset is Long.MAX_VALUE (no quota)"),
    ("remote.log.manager.fetch.quota.window.num@RemoteLogManagerConfig",
     "remote_fetch_quota_window_num", "int", 11, 1, None, "windows",
     "samples of the remote fetch quota"),
    ("remote.log.manager.fetch.quota.window.size.seconds@RemoteLogManagerConfig",
     "remote_fetch_quota_window_size_seconds", "int", 1, 1, None, "s",
     "span of one remote fetch quota sample"),
    ("remote.log.manager.copy.quota.window.num@RemoteLogManagerConfig",
     "remote_copy_quota_window_num", "int", 11, 1, None, "windows",
     "samples of the remote copy quota"),
    ("remote.log.manager.copy.quota.window.size.seconds@RemoteLogManagerConfig",
     "remote_copy_quota_window_size_seconds", "int", 1, 1, None, "s",
     "span of one remote copy quota sample"),
    ("group.share.partition.max.record.locks@ShareGroupConfig", "max_record_locks", "int",
     (200, "4.1", 2000), 100, 10000, "records",
     "most in-flight (acquired or available) records per share partition (200 in 4.0)"),
    ("group.share.record.lock.duration.ms@ShareGroupConfig", "record_lock_duration_ms", "int",
     30000, 1000, 3600000, "ms", "an acquired record's lock; it comes back when the lock expires"),
    ("group.share.delivery.count.limit@ShareGroupConfig", "delivery_count_limit", "int", 5, 2, 10,
     "deliveries", "a record delivered this often is archived"),
    ("group.share.max.partition.max.record.locks@ShareGroupConfig",
     "max_partition_max_record_locks", "int", 4000, 2000, 10000, "records",
     "the largest share.partition.max.record.locks a group gets (KIP-1240, Kafka 4.3)"),
    ("group.share.min.partition.max.record.locks@ShareGroupConfig",
     "min_partition_max_record_locks", "int", 100, 100, 2000, "records",
     "the smallest share.partition.max.record.locks a group gets (KIP-1240, Kafka 4.3)"),
    ("group.share.max.delivery.count.limit@ShareGroupConfig", "max_delivery_count_limit", "int",
     10, 5, 25, "deliveries",
     "the largest share.delivery.count.limit a group gets (KIP-1240, Kafka 4.3)"),
    ("group.share.min.delivery.count.limit@ShareGroupConfig", "min_delivery_count_limit", "int",
     2, 2, 5, "deliveries",
     "the smallest share.delivery.count.limit a group gets (KIP-1240, Kafka 4.3)"),
    ("group.share.assignment.interval.ms@GroupCoordinatorConfig", "assignment_interval_ms", "int",
     1000, 0, None, "ms",
     "the coordinator recomputes a share group's assignment at most this often (KIP-1263, 4.3)"),
    ("group.share.heartbeat.interval.ms@GroupCoordinatorConfig", "heartbeat_interval_ms", "int",
     5000, 1, None, "ms", "time between a share consumer's heartbeats"),
    ("remote.log.reader.max.pending.tasks@RemoteLogManagerConfig",
     "remote_log_reader_max_pending_tasks", "int", 100, 1, None, "tasks",
     "the remote reader pool's queue; a read that finds it full fails the fetch with an error"),
    ("connections.max.idle.ms@SocketServerConfigs", "connections_max_idle_ms", "long", 600000,
     None, None, "ms", "the broker closes a connection idle this long, releasing its buffer; a "
     "negative value never does (Selector)"),
)))

GROUP = SettingTable("group", _declare("group", "GroupConfig", (
    ("share.partition.max.record.locks", "max_record_locks", "int", None, 100, None, "records",
     "a share group's own group.share.partition.max.record.locks (KIP-1240, Kafka 4.3); unset "
     "is the broker's; clamped to group.share.{min,max}.partition.max.record.locks"),
    ("share.delivery.count.limit", "delivery_count_limit", "int", None, 2, None, "deliveries",
     "a share group's own group.share.delivery.count.limit (KIP-1240, Kafka 4.3); unset is the "
     "broker's; clamped to group.share.{min,max}.delivery.count.limit"),
)))

STREAMS = SettingTable("streams", _declare("streams", "StreamsConfig", (
    ("input.buffer.max.bytes@KIP-770 (merged and reverted)", "input_buffer_max_bytes", "long",
     512 * MiB, 0, None, "bytes",
     "KIP-770's input buffer bound for the whole instance, shared by its threads"),
    ("buffered.records.per.partition", "buffered_records_per_partition", "int", 1000, None, None,
     "records", "a partition's buffer pauses its fetching above this"),
    ("num.stream.threads", "threads", "int", 1, None, None, "threads", "stream threads"),
    ("statestore.cache.max.bytes", "statestore_cache_max_bytes", "long", 10 * MiB, 0, None,
     "bytes", "the record caches of all threads (KIP-770's other half, shipped in 3.4)"),
    ("max.poll.records", "max_poll_records", "int", 1000, 1, None, "records",
     "Streams' override of the consumer's max.poll.records (CONSUMER_DEFAULT_OVERRIDES)"),
)))

ROLES: dict[str, SettingTable] = {"consumer": CONSUMER, "broker": BROKER, "streams": STREAMS,
                                  "group": GROUP}
"""Every declared setting, by role and Kafka key."""
