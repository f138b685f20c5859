"""A Kafka Streams instance buffering its input under KIP-770 or ``buffered.records.per.partition``.

What it models (``StreamThread.runOnce``: ``pollPhase``, then ``TaskManager.process``; the
buffers are ``RecordQueue`` per partition, summed by ``PartitionGroup`` per task):

* ``tasks`` tasks, each reading ``topics`` co-partitioned input topics (``topics`` = 2 is a
  join): partition p = task * topics + topic. Each partition has a backlog of
  ``initial_lag_records`` and producers add ``produce_records_per_s``. Record sizes vary widely
  between partitions: a partition's values are ``value_bytes * record_size_spread ** u`` bytes
  with u uniform in [-1, 1] (seeded), and a record costs
  :func:`kipviz.kafka.streams.input_buffer.record_size_bytes`.
* T stream threads (task k runs on thread k % T), plus optionally a global thread, which takes a
  share of ``input.buffer.max.bytes`` but buffers nothing here
  (:func:`~kipviz.kafka.consumer.buffer_memory. thread_share_bytes`). ``thread_changes`` adds or
  removes threads during the run (``KafkaStreams.addStreamThread``): shares are recomputed and tasks
  that move lose their buffered records to the new owner, which fetches them again.
* Each tick every thread, in turn, polls once: each unpaused partition with records on the broker
  gets whole records up to ``max.partition.fetch.bytes`` (at least one). Then the policy pauses
  partitions (:data:`kipviz.kafka.streams.input_buffer.STREAMS_POLICIES`). Then the thread processes
  up to ``process_records_per_s`` records a second, one record per task in turn; a task takes the
  head with the smallest timestamp and waits while one of its partitions is empty but has records on
  the broker (``max.task.idle.ms`` 0). Then the policy resumes partitions.

The two KIP-770 policies differ only in the resume rule. ``thread_bytes_as_merged`` is KIP-770
as its text says and as it was merged (apache/kafka#11424 and #11796, both reverted before any
release): resume every paused partition after a round that processed records and left the
thread within its share, and nothing else. A partition paused while non-empty that processing
empties then stays paused; when every task waits on such a partition nothing is processed, the
thread never gets back within its share, and throughput falls to zero for good (the bug
apache/kafka#13283 describes). ``thread_bytes`` is the KIP *plus* that PR's rule (closed
unmerged): after each round also resume the paused partitions that the round emptied, a
task-level rule the KIP does not have. Neither is "KIP-770 as proposed" alone; only
``thread_bytes_as_merged`` is.

The loop is :mod:`kipviz.scenarios.streams.kernel`: compiled by numba by default, plain Python
with ``compiled=False`` (the same function; the same trace).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kipviz.kafka.config import fields
from kipviz.kafka.config.checks import check_int, check_topic_name
from kipviz.kafka.config.declarations import CONSUMER, STREAMS
from kipviz.kafka.streams.input_buffer import (
    STREAMS_POLICIES,
    fetch_bytes,
    record_size_bytes,
    records_bound_bytes,
    thread_share_bytes,
)
from kipviz.scenarios import limits
from kipviz.scenarios.contract import input_rng
from kipviz.scenarios.streams.columns import (
    PartitionTicks,
    StreamsPartitions,
    StreamsSettings,
    ThreadChanges,
    ThreadTicks,
)
from kipviz.scenarios.streams.kernel import POLICY_CODES, compiled_kernel, streams_kernel
from kipviz.scenarios.streams.meta import StreamsMeta

__all__ = ["PARTITIONS", "THREADS", "TICKS", "StreamsScenario", "StreamsTrace",
           "partition_value_bytes", "simulate"]

@dataclass(frozen=True)
class StreamsScenario:
    """One Kafka Streams instance, its settings and its input; vary it with ``replace``.

    ``policy`` is one of :data:`kipviz.kafka.streams.input_buffer.STREAMS_POLICIES` (the default
    ``thread_bytes`` is KIP-770 with apache/kafka#13283's resume rule; see the module docstring);
    ``thread_changes`` is a tuple of ``(time_ms, threads)`` steps in time order.
    """

    input_buffer_max_bytes: int = fields.kafka_field(STREAMS["input.buffer.max.bytes"])
    # Kafka puts no bound on buffered.records.per.partition; the model needs one record
    buffered_records_per_partition: int = fields.kafka_field(
        STREAMS["buffered.records.per.partition"], at_least=1)
    policy: str = fields.choice("thread_bytes", STREAMS_POLICIES)
    threads: int = fields.kafka_field(STREAMS["num.stream.threads"], 4, at_least=1)
    global_thread: bool = fields.flag(False)
    thread_changes: tuple[tuple[int, int], ...] = fields.items(
        of=(("time_ms", fields.FieldRule(at_least=0)),
            ("threads", fields.setting_rule(STREAMS["num.stream.threads"], at_least=1))),
        rule="a tuple of (time_ms, threads) pairs")
    tasks: int = fields.knob(16, at_least=1)
    topics: int = fields.knob(2, at_least=1)
    topic: str = fields.text("input")  # the input topics' name prefix
    key_bytes: int = fields.knob(16, at_least=0)
    value_bytes: int = fields.knob(1000, at_least=0)
    record_size_spread: float = fields.knob(10.0, at_least=1.0, number=True)
    produce_records_per_s: float = fields.knob(2000.0, at_least=0.0, number=True)  # per partition
    initial_lag_records: int = fields.knob(20000, at_least=0)  # per partition
    process_records_per_s: float = fields.knob(50000.0, above=0.0, number=True)  # per thread
    max_partition_fetch_bytes: int = fields.kafka_field(CONSUMER["max.partition.fetch.bytes"])
    tick_ms: int = fields.knob(10, at_least=1)
    ticks: int = fields.knob(1000, at_least=1)

    def __post_init__(self) -> None:
        fields.check_declared(self)  # each field's rule, from its declaration
        check_topic_name(self.topic, "topic")  # Kafka's Topic.validate: the prefix's characters,
        check_topic_name(self.topic_name(self.topics - 1), "topic")  # the longest name's length
        last = -1
        for i, (when, _) in enumerate(self.thread_changes):
            if when <= last:
                raise ValueError(f"thread_changes[{i}] time_ms must be above the one before "
                                 f"({last}): {when}")
            last = when

    @property
    def partitions(self) -> int:
        """Input partitions of the instance: tasks x topics."""
        return self.tasks * self.topics

    @property
    def max_threads(self) -> int:
        """The most stream threads alive at once during the run."""
        return max([self.threads, *(n for _, n in self.thread_changes)])

    def topic_name(self, topic: int) -> str:
        """The name of input topic ``topic`` (its UTF-8 bytes count in each record's cost)."""
        return f"{self.topic}-{topic}"


@dataclass(frozen=True)
class StreamsTrace:
    """Columnar output: ``threads``, ``partitions`` and ``ticks`` tables (one row per tick and
    alive thread, per tick and partition, per tick: the threads' columns summed) and ``meta``;
    the schemas are in this module's ``THREADS``, ``PARTITIONS`` and ``TICKS``."""

    threads: pd.DataFrame
    partitions: pd.DataFrame
    ticks: pd.DataFrame
    meta: StreamsMeta


THREADS = {"time_ms": np.int64, "thread": np.int32, "threads": np.int32,
           "share_bytes": np.int64, "polled_bytes": np.int64,
           "buffered_bytes_after_poll": np.int64, "buffered_bytes": np.int64,
           "buffered_records": np.int64, "processed_records": np.int64,
           "processed_bytes": np.int64, "demand_records": np.int64, "partitions": np.int32,
           "paused_partitions": np.int32, "paused_after_poll": np.int32,
           "nonempty_after_poll": np.int32, "lag_records": np.int64}
PARTITIONS = {"time_ms": np.int64, "partition": np.int32, "task": np.int32, "topic": np.int32,
              "thread": np.int32, "buffered_records": np.int64, "buffered_bytes": np.int64,
              "lag_records": np.int64, "paused": np.bool_, "polled_records": np.int64,
              "processed_records": np.int64}
# the instance per tick: THREADS columns summed over the alive threads (the summed after-poll
# bytes bound the instance at any moment of the tick: a thread's buffer only shrinks after its poll)
TICKS = {"time_ms": np.int64, "threads": np.int32, "buffered_bytes_after_poll": np.int64,
         "buffered_bytes": np.int64, "buffered_records": np.int64,
         "processed_records": np.int64, "processed_bytes": np.int64,
         "paused_partitions": np.int32, "lag_records": np.int64}
# the kernel's PartitionTicks, by name
_PARTITION_TICKS = {"buffered": np.int64, "lag": np.int64, "paused": np.bool_, "polled": np.int64,
                    "processed": np.int64, "thread": np.int32}


def partition_value_bytes(scenario: StreamsScenario, rng: np.random.Generator) -> np.ndarray:
    """Each partition's value size: ``value_bytes * record_size_spread ** u``, u ~ U[-1, 1]."""
    s = scenario
    u = rng.uniform(-1.0, 1.0, s.partitions)
    return np.rint(s.value_bytes * s.record_size_spread ** u).astype(np.int64)


def simulate(scenario: StreamsScenario, *, seed: int = 0,
             value_bytes: Sequence[int] | None = None, compiled: bool = True) -> StreamsTrace:
    """Run the scenario; the same scenario and seed give the same trace.

    ``value_bytes`` (one size per partition) replaces the drawn sizes, for worked timelines.
    ``compiled=False`` runs the kernel as plain Python (slow; a reference).
    """
    s = scenario
    limits.check_streams(s, len(ThreadTicks._fields))  # refuse what would not fit in memory
    limits.check_seed(seed)  # also when value_bytes leaves nothing to draw
    if value_bytes is None:
        values = partition_value_bytes(s, input_rng(seed))  # SeedSequence(seed)
    else:
        values = np.array([check_int(f"value_bytes[{p}]", v, 0) for p, v in
                           enumerate(value_bytes)], dtype=np.int64)
        if len(values) != s.partitions:
            raise ValueError(f"value_bytes needs one size per partition ({s.partitions}): "
                             f"{len(values)}")
    size = np.array([record_size_bytes(s.key_bytes, int(v), s.topic_name(p % s.topics))
                     for p, v in enumerate(values)], dtype=np.int64)
    fetches = np.array([fetch_bytes(int(r), s.max_partition_fetch_bytes) for r in size],
                       dtype=np.int64)  # the bytes one poll brings each partition
    fetch_records = fetches // size
    n_parts, n_threads = s.partitions, s.max_threads
    t_out = ThreadTicks(**{name: np.zeros((s.ticks, n_threads), np.int64)
                           for name in ThreadTicks._fields})
    p_out = PartitionTicks(**{name: np.zeros((s.ticks, n_parts), dtype)
                              for name, dtype in _PARTITION_TICKS.items()})
    kernel = compiled_kernel() if compiled else streams_kernel
    moves = kernel(
        StreamsPartitions(size=size, fetch_records=fetch_records,
                          lag0=np.full(n_parts, s.initial_lag_records, np.int64)),
        ThreadChanges(tick=np.array([-(-ms // s.tick_ms) for ms, _ in s.thread_changes],
                                    np.int64),
                      threads=np.array([n for _, n in s.thread_changes], np.int64)),
        StreamsSettings(rate_per_ms=float(s.produce_records_per_s / 1000.0),
                        topics=int(s.topics), n_tasks=int(s.tasks), threads0=int(s.threads),
                        total_bytes=int(s.input_buffer_max_bytes),
                        global_thread=int(s.global_thread), policy=POLICY_CODES[s.policy],
                        records_per_partition=int(s.buffered_records_per_partition),
                        records_per_tick=float(s.process_records_per_s * s.tick_ms / 1000.0),
                        tick_ms=int(s.tick_ms), ticks=int(s.ticks)),
        t_out, p_out)
    time_ms = np.arange(s.ticks, dtype=np.int64) * s.tick_ms
    alive = t_out.alive.reshape(-1) == 1
    columns = {
        "time_ms": np.repeat(time_ms, n_threads)[alive],
        "thread": np.tile(np.arange(n_threads), s.ticks)[alive],
        "threads": np.repeat(t_out.alive.sum(axis=1), n_threads)[alive],
        **{name: getattr(t_out, name).reshape(-1)[alive] for name in list(THREADS)[3:]},
    }
    # copy=False: the columns are fresh arrays, kept as they are (pandas copies and stacks
    # them into one block per dtype otherwise, half the time of a run)
    threads = pd.DataFrame({k: v.astype(THREADS[k], copy=False) for k, v in columns.items()},
                           copy=False)
    summed = {"threads": t_out.alive.sum(axis=1),  # the threads alive in each tick
              **{name: getattr(t_out, name).sum(axis=1) for name in list(TICKS)[2:]}}
    ticks = pd.DataFrame({"time_ms": time_ms,
                          **{name: v.astype(TICKS[name]) for name, v in summed.items()}},
                         copy=False)
    part = np.tile(np.arange(n_parts, dtype=np.int32), s.ticks)
    partitions = pd.DataFrame({
        "time_ms": np.repeat(time_ms, n_parts), "partition": part, "task": part // s.topics,
        "topic": part % s.topics, "thread": p_out.thread.reshape(-1),
        "buffered_records": p_out.buffered.reshape(-1),
        "buffered_bytes": p_out.buffered.reshape(-1) * np.tile(size, s.ticks),
        "lag_records": p_out.lag.reshape(-1), "paused": p_out.paused.reshape(-1),
        "polled_records": p_out.polled.reshape(-1),
        "processed_records": p_out.processed.reshape(-1),
    }, copy=False)
    counts = sorted({s.threads, *(n for _, n in s.thread_changes)})
    shares = {n: thread_share_bytes(s.input_buffer_max_bytes, n, bool(s.global_thread))
              for n in counts}
    one_poll = int(fetches.sum())
    meta: StreamsMeta = {
        "tick_ms": s.tick_ms, "ticks": s.ticks, "seed": seed, "policy": s.policy,
        "input_buffer_max_bytes": s.input_buffer_max_bytes,
        "buffered_records_per_partition": s.buffered_records_per_partition,
        "max_partition_fetch_bytes": s.max_partition_fetch_bytes,
        "threads": s.threads, "max_threads": n_threads, "global_thread": bool(s.global_thread),
        "thread_changes": [list(step) for step in s.thread_changes], "task_moves": int(moves),
        "partitions": n_parts, "tasks": s.tasks, "topics": s.topics,
        "value_bytes": values.tolist(), "record_bytes": size.tolist(),
        "share_bytes": shares,
        # the byte bound: every thread's share plus one fetch per partition (one poll of all)
        "bytes_bound_bytes": max(n * share for n, share in shares.items()) + one_poll,
        "records_bound_bytes": records_bound_bytes(size.tolist(),
                                                   s.buffered_records_per_partition,
                                                   s.max_partition_fetch_bytes),
        "one_poll_bytes": one_poll,
    }
    return StreamsTrace(threads=threads, partitions=partitions, ticks=ticks, meta=meta)
