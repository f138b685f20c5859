"""(d) Each non-Java client's lagging-consumer memory on a real cluster, against the client's own
bound: librdkafka (confluent-kafka), franz-go and kafka-python, each at its defaults and at the
setting lesson 9 quotes from a public thread (librdkafka #4137 ``queued.max.messages.kbytes``
10,000; franz-go #701 ``FetchMaxPartitionBytes`` 10 MiB; kafka-python #2437 ``fetch_max_bytes``
10 MiB), on uncompressed and lz4 data.

Two topics of :data:`PARTITIONS` partitions led round-robin by the three brokers (by assignment):
``clients-plain`` (uncompressed, :data:`PLAIN_BYTES` a partition) and ``clients-lz4`` (lz4,
:data:`LZ4_BYTES` of values a partition; each value a seeded quarter of random bytes then a run,
so batches compress about 4:1 as text does, where Kafka's all-``r`` test values compress some
60:1). The real side is the client's probe (:mod:`kipviz.reality.probes.clients`): every
partition assigned at its end (the baseline: connected, nothing to fetch), then moved to its
start, an application that takes :data:`RECORDS_PER_POLL` records a poll (or, once, every
buffered fetch) and sleeps :data:`SLEEP_MS`, the peak over the run: what fetching adds. The
predicted side is the client's ``*_memory_bound`` (:mod:`kipviz.kafka.clients`) with the same
partitions, brokers and settings, the records' value size (:data:`RECORD_BYTES`), and what the
broker stored: the largest batch, the fewest records a batch, the codec and the most any batch
decompresses (each lz4 batch's records decompressed, over their compressed bytes);
tolerance "bound": a bound kipviz prints is never exceeded. ``extra`` has the consumer
scenario's simulated peak for the same workload (the model's typical figure) and the probe's
other measures.
"""

from __future__ import annotations

import importlib.util
import math
import random
import re
import struct
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kipviz.kafka.clients.franz_go import franz_go_memory_bound
from kipviz.kafka.clients.kafka_python import kafka_python_memory_bound
from kipviz.kafka.clients.librdkafka import librdkafka_memory_bound
from kipviz.kafka.units import MiB
from kipviz.reality.cluster import KafkaCluster
from kipviz.reality.jars import RealityError
from kipviz.reality.probes import clients as probes
from kipviz.reality.results import Row
from kipviz.reality.wire import log_batches
from kipviz.reality.workloads import TopicLoad, produce

__all__ = ["CASES", "NAME", "ClientsSetup", "run", "setup"]

NAME = "client_memory"
PLAIN, LZ4 = "clients-plain", "clients-lz4"
PARTITIONS = 36                      # 12 on each of 3 brokers: 12 MiB responses at defaults
PLAIN_BYTES = 4 * MiB        # per partition: 144 MiB, more than every client buffers
LZ4_BYTES = 6 * MiB          # values per partition: 216 MiB, about 54 MiB on the log
RECORD_BYTES = 1000
POLLS, SLEEP_MS, RECORDS_PER_POLL, TIMEOUT_S = 30, 100, 100, 60.0
WHOLE_POLLS = 6                      # polls of whole fetches: 144 MiB drains in about four

MODEL_READ_AT = {"librdkafka": "v2.15.0", "franz-go": "v1.21.5", "kafka-python": "3.0.11"}
THREADS = {
    "librdkafka": ("queued.max.messages.kbytes=10000 (#4137)",
                   {"queued.max.messages.kbytes": 10000}),
    "franz-go": ("FetchMaxPartitionBytes=10 MiB (#701)", {"FetchMaxPartitionBytes": 10 * MiB}),
    "kafka-python": ("fetch_max_bytes=10 MiB (#2437)", {"fetch_max_bytes": 10 * MiB}),
}
"""Each client's public-thread setting, as lesson 9 quotes it: label, settings."""

CASES = [*[(client, label, settings, topic, RECORDS_PER_POLL)
           for client in ("librdkafka", "franz-go", "kafka-python")
           for label, settings in (("defaults", {}), THREADS[client])
           for topic in (PLAIN, LZ4)],
         ("franz-go", "defaults, PollFetches", {}, PLAIN, 0)]
"""(client, settings label, settings, topic, records a poll) of every case, in the order they
run. The last polls every buffered fetch at once (``PollRecords(ctx, 0)``, as ``PollFetches``)
and holds them while the next ones are fetched: franz-go's ``2 x fetches``, seen whole; 100
records a poll never drain a 12 MiB fetch in :data:`POLLS` polls."""

NOTES = {
    "librdkafka": "resident set over the baseline (the consumer connected, its partitions "
                  "assigned at their end): it includes glibc's arenas and the free memory they "
                  "retain, librdkafka's per-message ops and the Python binding's copies; "
                  "extra.peak_fetchq_size is the one consumer queue's value bytes (a "
                  "partition's fetchq_size is the shared queue's, never summed)",
    "franz-go": "Go's HeapInuse after runtime.GC() over the baseline (the client connected, its "
                "partitions assigned at their end), the application holding its last poll's "
                "records while it sleeps: the live heap with its span rounding, no GC headroom "
                "(extra has HeapInuse without a forced GC, which includes garbage and headroom, "
                "and RSS)",
    "kafka-python": "tracemalloc's peak over its start (the consumer connected, its partitions "
                    "assigned at their end): every Python allocation (reads, frames, "
                    "per-partition copies, decompressed batches, record objects), Python's "
                    "object overhead included; memory a C extension mallocs itself (lz4's "
                    "internal buffers) is not traced",
}


@dataclass(frozen=True)
class TopicFacts:
    """What the broker stored for one topic."""

    topic: str
    partitions: int
    value_bytes: int
    log_bytes: int
    max_batch_bytes: int
    compression_ratio: float   # 1.0 uncompressed; the most a batch's records decompress
    codec: str | None = None
    batch_records: int = 1     # the fewest records a batch holds


@dataclass(frozen=True)
class ClientsSetup:
    brokers: int
    assignment: tuple[int, ...]     # each partition's leader
    topics: dict[str, TopicFacts]


def _produce_lz4(bootstrap: str, topic: str, partitions: int, bytes_per_partition: int,
                 seed: int) -> int:
    """Seeded compressible values (a random quarter, then a run of ``r``), lz4; value bytes."""
    from confluent_kafka import Producer

    rng = random.Random(seed)
    head = RECORD_BYTES // 4
    pool = [rng.randbytes(head) + b"r" * (RECORD_BYTES - head) for _ in range(4096)]
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 65536,
                         "compression.type": "lz4", "acks": "all", "enable.idempotence": False,
                         "log.connection.close": False})
    failed: list[str] = []

    def on_delivery(err: Any, _msg: object) -> None:
        if err is not None:
            failed.append(str(err))

    written = 0
    for p in range(partitions):
        for _ in range(bytes_per_partition // RECORD_BYTES):
            while True:
                try:
                    producer.produce(topic, value=pool[rng.randrange(len(pool))], partition=p,
                                     timestamp=int(time.time() * 1000), on_delivery=on_delivery)
                    break
                except BufferError:
                    producer.poll(0.05)
            written += RECORD_BYTES
    left = producer.flush(120)
    if failed or left:
        raise RealityError(f"producing {topic} failed: {left} records unsent, {len(failed)} "
                           f"refused ({failed[:1]})")
    return written


def lz4_batch_ratios(partition_dir: Path) -> list[float]:
    """Each lz4 batch's decompressed records over its compressed records (the codec's input: the
    batch's ``12 + batchLength`` bytes but its 61-byte header), read from a partition's segment
    files (a v2 batch: the header, attributes at byte 21, then the compressed records). At least
    the bytes held per wire byte, and what librdkafka's lz4 guess is measured against."""
    import lz4.frame

    out = []
    for segment in sorted(partition_dir.glob("*.log")):
        data = segment.read_bytes()
        pos = 0
        while pos + 61 <= len(data):
            length = struct.unpack_from(">i", data, pos + 8)[0]
            if length <= 0 or pos + 12 + length > len(data):
                break
            if struct.unpack_from(">h", data, pos + 21)[0] & 7 == 3:
                records = lz4.frame.decompress(data[pos + 61:pos + 12 + length])
                out.append(len(records) / (12 + length - 61))
            pos += 12 + length
    return out


def _facts(cluster: KafkaCluster, topic: str, value_bytes: int, compressed: bool) -> TopicFacts:
    batches = [b for p in range(PARTITIONS) for b in log_batches(cluster.partition_dir(topic, p))]
    sizes = [b.size_bytes for b in batches]
    fewest = min(b.last_offset - b.base_offset + 1 for b in batches)
    if not compressed:
        return TopicFacts(topic, PARTITIONS, value_bytes, sum(sizes), max(sizes), 1.0, None,
                          fewest)
    ratios = [r for p in range(PARTITIONS)
              for r in lz4_batch_ratios(cluster.partition_dir(topic, p))]
    if len(ratios) != len(sizes):
        raise RealityError(f"experiment {NAME}: {len(sizes) - len(ratios)} batches of {topic} "
                           f"are not lz4")
    ratio = math.ceil(max(ratios) * 10000) / 10000  # rounded up: the bound's input
    return TopicFacts(topic, PARTITIONS, value_bytes, sum(sizes), max(sizes), ratio, "lz4",
                      fewest)


def setup(cluster: KafkaCluster) -> ClientsSetup:
    """The two topics, produced once: partition i led by broker ``broker_ids[i % 3]``."""
    if importlib.util.find_spec("lz4") is None:
        raise RealityError("experiment client_memory: kafka-python reads lz4 batches only with "
                           "the lz4 package, which is not installed (pip install lz4)")
    ids = cluster.broker_ids
    leaders = tuple(ids[i % len(ids)] for i in range(PARTITIONS))
    for topic in (PLAIN, LZ4):  # the records' timestamp is older than the default 7 days'
        # retention: the broker's first retention check (30 s after start) would delete them
        cluster.create_topic(topic, assignment=[[b] for b in leaders],
                             config={"retention.ms": -1})
    produce(cluster.bootstrap_servers,
            [TopicLoad(PLAIN, range(PARTITIONS), PLAIN_BYTES, RECORD_BYTES, seed=31)])
    plain_values = PARTITIONS * -(-PLAIN_BYTES // RECORD_BYTES) * RECORD_BYTES
    lz4_values = _produce_lz4(cluster.bootstrap_servers, LZ4, PARTITIONS, LZ4_BYTES, seed=32)
    return ClientsSetup(len(set(leaders)), leaders, {
        PLAIN: _facts(cluster, PLAIN, plain_values, compressed=False),
        LZ4: _facts(cluster, LZ4, lz4_values, compressed=True)})


def predict(client: str, partitions: int, brokers: int, settings: dict[str, int],
            facts: TopicFacts) -> Any:
    """The client's own bound for the case (a ``ClientMemoryBound``): records of
    :data:`RECORD_BYTES`, the topic's largest batch, compression ratio and (librdkafka) codec and
    fewest records a batch."""
    common: dict[str, Any] = {"max_batch_bytes": facts.max_batch_bytes,
                              "compression_ratio": facts.compression_ratio,
                              "record_bytes": RECORD_BYTES}
    if client == "librdkafka":
        return librdkafka_memory_bound(partitions, brokers, settings, codec=facts.codec,
                                       batch_records=facts.batch_records, **common)
    if client == "franz-go":
        return franz_go_memory_bound(partitions, brokers, settings, **common)
    return kafka_python_memory_bound(partitions, brokers, settings, **common)


def simulated_peak(client: str, partitions: int, brokers: int, settings: dict[str, int],
                   facts: TopicFacts) -> int | str:
    """The consumer scenario's peak ``held_bytes`` for the same backlog (wire bytes a
    partition), batches and application rate: the model's typical figure."""
    try:
        from kipviz.scenarios.consumer.clients import catching_up, memory_by_client

        base = catching_up(partitions, brokers, lag_bytes=facts.log_bytes * partitions
                           // facts.partitions, ticks=300,
                           compression_ratio=facts.compression_ratio)
        scenario = replace(base, consume_bytes_per_s=RECORDS_PER_POLL * RECORD_BYTES
                           / (SLEEP_MS / 1000),
                           workload=replace(base.workload,
                                            batch_size_bytes=facts.max_batch_bytes))
        frame = memory_by_client(scenario, {client: (client, settings)})
        return int(frame.peak_held_bytes.iloc[0])
    except Exception as e:  # the simulation is context for the row, never its verdict
        return f"not simulated: {type(e).__name__}: {e}"


RUNNERS = {"librdkafka": probes.run_librdkafka_probe, "franz-go": probes.run_franz_go_probe,
           "kafka-python": probes.run_kafka_python_probe}


def _case(cluster: KafkaCluster, s: ClientsSetup, client: str, label: str,
          settings: dict[str, int], topic: str, partitions: int, polls: int,
          log_root: Path, records_per_poll: int = RECORDS_PER_POLL) -> Row:
    facts = s.topics[topic]
    assignment = [(topic, p) for p in range(partitions)]
    brokers = len(set(s.assignment[:partitions]))
    bound = predict(client, partitions, brokers, settings, facts)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", f"{client} {label.split('(')[0]} {topic}").strip("_")
    lines = RUNNERS[client](cluster.bootstrap_servers, assignment, dict(settings), polls=polls,
                            sleep_ms=SLEEP_MS, records_per_poll=records_per_poll,
                            timeout_s=TIMEOUT_S, log_dir=log_root / slug)
    summary = probes.summary(lines)
    if not summary.get("records"):
        raise RealityError(f"experiment {NAME}: the {client} probe consumed no record of {topic} "
                           f"(log {log_root / slug}): the measure would be of nothing")
    codec = "lz4" if topic == LZ4 else "uncompressed"
    extra = {k: v for k, v in summary.items() if k not in ("type", "client", "peak_bytes")}
    extra.update(model_read_at=MODEL_READ_AT[client], sentence=bound.sentence,
                 terms=[list(t) for t in bound.terms],
                 simulated_peak_held_bytes=simulated_peak(client, partitions, brokers,
                                                          settings, facts))
    return Row(
        experiment=NAME, case=f"{client}, {label}, {codec}, {partitions} partitions",
        kafka_version=cluster.release.version, client=f"{client} {summary.get('version')}",
        setup={"partitions": partitions, "brokers": brokers, "settings": dict(settings),
               "topic": topic, "compression": codec,
               "compression_ratio": facts.compression_ratio,
               "max_batch_bytes": facts.max_batch_bytes, "batch_records": facts.batch_records,
               "log_bytes": facts.log_bytes,
               "value_bytes": facts.value_bytes, "record_bytes": RECORD_BYTES, "polls": polls,
               "sleep_ms": SLEEP_MS, "records_per_poll": records_per_poll},
        predicted=bound.bound_bytes, measured=int(summary["peak_bytes"]), unit="bytes",
        tolerance="bound", note=NOTES[client], extra=extra)


def run(cluster: KafkaCluster, s: ClientsSetup, *, quick: bool = False) -> list[Row]:
    """Every client x {defaults, its public-thread setting} x {uncompressed, lz4} over all
    partitions, and franz-go polling whole fetches; ``quick``: each client at its defaults on 6
    uncompressed partitions, 10 polls."""
    root = Path(cluster.folder) if cluster.folder is not None else Path(tempfile.mkdtemp())
    log_root = root / NAME
    if quick:
        return [_case(cluster, s, client, "defaults", {}, PLAIN, 6, 10, log_root)
                for client in ("librdkafka", "franz-go", "kafka-python")]
    return [_case(cluster, s, client, label, dict(settings), topic, PARTITIONS,
                  POLLS if per_poll else WHOLE_POLLS, log_root, per_poll)
            for client, label, settings, topic, per_poll in CASES]
