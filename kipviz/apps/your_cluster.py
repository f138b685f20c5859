"""Apply a lesson to your cluster: its formula filled in with your settings, the metric to watch
and the knob to turn.

``your_cluster("01", consumer="consumer.properties", broker="server.properties", brokers=6,
partitions=120)`` reads real ``.properties`` files (settings Kafka would refuse become notes, as
:func:`kipviz.kafka.config.advice.load_config` reads them) and returns a :class:`Advice` whose
``str()`` is the closing cell of each lesson. The formulas are the package's own
(:mod:`kipviz.kafka.consumer.memory`, :func:`kipviz.kafka.broker.pool.max_outstanding_bytes`,
:func:`kipviz.kafka.replication.planning.move_time_s`, :mod:`kipviz.kafka.streams.memory`), so the
numbers are the ones the lessons simulate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kipviz.kafka.config.advice import ConfigSource, load_config
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION, check_kafka_version
from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.replication.planning import move_time_s
from kipviz.kafka.units import S_PER_HOUR, MiB, bytes_and_mib

__all__ = ["LESSONS", "Advice", "your_cluster"]

LESSONS = ("01", "02", "03", "04", "05", "06", "08", "09")
"""The lessons that end with a "your cluster" cell."""


@dataclass(frozen=True)
class Advice:
    """The lesson's formula filled in, the metric to watch, the knob to turn, and notes."""

    lesson: str
    formula: str
    watch: str
    knob: str
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        lines = [f"Your cluster (lesson {self.lesson}):", f"- formula: {self.formula}",
                 f"- watch: {self.watch}", f"- turn: {self.knob}"]
        return "\n".join(lines + [f"- note: {n}" for n in self.notes])


def _consumer_memory(c: ConsumerConfig, b: BrokerConfig, brokers: int, partitions: int,
                     kafka_version: str, lesson: str, notes: tuple[str, ...]) -> Advice:
    from kipviz.scenarios.consumer.scenario import ConsumerScenario

    s = ConsumerScenario.from_configs(c, b, brokers=brokers, partitions=partitions,
                                      kafka_version=kafka_version)
    if lesson == "01":
        formula = (f"response limit = min(fetch.max.bytes {c.fetch_max_bytes:,}, broker "
                   f"fetch.max.bytes {b.fetch_max_bytes:,}) = "
                   f"{bytes_and_mib(s.response_max_bytes)}, each "
                   f"partition at most max.partition.fetch.bytes = "
                   f"{bytes_and_mib(c.max_partition_fetch_bytes)}, "
                   f"the first record batch always whole")
        return Advice(lesson, formula, "the consumer's fetch-size-avg and fetch-size-max "
                      "(consumer-fetch-manager-metrics) against the response limit; "
                      "records-lag-max per partition for starvation",
                      "fetch.max.bytes (how much one response carries), "
                      "max.partition.fetch.bytes (one partition's share)", notes)
    answer = consumer_memory_bounds(s, lagging=True)
    knob = ("fetch.max.bytes: on Kafka 4.x a consumer holds one response per broker"
            if answer.rule == "one response per broker"
            else "max.partition.fetch.bytes: before 4.0 a lagging consumer holds one "
                 "completed fetch per partition")
    return Advice(lesson, answer.sentence(), "the JVM heap used (jvm memory pools) and "
                  "records-lag-max: a growing lag means fetched data waits", knob, notes)


def _pool(b: BrokerConfig, notes: tuple[str, ...]) -> Advice:
    from kipviz.kafka.broker.pool import max_outstanding_bytes

    q, s = b.queued_max_request_bytes, b.socket_request_max_bytes
    if q <= 0:
        formula = (f"queued.max.request.bytes = {q}: no pool, requests read from sockets are "
                   f"bounded only by queued.max.requests = {b.queued_max_requests} x up to "
                   f"socket.request.max.bytes = {bytes_and_mib(s)}")
    else:
        formula = (f"queued.max.request.bytes + socket.request.max.bytes - 1 = {q:,} + {s:,} - 1"
                   f" = {bytes_and_mib(max_outstanding_bytes(q, s))} (the pool is non-strict)")
    return Advice("02", formula, "MemoryPoolAvgDepletedPercent and MemoryPoolDepletedTimeTotal "
                  "(SocketServer metrics): time the pool was dry", "queued.max.request.bytes "
                  "(>= socket.request.max.bytes when set)", notes)


def _throttle(b: BrokerConfig, cluster: dict[str, Any], notes: tuple[str, ...]) -> Advice:
    r = int(cluster.get("replication_factor", 3))
    inbound = float(cluster.get("bytes_in_per_s", 10e6))
    moved = float(cluster.get("bytes_to_move", 100e9))
    t = b.leader_replication_throttled_rate_bytes_per_s
    if t is None:
        formula = ("leader.replication.throttled.rate is unset: the move runs at the network's "
                   "speed and competes with clients")
    else:
        time_s = move_time_s(1.0, moved, 1, t, inbound, in_sync_followers=r - 1)
        when = ("never" if time_s == float("inf") else f"{time_s:,.0f} s" if time_s < S_PER_HOUR
                else f"{time_s / S_PER_HOUR:,.1f} h")
        formula = (f"move time = bytes to move / (T - R x IN) = {moved:,.0f} / ({t:,} - {r} x "
                   f"{inbound:,.0f}) = {when} (--throttle counts the {r - 1} in-sync followers "
                   f"against the leader's quota)")
    return Advice("04", formula, "ReassignmentBytesInPerSec / ReassignmentBytesOutPerSec "
                  "(BrokerTopicMetrics), UnderReplicatedPartitions and ReassigningPartitions "
                  "(ReplicaManager)", "leader.replication.throttled.rate and "
                  "follower.replication.throttled.rate (kafka-configs --alter, or --throttle)",
                  notes)


def _streams(c: ConsumerConfig, b: BrokerConfig, cluster: dict[str, Any], kafka_version: str,
             notes: tuple[str, ...]) -> Advice:
    from kipviz.kafka.streams.memory import StreamsInstance, streams_memory

    instance = StreamsInstance(partitions=int(cluster.get("partitions", 2000)),
                               threads=int(cluster.get("threads", 4)),
                               brokers=int(cluster.get("brokers", 3)),
                               max_partition_fetch_bytes=c.max_partition_fetch_bytes,
                               fetch_max_bytes=c.fetch_max_bytes,
                               broker_fetch_max_bytes=b.fetch_max_bytes)
    formula = streams_memory(instance, kafka_version).sentence()
    return Advice("05", formula, "the stream threads' JVM heap and records-lag-max of their "
                  "consumers", "buffered.records.per.partition (records per partition, the "
                  "input bound Kafka has), and the consumers' fetch.max.bytes (the response "
                  "each paused partition pins)", notes)


def _tiered(c: ConsumerConfig, b: BrokerConfig, cluster: dict[str, Any], kafka_version: str,
            notes: tuple[str, ...]) -> Advice:
    from kipviz.kafka.tiered.fetch import reads_several_remote_partitions
    from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario

    defaults = TieredFetchScenario()
    latency_ms = float(cluster.get("remote_read_latency_ms", defaults.remote_read_latency_ms))
    store_bytes_per_s = float(cluster.get("remote_read_bytes_per_s",
                                          defaults.remote_read_bytes_per_s))
    rtt_ms = float(cluster.get("rtt_ms", defaults.rtt_ms))
    partitions = int(cluster.get("partitions", 100))
    per_read = c.max_partition_fetch_bytes
    round_ms = latency_ms + 1000.0 * per_read / store_bytes_per_s + rtt_ms
    if reads_several_remote_partitions(kafka_version):
        reads = min(partitions, max(1, c.fetch_max_bytes // per_read), b.remote_log_reader_threads)
        how = (f"Kafka {kafka_version} reads every remote partition of a request at once, each "
               f"charged max.partition.fetch.bytes up front (KAFKA-14915, KAFKA-19462): "
               f"min({partitions} partitions, fetch.max.bytes / max.partition.fetch.bytes, "
               f"remote.log.reader.threads {b.remote_log_reader_threads}) = {reads} reads")
    else:
        reads = 1
        how = (f"Kafka {kafka_version} starts one remote read per fetch request (before 4.2, "
               "KAFKA-14915)")
    rate = reads * per_read / (round_ms / 1000.0)
    quota = b.remote_fetch_max_bytes_per_s
    capped = f"; the broker's remote fetch quota caps it at {quota / 1e6:,.1f} MB/s" if quota \
        else ""
    formula = (f"catch-up rate per consumer and broker = reads per request x "
               f"max.partition.fetch.bytes / (the store's latency + one read's transfer + the "
               f"consumer's round trip) = {reads} x {per_read:,} bytes / ({latency_ms:g} + "
               f"{1000.0 * per_read / store_bytes_per_s:.1f} + {rtt_ms:g} ms) = "
               f"{rate / 1e6:,.1f} MB/s; {how}{capped}")
    return Advice("08", formula,
                  "RemoteFetchBytesPerSec and RemoteFetchRequestsPerSec (BrokerTopicMetrics: the "
                  "bytes and reads served from remote storage), RemoteFetchErrorsPerSec, "
                  "RemoteLogReaderTaskQueueSize (reads waiting for a reader thread: above 0 the "
                  "threads are the bottleneck) and RemoteLogReaderAvgIdlePercent (near 0: all "
                  "threads busy), remote-fetch-throttle-time-avg/max (RemoteLogManager: above 0 "
                  "the remote fetch quota is holding reads back)",
                  "max.partition.fetch.bytes (bytes per remote read), the consumers' Kafka "
                  "version (4.2 reads partitions in parallel), remote.log.reader.threads, and "
                  "remote.log.manager.fetch.max.bytes.per.second", notes)


_CLIENT_WATCH = {
    "librdkafka": "the consumer queue in statistics.interval.ms's JSON: every partition's "
                  "fetchq_size reports the one shared queue (so do not add them up, #5140), and "
                  "the process's RSS",
    "franz-go": "Client.BufferedFetchBytes() (decompressed key and value bytes buffered) and the "
                "Go heap (runtime/metrics; GOGC=100 lets it reach about twice what is live: set "
                "GOMEMLIMIT below the container's limit)",
    "kafka-python": "the process's RSS and the fetch-manager metrics fetch-size-avg/max (bytes "
                    "per fetch response)",
}


def _client(consumer: Any, cluster: dict[str, Any]) -> Advice:
    """Lesson 9: another client's bound from its own config (read the client's way), and what to
    set for a container's memory limit."""
    from kipviz.kafka.clients import client_memory_bounds, read_client_config
    from kipviz.scenarios.consumer.clients import setting_for_memory

    client = str(cluster.get("client", "librdkafka"))
    if client not in _CLIENT_WATCH:
        raise ValueError(f"client must be one of {', '.join(_CLIENT_WATCH)}: {client!r}")
    settings = read_client_config(client, {} if consumer is None else consumer)
    brokers, partitions = int(cluster.get("brokers", 3)), int(cluster.get("partitions", 100))
    ratio = float(cluster.get("compression_ratio", 1.0))
    limit = int(cluster.get("memory_limit_bytes", 512 * MiB))
    bound = client_memory_bounds(client, partitions, brokers, settings, compression_ratio=ratio)
    name, value, fitted = setting_for_memory(client, limit // 2, partitions, brokers,
                                             compression_ratio=ratio, settings=settings)
    return Advice("09", bound.sentence, _CLIENT_WATCH[client],
                  f"{name} = {value:,} keeps the bound at {bytes_and_mib(fitted)}, half of a "
                  f"{bytes_and_mib(limit)} container limit (the other half for the application, "
                  f"the runtime and, on franz-go, Go's GC headroom)")


def your_cluster(lesson: str, consumer: ConfigSource | None = None,
                 broker: ConfigSource | None = None, *, kafka_version: str = NEWEST_KAFKA_VERSION,
                 **cluster: Any) -> Advice:
    """The closing advice of ``lesson`` ("01" to "06", "08", "09") for your settings.

    Lesson "09": ``consumer`` is your client's own config (a confluent-kafka dict or
    ``.properties`` path, franz-go ``kgo.`` option calls, kafka-python keyword arguments as a
    dict) and ``cluster`` also takes ``client`` (``"java"``, the default, is lesson 3's answer
    from Java's files), ``compression_ratio`` and ``memory_limit_bytes`` (the container's limit).

    ``consumer`` / ``broker``: config objects, mappings of Kafka keys or ``.properties`` paths
    (Kafka's defaults where None). ``cluster`` takes ``brokers`` and ``partitions`` (the
    consumer's), ``replication_factor``, ``bytes_in_per_s`` and ``bytes_to_move`` (a
    reassignment), ``threads`` (Streams), ``remote_read_latency_ms``, ``remote_read_bytes_per_s``
    and ``rtt_ms`` (tiered storage: the store's first-byte latency and bandwidth, the consumer's
    round trip; the tiered scenario's defaults).
    """
    if lesson not in LESSONS:
        raise ValueError(f"lesson must be one of {', '.join(LESSONS)}: {lesson!r}")
    check_kafka_version(kafka_version)
    if lesson == "09" and cluster.get("client", "java") != "java":
        return _client(consumer, cluster)
    c, c_notes = load_config(ConsumerConfig, consumer)
    b, b_notes = load_config(BrokerConfig, broker)
    notes = tuple(c_notes + b_notes)
    c, b = c or ConsumerConfig(), b or BrokerConfig()
    brokers, partitions = int(cluster.get("brokers", 3)), int(cluster.get("partitions", 100))
    if lesson == "09":  # Java's consumer: lesson 3's answer
        return replace(_consumer_memory(c, b, brokers, partitions, kafka_version, "03", notes),
                       lesson="09")
    if lesson in ("01", "03", "06"):
        return _consumer_memory(c, b, brokers, partitions, kafka_version, lesson, notes)
    if lesson == "02":
        return _pool(b, notes)
    if lesson == "04":
        return _throttle(b, cluster, notes)
    if lesson == "08":
        return _tiered(c, b, cluster, kafka_version, notes)
    return _streams(c, b, cluster, kafka_version, notes)
