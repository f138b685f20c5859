"""How much memory does a Kafka Streams instance hold for its input? Both layers, by Kafka version.

A Streams instance holds input records in two places:

* **Its input buffer** (``RecordQueue`` per partition, summed by ``PartitionGroup`` and
  ``TaskManager``; a record costs :func:`kipviz.kafka.streams.input_buffer.record_size_bytes`).
  Kafka today bounds it per partition with ``buffered.records.per.partition`` (default 1000;
  ``StreamsConfig``, not deprecated): ``N records + one fetch`` per partition
  (:func:`kipviz.kafka.streams.input_buffer.records_bound_bytes`). KIP-770's
  ``input.buffer.max.bytes`` (proposed default 512 MiB; merged and reverted, not in Kafka) would
  bound it per thread at its share plus one fetch per partition
  (:func:`kipviz.kafka.streams.input_buffer.thread_bound_bytes`).
* **Each stream thread's embedded consumer** (its own ``KafkaConsumer``: the classic one by
  default, an ``AsyncKafkaConsumer`` with KIP-1071's ``group.protocol=streams``, early access in
  4.1 and generally available in 4.2; both fetch through ``AbstractFetch``). Its completed fetches
  follow the consumer rule of the Kafka release (:func:`kipviz.kafka.consumer.memory.memory_bounds`,
  lagging): before 4.0 one completed fetch per partition and the whole response being drained;
  from 4.0 (KAFKA-17182) one response per broker, plus one *whole response* for each paused
  partition that still holds a completed fetch (its records are a slice of that response's
  buffer). Streams pauses partitions as its own back-pressure (above N records, or over
  KIP-770's share), and a paused partition keeps its completed fetch
  (``FetchCollector.collectFetch``) without blocking its broker, so a lagging Streams thread on
  4.x can pin far more than one fetch per partition.

**The one answer** (:attr:`StreamsMemory.bound_bytes`, :meth:`StreamsMemory.sentence`) is the
default case, what Streams runs today: the input buffer under ``buffered.records.per.partition``
plus every thread's consumer under the retention rule with all its partitions paused holding a
fetch. Streams' back-pressure pauses a partition whose queue is full (``StreamTask.addRecords``:
``mainConsumer.pause`` once the queue holds more than ``buffered.records.per.partition``;
``StreamTask.process`` resumes it at that size; trunk, and every release), and a lagging app can
have every partition full. A poll hands over at most ``max.poll.records`` records, so the rest of
a paused partition's completed fetch stays in the consumer and pins its response. The other case
is named: KIP-770's byte bound (merged and reverted, never released;
:attr:`StreamsMemory.kip770_bound_bytes`) replaces the input buffer's term and keeps the
consumers'.

Settings are Streams' consumer defaults (``StreamsConfig.CONSUMER_DEFAULT_OVERRIDES`` changes only
``max.poll.records`` to 1000, ``auto.offset.reset``, ``enable.auto.commit``, ``group.protocol``
and ``allow.auto.create.topics``): ``max.partition.fetch.bytes`` 1048576, ``fetch.max.bytes``
52428800 (the broker's 57671680 caps it from 2.5, KIP-541). ``max.poll.records`` 1000 only
lowers how fast records move from the consumer to the input buffer (and leaves the rest of a
fetch in the consumer); the bounds do not use it.
Not counted: the restore consumer (changelogs, while restoring), the global thread's consumer,
record caches (``statestore.cache.max.bytes``) and state stores.

>>> m = streams_memory(StreamsInstance(partitions=2000, threads=4, brokers=3, value_bytes=1000),
...                    "4.3")
>>> m.record_bytes, m.records_bound_bytes // 2**20, m.consumer.bound_bytes // 2**20
(1042, 3986, 200)
>>> streams_memory(StreamsInstance(partitions=2000, threads=4, brokers=3), "3.9").consumer_bytes
2319991396
>>> m.consumer_paused_bytes // 2**20, m.bound_bytes // 2**20
(100212, 104199)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import pandas as pd

from kipviz.kafka.config.checks import check_int, check_topic_name
from kipviz.kafka.config.declarations import BROKER, CONSUMER, STREAMS
from kipviz.kafka.config.fields import (
    check_declared,
    check_setting,
    flag,
    kafka_field,
    knob,
    text,
)
from kipviz.kafka.config.versions import check_kafka_version, fetch_request_version, has
from kipviz.kafka.consumer.memory import ConsumerMemoryBounds, memory_bounds
from kipviz.kafka.fetch.response import (
    INT32_MAX,
    effective_response_max_bytes,
    largest_response_bytes,
)
from kipviz.kafka.streams.input_buffer import (
    INPUT_BUFFER_MAX_BYTES,
    STATESTORE_CACHE_MAX_BYTES,
    record_size_bytes,
    records_bound_bytes,
    thread_bound_bytes,
    thread_cache_bytes,
    thread_share_bytes,
)
from kipviz.kafka.units import MiB, mib

__all__ = [
    "STREAMS_MAX_POLL_RECORDS",
    "StreamsInstance",
    "StreamsMemory",
    "input_bounds_table",
    "streams_memory",
    "streams_memory_table",
    "thread_partitions",
    "thread_shares_table",
]

STREAMS_MAX_POLL_RECORDS = STREAMS.default_of("max.poll.records")  # CONSUMER_DEFAULT_OVERRIDES


@dataclass(frozen=True)
class StreamsInstance:
    """One Streams instance's input side: its partitions, threads, brokers and record size.

    Tasks (and so partitions) are spread evenly over the stream threads, the first threads taking
    one more when they do not divide (:func:`thread_partitions`); every partition's records have
    ``key_bytes`` + ``value_bytes`` on topic ``topic``; ``brokers`` lead the input partitions
    evenly. The other fields are Streams' and the consumer's settings, at their defaults.
    """

    partitions: int = knob(2000, at_least=1)
    threads: int = kafka_field(STREAMS["num.stream.threads"], 4, at_least=1)  # Kafka's: 1
    brokers: int = knob(3, at_least=1)
    key_bytes: int = knob(16, at_least=0)
    value_bytes: int = knob(1000, at_least=0)
    topic: str = text("orders")
    global_thread: bool = flag(False)
    # Kafka puts no bound on buffered.records.per.partition; the model needs one record
    buffered_records_per_partition: int = kafka_field(
        STREAMS["buffered.records.per.partition"], at_least=1)
    input_buffer_max_bytes: int = kafka_field(STREAMS["input.buffer.max.bytes"])
    max_partition_fetch_bytes: int = kafka_field(CONSUMER["max.partition.fetch.bytes"])
    fetch_max_bytes: int = kafka_field(CONSUMER["fetch.max.bytes"])
    broker_fetch_max_bytes: int = kafka_field(BROKER["fetch.max.bytes"],
                                              label="broker fetch.max.bytes")

    def __post_init__(self) -> None:
        check_declared(self)  # each field's rule, from its declaration (kipviz.kafka.config.fields)
        check_topic_name(self.topic, "topic")  # as Kafka's Topic.validate checks it


@dataclass(frozen=True)
class StreamsMemory:
    """The bounds for one instance under one Kafka release; bytes, per instance unless named.

    ``consumer`` is the busiest thread's embedded consumer (lagging, no partition paused) and
    ``consumer_paused`` the same with every partition paused holding a fetch; ``consumer_bytes``
    and ``consumer_paused_bytes`` sum them over the threads.
    """

    instance: StreamsInstance
    kafka_version: str
    record_bytes: int
    records_bound_bytes: int
    bytes_bound_bytes: int
    consumer: ConsumerMemoryBounds
    consumer_paused: ConsumerMemoryBounds
    consumer_bytes: int
    consumer_paused_bytes: int

    @property
    def bound_bytes(self) -> int:
        """The one answer, default back-pressure: the input buffer under
        ``buffered.records.per.partition`` plus the consumers with every partition paused."""
        return self.records_bound_bytes + self.consumer_paused_bytes

    @property
    def kip770_bound_bytes(self) -> int:
        """The named case "KIP-770's byte bound (merged and reverted, never released)": its input
        bound plus the same consumers (it pauses every partition holding records too)."""
        return self.bytes_bound_bytes + self.consumer_paused_bytes

    def sentence(self) -> str:
        """The one sentence the lesson, the cheat sheet and ``your_cluster`` print."""
        s, c = self.instance, self.consumer_paused
        threads = thread_partitions(s.partitions, s.threads)
        return (f"Kafka {self.kafka_version} Streams instance, lagging, default back-pressure "
                f"(StreamTask pauses a partition whose queue holds more than "
                f"buffered.records.per.partition = {s.buffered_records_per_partition} records): "
                f"at most {mib(self.bound_bytes)} ({self.bound_bytes:,} bytes) = input buffer "
                f"{mib(self.records_bound_bytes)} ({s.partitions:,} partitions x "
                f"({s.buffered_records_per_partition} x {self.record_bytes:,}-byte records + one "
                f"fetch)) + {s.threads} threads' consumers {mib(self.consumer_paused_bytes)} "
                f"(a poll hands over at most max.poll.records records, so a paused partition "
                f"keeps the rest of its fetch and pins its whole response; the busiest thread: "
                f"{threads[0]} partitions x a response of up to {mib(c.per_broker_bytes)}, at "
                f"most {mib(c.bound_bytes)}).")


def thread_partitions(partitions: int, threads: int) -> list[int]:
    """Input partitions per stream thread: an even split, the first threads one more.

    >>> thread_partitions(2000, 4), thread_partitions(10, 4)
    ([500, 500, 500, 500], [3, 3, 2, 2])
    """
    p = check_int("partitions", partitions, 1)
    t = check_setting("threads", threads, STREAMS["num.stream.threads"], at_least=1)
    return [p // t + (1 if i < p % t else 0) for i in range(t)]


def _thread_consumer(s: StreamsInstance, kafka_version: str, partitions: int,
                     paused: bool) -> ConsumerMemoryBounds:
    """One thread's consumer under the release's rule, lagging (``memory_bounds``).

    As ``consumer_memory_bounds`` fills it from a ``ConsumerScenario``: the response limit (client
    ``fetch.max.bytes``, capped by the broker's from 2.5), and a largest response of at most that
    limit and at most the broker's partitions x ``max.partition.fetch.bytes``.
    """
    broker = (s.broker_fetch_max_bytes if has(kafka_version, "broker_fetch_max_bytes")
              else INT32_MAX)
    limit = effective_response_max_bytes(s.fetch_max_bytes, broker)
    largest = largest_response_bytes(partitions, s.brokers, limit, s.max_partition_fetch_bytes,
                                     version=fetch_request_version(kafka_version))
    return memory_bounds(kafka_version=kafka_version, brokers=s.brokers, partitions=partitions,
                         fetch_max_bytes=limit,
                         max_partition_fetch_bytes=s.max_partition_fetch_bytes,
                         largest_response_bytes=largest, lagging=True,
                         paused_partitions=partitions if paused else 0)


def streams_memory(instance: StreamsInstance, kafka_version: str) -> StreamsMemory:
    """The input buffer's bounds (both rules) and the embedded consumers' (the release's rule)."""
    s, v = instance, check_kafka_version(kafka_version)
    record = record_size_bytes(s.key_bytes, s.value_bytes, s.topic)
    per_thread = thread_partitions(s.partitions, s.threads)
    share = thread_share_bytes(s.input_buffer_max_bytes, s.threads, s.global_thread)
    consumers = [_thread_consumer(s, v, n, paused=False) for n in per_thread]
    paused = [_thread_consumer(s, v, n, paused=True) for n in per_thread]
    return StreamsMemory(
        instance=s, kafka_version=v, record_bytes=record,
        records_bound_bytes=records_bound_bytes([record] * s.partitions,
                                                s.buffered_records_per_partition,
                                                s.max_partition_fetch_bytes),
        bytes_bound_bytes=sum(thread_bound_bytes(share, [record] * n, s.max_partition_fetch_bytes)
                              for n in per_thread),
        consumer=consumers[0], consumer_paused=paused[0],
        consumer_bytes=sum(c.bound_bytes for c in consumers),
        consumer_paused_bytes=sum(c.bound_bytes for c in paused))


def streams_memory_table(instance: StreamsInstance, value_bytes: Iterable[int] = (1000, 10000),
                         kafka_versions: Iterable[str] = ("3.9", "4.3")) -> pd.DataFrame:
    """MiB a lagging instance may hold, one column per record value size: the default case.

    Rows: the input buffer under ``buffered.records.per.partition``, then per release the
    consumers with every partition paused holding a fetch (summed over the threads) and the one
    answer (:attr:`StreamsMemory.bound_bytes`).
    """
    values, versions = list(value_bytes), [check_kafka_version(v) for v in kafka_versions]
    n = instance.buffered_records_per_partition
    columns: dict[str, dict[str, float]] = {}
    for value in values:
        runs = [streams_memory(replace(instance, value_bytes=value), v) for v in versions]
        column = {
            "record (bytes, as Streams counts it)": float(runs[0].record_bytes),
            f"input buffer: buffered.records.per.partition = {n}":
                runs[0].records_bound_bytes / MiB,
        }
        for m in runs:
            column[f"consumers, Kafka {m.kafka_version}: every partition paused "
                   f"(Kafka's {m.consumer_paused.rule} rule)"] = m.consumer_paused_bytes / MiB
        for m in runs:
            column[f"the one answer, Kafka {m.kafka_version}"] = m.bound_bytes / MiB
        columns[f"value {value:,} B (MiB)"] = column
    return pd.DataFrame(columns)


def input_bounds_table(partitions: Iterable[int] = (8, 32, 128, 512, 2000),
                       value_bytes: Iterable[int] = (100, 1000, 10000), *, key_bytes: int = 16,
                       topic: str = "orders",
                       input_buffer_max_bytes: int = INPUT_BUFFER_MAX_BYTES) -> pd.DataFrame:
    """The input buffer's two bounds (MiB) for N partitions of one record size, one row each."""
    rows = []
    for p in partitions:
        for value in value_bytes:
            m = streams_memory(StreamsInstance(partitions=p, threads=1, key_bytes=key_bytes,
                                               value_bytes=value, topic=topic,
                                               input_buffer_max_bytes=input_buffer_max_bytes),
                               "4.3")
            rows.append({"partitions": p, "record (bytes)": m.record_bytes,
                         "records bound (MiB)": m.records_bound_bytes / MiB,
                         f"byte bound, {input_buffer_max_bytes / MiB:.0f} MiB (MiB)":
                             m.bytes_bound_bytes / MiB})
    return pd.DataFrame(rows)


def thread_shares_table(threads: Iterable[tuple[int, bool]] = ((1, False), (4, False), (4, True)),
                        input_buffer_max_bytes: int = INPUT_BUFFER_MAX_BYTES,
                        statestore_cache_max_bytes: int = STATESTORE_CACHE_MAX_BYTES
                        ) -> pd.DataFrame:
    """Each stream thread's share (MiB) of the input buffer and of the record cache, for
    ``(num.stream.threads, global thread?)`` pairs (``KafkaStreams.getCacheSizePerThread``)."""
    return pd.DataFrame([
        {"stream threads": n, "global thread": g,
         "input buffer share (MiB)": thread_share_bytes(input_buffer_max_bytes, n, g) / MiB,
         "cache share (MiB)": thread_cache_bytes(statestore_cache_max_bytes, n, g) / MiB}
        for n, g in threads])
