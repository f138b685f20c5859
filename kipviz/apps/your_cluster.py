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

from dataclasses import dataclass
from typing import Any

from kipviz.kafka.config.advice import ConfigSource, load_config
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION, check_kafka_version
from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.replication.planning import move_time_s

__all__ = ["LESSONS", "Advice", "your_cluster"]

_MiB = 1024 * 1024
LESSONS = ("01", "02", "03", "04", "05", "06")
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


def _mib(n: float) -> str:
    return f"{n:,.0f} bytes ({n / _MiB:,.1f} MiB)"


def _consumer_memory(c: ConsumerConfig, b: BrokerConfig, brokers: int, partitions: int,
                     kafka_version: str, lesson: str, notes: tuple[str, ...]) -> Advice:
    from kipviz.scenarios.consumer.scenario import ConsumerScenario

    s = ConsumerScenario.from_configs(c, b, brokers=brokers, partitions=partitions,
                                      kafka_version=kafka_version)
    if lesson == "01":
        formula = (f"response limit = min(fetch.max.bytes {c.fetch_max_bytes:,}, broker "
                   f"fetch.max.bytes {b.fetch_max_bytes:,}) = {_mib(s.response_max_bytes)}, each "
                   f"partition at most max.partition.fetch.bytes = "
                   f"{_mib(c.max_partition_fetch_bytes)}, the first record batch always whole")
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
                   f"socket.request.max.bytes = {_mib(s)}")
    else:
        formula = (f"queued.max.request.bytes + socket.request.max.bytes - 1 = {q:,} + {s:,} - 1"
                   f" = {_mib(max_outstanding_bytes(q, s))} (the pool is non-strict)")
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
        when = ("never" if time_s == float("inf") else f"{time_s:,.0f} s" if time_s < 3600
                else f"{time_s / 3600:,.1f} h")
        formula = (f"move time = bytes to move / (T - R x IN) = {moved:,.0f} / ({t:,} - {r} x "
                   f"{inbound:,.0f}) = {when} (--throttle counts the {r - 1} in-sync followers "
                   f"against the leader's quota)")
    return Advice("04", formula, "ReassignmentBytesInPerSec / ReassignmentBytesOutPerSec "
                  "(BrokerTopicMetrics), UnderReplicatedPartitions and ReassigningPartitions "
                  "(ReplicaManager)", "leader.replication.throttled.rate and "
                  "follower.replication.throttled.rate (kafka-configs --alter, or --throttle)",
                  notes)


def _streams(cluster: dict[str, Any], kafka_version: str, notes: tuple[str, ...]) -> Advice:
    from kipviz.kafka.streams.memory import StreamsInstance, streams_memory

    instance = StreamsInstance(partitions=int(cluster.get("partitions", 2000)),
                               threads=int(cluster.get("threads", 4)),
                               brokers=int(cluster.get("brokers", 3)))
    m = streams_memory(instance, kafka_version)
    records = instance.buffered_records_per_partition
    formula = (f"input buffer = buffered.records.per.partition {records}"
               f" x {m.record_bytes:,} bytes a record x {instance.partitions} partitions (each at "
               f"most one fetch over it) = {_mib(m.records_bound_bytes)}; the embedded consumers "
               f"add {_mib(m.consumer_bytes)} over {instance.threads} threads, each: "
               f"{m.consumer.sentence()}")
    return Advice("05", formula, "the stream threads' JVM heap and records-lag-max of their "
                  "consumers", "buffered.records.per.partition (records per partition, the "
                  "input bound Kafka has), and the consumers' fetch.max.bytes", notes)


def your_cluster(lesson: str, consumer: ConfigSource | None = None,
                 broker: ConfigSource | None = None, *, kafka_version: str = NEWEST_KAFKA_VERSION,
                 **cluster: Any) -> Advice:
    """The closing advice of ``lesson`` ("01" to "06") for your settings.

    ``consumer`` / ``broker``: config objects, mappings of Kafka keys or ``.properties`` paths
    (Kafka's defaults where None). ``cluster`` takes ``brokers`` and ``partitions`` (the
    consumer's), ``replication_factor``, ``bytes_in_per_s`` and ``bytes_to_move`` (a
    reassignment), ``threads`` (Streams).
    """
    if lesson not in LESSONS:
        raise ValueError(f"lesson must be one of {', '.join(LESSONS)}: {lesson!r}")
    check_kafka_version(kafka_version)
    c, c_notes = load_config(ConsumerConfig, consumer)
    b, b_notes = load_config(BrokerConfig, broker)
    notes = tuple(c_notes + b_notes)
    c, b = c or ConsumerConfig(), b or BrokerConfig()
    brokers, partitions = int(cluster.get("brokers", 3)), int(cluster.get("partitions", 100))
    if lesson in ("01", "03", "06"):
        return _consumer_memory(c, b, brokers, partitions, kafka_version, lesson, notes)
    if lesson == "02":
        return _pool(b, notes)
    if lesson == "04":
        return _throttle(b, cluster, notes)
    return _streams(cluster, kafka_version, notes)
