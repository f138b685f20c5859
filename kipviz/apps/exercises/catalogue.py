"""Every exercise of the course: its question, how the package computes its answer (the same
rule functions the lessons use, so a model change changes the answer and nbval sees it), its
unit, why the answer is what it is, and the expression that solves it (checked by the tests).

Each lesson has at least two that apply its rule to numbers the lesson did not print; where the
rule changed between Kafka releases, one asks about another release.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kipviz.kafka.config.declarations import CONSUMER
from kipviz.kafka.units import MiB

__all__ = ["EXERCISES", "Exercise", "exercises_for"]



@dataclass(frozen=True)
class Exercise:
    """A question, how to compute its answer, its unit and why the answer is what it is."""

    question: str
    answer: Callable[[], float]
    unit: str
    why: str
    solution: str  # the expression the answer cell passes to check()
    rel_tol: float = 1e-9


def _client_bound_mib(client: str, partitions: int, brokers: int,
                      settings: dict[str, int] | None = None, ratio: float = 1.0) -> float:
    from kipviz.kafka.clients import client_memory_bounds

    return client_memory_bounds(client, partitions, brokers, settings,
                                compression_ratio=ratio).bound_bytes / MiB


def _second_partition_bytes() -> float:
    from kipviz.kafka.fetch.response import fill_response

    parts = fill_response([[600 * 1024, 600 * 1024], [300 * 1024]],
                          response_max_bytes=MiB, partition_max_bytes=MiB)
    return parts[1].raw_bytes


def _first_batch_bytes() -> float:
    from kipviz.kafka.fetch.response import fill_response

    parts = fill_response([[3 * MiB], [100]], response_max_bytes=MiB,
                          partition_max_bytes=256 * 1024)
    return parts[0].raw_bytes


def _consumer_bound_mib(kafka_version: str, partitions: int, brokers: int,
                        fetch_max_bytes: int = CONSUMER.default_of("fetch.max.bytes"),
                        max_partition_fetch_bytes: int = CONSUMER.default_of(
                            "max.partition.fetch.bytes")) -> float:
    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.scenarios.consumer.scenario import ConsumerScenario

    s = ConsumerScenario(partitions=partitions, brokers=brokers, fetch_max_bytes=fetch_max_bytes,
                         max_partition_fetch_bytes=max_partition_fetch_bytes,
                         kafka_version=kafka_version)
    return consumer_memory_bounds(s, lagging=True).bound_bytes / MiB


def _pool_bytes(strict: bool) -> float:
    from kipviz.kafka.broker.pool import max_outstanding_bytes

    return max_outstanding_bytes(500 * MiB, 100 * MiB, strict=strict)


def _kip81_pool_bytes() -> float:
    from kipviz.kafka.consumer.buffer_memory import pooled_bytes_bound

    return pooled_bytes_bound(40 * MiB, 10 * MiB)


def _in_flight_cap_mib() -> float:
    from kipviz.kafka.consumer.memory import memory_bounds

    return memory_bounds(kafka_version="3.9", brokers=10, partitions=120,
                         fetch_max_bytes=12 * MiB, max_partition_fetch_bytes=MiB,
                         largest_response_bytes=12 * MiB, lagging=True,
                         max_in_flight_fetches=3).bound_bytes / MiB


def _move_s() -> float:
    from kipviz.kafka.replication.planning import move_time_s

    return move_time_s(1.0, 1e9, 1, 40e6, 10e6, in_sync_followers=2)


def _record_bytes() -> float:
    from kipviz.kafka.streams.input_buffer import record_size_bytes

    return record_size_bytes(32, 2000, "payments")


def _thread_share() -> float:
    from kipviz.kafka.streams.input_buffer import thread_cache_bytes

    return thread_cache_bytes(1024**3, 6)


def _records_bound_mib() -> float:
    from kipviz.kafka.streams.input_buffer import records_bound_bytes

    return records_bound_bytes([2048] * 12, 1000, MiB) / MiB


def _streams_pinned_mib() -> float:
    from kipviz.kafka.streams.memory import StreamsInstance, streams_memory

    thread = StreamsInstance(partitions=300, threads=1, brokers=3, fetch_max_bytes=8 * MiB)
    return streams_memory(thread, "4.3").consumer_paused_bytes / MiB


def _largest_uniform_share() -> float:
    from kipviz.kafka.share.fetch import uniform_partition_max_bytes

    return max(uniform_partition_max_bytes(1_000_000, ["a", "b", "c"], 3).values())


def _sharing() -> float:
    from kipviz.kafka.share.assign import simple_assign

    assignment = simple_assign(12, 5)
    return max(sum(p in parts for parts in assignment) for p in range(5))


def _in_flight() -> float:
    from kipviz.kafka.share.fetch import in_flight_bound_records

    return in_flight_bound_records(2000, 500)


def _l8_reads_per_request(kafka_version: str) -> float:
    from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario, simulate

    trace = simulate(TieredFetchScenario(kafka_version=kafka_version, remote_partitions=8,
                                         duration_ms=1_000))
    return int(trace.fetches.reads_scheduled.max())


def _l8_copy_gap_s() -> float:
    from kipviz.scenarios.tiered_fetch.quotas import copy_under_quota

    seg = copy_under_quota(256 * MiB, 2, 100 * MiB)["segments"]
    return float(seg.recorded_ms.iloc[1] - seg.recorded_ms.iloc[0]) / 1000.0


def _l8_bucket_throttle_ms() -> float:
    from kipviz.kafka.quotas.token_bucket import token_bucket_throttle_time_ms

    return token_bucket_throttle_time_ms(-20.0, 5.0)


def _grid_bound_mib(kafka_version: str, fetch_max_bytes: int,
                    max_partition_fetch_bytes: int) -> float:
    from dataclasses import replace

    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.widgets.grid import GRID_LESSON_SCENARIO

    s = replace(GRID_LESSON_SCENARIO, fetch_max_bytes=fetch_max_bytes,
                max_partition_fetch_bytes=max_partition_fetch_bytes, kafka_version=kafka_version)
    return consumer_memory_bounds(s, lagging=True).bound_bytes / MiB


EXERCISES: dict[tuple[str, int], Exercise] = {
    ("01", 1): Exercise(
        "fetch.max.bytes = 1 MiB, max.partition.fetch.bytes = 1 MiB. Partition A has two 600 KiB "
        "batches, partition B one 300 KiB batch, in that request order. How many bytes does B "
        "get?", _second_partition_bytes, "bytes",
        "A's budget is the whole 1 MiB: it returns 1 MiB of raw bytes (one whole batch and a "
        "partial one the consumer drops), and nothing is left for B", "0"),
    ("01", 2): Exercise(
        "fetch.max.bytes = 1 MiB, max.partition.fetch.bytes = 256 KiB. The first partition of "
        "the request holds one 3 MiB record batch, the second a 100-byte one. How many bytes "
        "does the response carry for the first partition?", _first_batch_bytes, "bytes",
        "KIP-74's first-batch exception: the first batch of the first partition with data comes "
        "back whole, above both limits, so the consumer always makes progress; the second "
        "partition then gets nothing", "3 * 1024**2"),
    ("01", 3): Exercise(
        "A lagging Kafka 3.9 consumer reads 200 partitions from 4 brokers with fetch.max.bytes "
        "= 10 MiB and max.partition.fetch.bytes at its default. At most how many MiB of fetch "
        "responses does it hold?", lambda: _consumer_bound_mib("3.9", 200, 4, 10 * MiB), "MiB",
        "before 4.0 every partition can keep a completed fetch, and the response being drained "
        "stays whole: 200 x min(10 MiB, 1 MiB) + 10 MiB (each response's own fields add under "
        "0.5%)", "210", rel_tol=0.005),
    ("01", 4): Exercise(
        "The same consumer on Kafka 4.3?", lambda: _consumer_bound_mib("4.3", 200, 4, 10 * MiB),
        "MiB", "one response per broker since 4.0 (KAFKA-17182): 4 x min(10 MiB, the broker's "
        "50 partitions x 1 MiB), and one more: the drained response stays next in line until "
        "the next poll (measured on a real 4.4 consumer): 4 x 10 + 10 MiB", "50", rel_tol=0.001),
    ("02", 1): Exercise(
        "queued.max.request.bytes = 500 MiB, socket.request.max.bytes = 100 MiB. At most how "
        "many bytes of requests can the broker's pool have handed out?",
        lambda: _pool_bytes(False), "bytes",
        "the pool is non-strict: it grants a request while one byte is free, so up to "
        "500 MiB + 100 MiB - 1 byte = 629,145,599 bytes", "600 * 1024**2 - 1"),
    ("02", 2): Exercise(
        "The same pool made strict (the what-if): at most how many bytes?",
        lambda: _pool_bytes(True), "bytes",
        "a strict pool never goes below zero: 500 MiB = 524,288,000 bytes", "500 * 1024**2"),
    ("03", 1): Exercise(
        "KIP-81 as proposed: buffer.memory = 40 MiB, and no response can exceed 10 MiB. At most "
        "how many bytes can the consumer's pool hold?", _kip81_pool_bytes, "bytes",
        "the pool reads a response while one byte is free (KIP-72's non-strict pool, which "
        "KIP-81 reuses): 40 MiB + 10 MiB - 1 byte = 52,428,799 bytes", "50 * 1024**2 - 1"),
    ("03", 2): Exercise(
        "KIP-81's rejected alternative: at most 3 fetches in flight or not yet consumed, and no "
        "response can exceed 12 MiB. At most how many MiB of responses does the consumer hold?",
        _in_flight_cap_mib, "MiB",
        "each slot holds one whole response until the application has consumed it: 3 x 12 MiB; "
        "KIP-81 rejected it because a freed slot then waits a round trip for its next response",
        "36"),
    ("03", 3): Exercise(
        "What Kafka did instead: a lagging Kafka 4.3 consumer without a pool reads 60 partitions "
        "on 5 brokers, fetch.max.bytes = 4 MiB, max.partition.fetch.bytes = 2 MiB. At most how "
        "many MiB of fetch responses?",
        lambda: _consumer_bound_mib("4.3", 60, 5, 4 * MiB, 2 * MiB), "MiB",
        "one response per broker (KAFKA-17182): 5 x min(4 MiB, 12 partitions x 2 MiB), and the "
        "drained one still next in line, 4 MiB; what KIP-81 wanted buffer.memory for, 4.0 got "
        "by asking each broker again only once its response is consumed (on 3.9 the same "
        "consumer's bound is 60 x 2 MiB + 4 MiB = 124 MiB)", "24", rel_tol=0.001),
    ("04", 1): Exercise(
        "R = 3, IN = 10 MB/s, a throttle T = 40 MB/s set with --throttle, 1 GB to move. How "
        "many seconds?", _move_s, "s",
        "1 GB over T - R x IN = 40 - 3 x 10 MB/s = 10 MB/s: 100 s, not the KIP's 33 s", "100"),
    ("04", 2): Exercise(
        "R = 3, IN = 10 MB/s: at or below which throttle (MB/s) does the move never finish?",
        lambda: 3 * 10.0, "MB/s",
        "the leader's quota counts the 2 in-sync followers too: T must exceed R x IN", "30"),
    ("05", 1): Exercise(
        "A record with a 32-byte key and a 2,000-byte value on topic 'payments': how many bytes "
        "does Streams count (RecordQueue)?", _record_bytes, "bytes",
        "key + value + 8 (offset) + 8 (timestamp) + the topic's 8 UTF-8 bytes + 4 (partition)",
        "2060"),
    ("05", 2): Exercise(
        "statestore.cache.max.bytes = 1 GiB, 6 stream threads, no global thread: each "
        "thread's record cache in bytes?", _thread_share, "bytes", "1,073,741,824 // 6 "
        "(KafkaStreams.getCacheSizePerThread)", "178956970"),
    ("05", 3): Exercise(
        "Streams today: buffered.records.per.partition = 1000, a thread owns 12 partitions of "
        "2,048-byte records, max.partition.fetch.bytes = 1 MiB. At most how many MiB can that "
        "thread buffer?", _records_bound_mib, "MiB",
        "per partition 1,000 records plus one more fetch (a partition is paused only once it "
        "holds more than 1,000): 12 x (1,000 + 512) x 2,048 bytes", "35.4375"),
    ("05", 4): Exercise(
        "Kafka 4.3: a stream thread's consumer reads 300 partitions led by 3 brokers, "
        "fetch.max.bytes = 8 MiB, max.partition.fetch.bytes = 1 MiB, and Streams has paused every "
        "partition. At most how many MiB of responses can that consumer pin?", _streams_pinned_mib,
        "MiB", "each paused partition may pin one whole response of up to min(8 MiB, 100 "
        "partitions x 1 MiB), and the drained one stays next in line: 301 x 8 MiB (each "
        "response's own fields add under 0.5%)", "2408", rel_tol=0.005),
    ("06", 1): Exercise(
        "Lesson 6's grid at fetch.max.bytes 8 MiB, max.partition.fetch.bytes 4 MiB, Kafka 4.3: "
        "the bound in MiB?", lambda: _grid_bound_mib("4.3", 8 * MiB, 4 * MiB), "MiB",
        "10 brokers x min(8 MiB, 12 partitions x 4 MiB), and the drained 8 MiB response still "
        "next in line (each response's own fields add under 0.5%)", "88", rel_tol=0.005),
    ("06", 2): Exercise(
        "The same cell on Kafka 3.9?", lambda: _grid_bound_mib("3.9", 8 * MiB, 4 * MiB), "MiB",
        "120 partitions x min(8 MiB, 4 MiB): a completed fetch of every partition, plus the 8 "
        "MiB response being drained (each response's own fields add under 0.5%)", "488",
        rel_tol=0.005),
    ("07", 1): Exercise(
        "A share fetch with MaxBytes 1,000,000 reads 3 partitions, all 3 acquired: how many "
        "bytes may the largest partition return?", _largest_uniform_share, "bytes",
        "1,000,000 // 3 = 333,333 each and the remainder, 1, to one random partition "
        "(PartitionMaxBytesStrategy.UNIFORM)", "333_334"),
    ("07", 2): Exercise(
        "A share group of 12 consumers reads a topic of 5 partitions: at most how many consumers "
        "share one partition?", _sharing, "consumers",
        "ceil(12 / 5) = 3 members per partition (SimpleAssignor)", "3"),
    ("07", 3): Exercise(
        "group.share.partition.max.record.locks is 2000 and producers write batches of 500 "
        "records: at most how many records can be in flight on a partition?", _in_flight,
        "records", "2,000 + 500 - 1: acquisition runs to the end of the log batch holding the "
        "last record the cap allows (Kafka's code, not the KIP's text)", "2499"),
    ("08", 1): Exercise(
        "On Kafka 4.1, a consumer catches up on 8 remote partitions of one broker: how many "
        "remote reads can one fetch request start?", lambda: _l8_reads_per_request("4.1"),
        "reads", "before 4.2 ReplicaManager kept only the first remote partition's "
        "RemoteStorageFetchInfo (KAFKA-14915)", "1"),
    ("08", 2): Exercise(
        "The same request on Kafka 4.2?", lambda: _l8_reads_per_request("4.2"), "reads",
        "from 4.2 every remote partition of the request gets its read (KAFKA-14915)", "8"),
    ("08", 3): Exercise(
        "remote.log.manager.copy.max.bytes.per.second = 100 MiB/s, 256 MiB segments: how many "
        "seconds apart are two uploads?", _l8_copy_gap_s, "s",
        "the whole segment is recorded at once; SimpleRate's rate falls back to the quota after "
        "2.56 s, and the copy thread checks once a second: the next upload starts at 3 s",
        "3", rel_tol=0.01),
    ("08", 4): Exercise(
        "A TokenBucket of 5 units/s is at -20 credits: what throttle time (ms) does "
        "ControllerMutationQuotaManager give?", _l8_bucket_throttle_ms, "ms",
        "-credits / quota x 1000 = 20 / 5 x 1000: the time the refill needs to get back to 0",
        "4000"),
    ("09", 1): Exercise(
        "librdkafka at its defaults, 60 partitions on 3 brokers, uncompressed: what is its memory "
        "bound, in MiB?", lambda: _client_bound_mib("librdkafka", 60, 3), "MiB",
        "the 64,000 messages of 1,024 bytes below the queue's gate (65,536,000 value bytes, each "
        "with up to 89 bytes of framing), four responses (one in flight per broker and one "
        "pinned at the queue's head) of 20 partitions x one batch of 1,048,588 bytes, 1,113 "
        "bytes of fields and 640 of buffer, and a 320-byte op for each of 64,000 + 3 x 20,480 "
        "messages",
        "(65536000 + 64000 * 89 + 5 * 1113 + 4 * (20 * 1048588 + 1113 + 640)"
        " + (64000 + 3 * 20480) * 320) / 1048576"),
    ("09", 2): Exercise(
        "franz-go with kgo.MaxConcurrentFetches(1), 1,000 partitions on 3 brokers, data that "
        "decompresses 3 times: what is its memory bound, in MiB?",
        lambda: _client_bound_mib("franz-go", 1000, 3, {"MaxConcurrentFetches": 1}, 3.0), "MiB",
        "one fetch at a time, of up to FetchMaxBytes (50 MiB and 14,301 bytes of fields) on the "
        "wire in whole 8 KiB pages while decoded, and twice (buffered, and polled while the "
        "application holds it) decompressed, 3 x 50 MiB rounded up by Go by a quarter, with "
        "153,600 records of 1,024 bytes at 220 bytes each",
        "(52428800 + 14301 + 8192 + 2 * (1.25 * 3 * 52428800 + 153600 * 220)) / 1048576"),
}
"""Every exercise, by (lesson, number)."""


def exercises_for(lesson: str) -> list[tuple[int, Exercise]]:
    """A lesson's exercises in order."""
    return sorted((n, e) for (l_, n), e in EXERCISES.items() if l_ == lesson)
