"""The KIP-770 Streams scenario: worked pause/resume timelines, the 3.2 stall, bounds, bad input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.kafka.streams.input_buffer import STREAMS_POLICIES, fetch_bytes, thread_share_bytes
from kipviz.scenarios.streams.scenario import StreamsScenario, simulate
from tests.strategies import examples, small_streams_scenarios

# One thread, one task reading one topic "t-0": a record of value 77 costs 77 + 3 + 20 = 100
# bytes; a fetch brings 3 of them (300 bytes); the thread processes 2 records a tick.
TINY = StreamsScenario(input_buffer_max_bytes=250, threads=1, tasks=1, topics=1, topic="t",
                       key_bytes=0, record_size_spread=1.0, produce_records_per_s=0.0,
                       initial_lag_records=10, process_records_per_s=200.0,
                       max_partition_fetch_bytes=300, buffered_records_per_partition=2,
                       tick_ms=10, ticks=6)
# One thread, one task joining two topics: 100-byte records on t-0 (10 a fetch), 1000-byte
# records on t-1 (1 a fetch), 4 records a tick, a share of 800 bytes.
JOIN = replace(TINY, input_buffer_max_bytes=800, topics=2, initial_lag_records=100,
               process_records_per_s=400.0, max_partition_fetch_bytes=1000, ticks=40)
JOIN_VALUES = [77, 977]


def test_the_byte_bound_pauses_after_a_poll_and_resumes_after_a_round_within_the_share():
    """Share 250. t0: fetch 3 (300 > 250: paused), process 2 -> 100: resumed. t1: fetch 3 -> 400,
    paused, -> 200: resumed. t2: fetch 3 -> 500, -> 300 > 250: stays paused. t3: no fetch, 300,
    -> 100: resumed. t4: the last record (200, not over), -> 0."""
    trace = simulate(TINY, value_bytes=[77])
    th, pa = trace.threads, trace.partitions
    assert trace.meta["record_bytes"] == [100]
    assert th.buffered_bytes_after_poll.tolist() == [300, 400, 500, 300, 200, 0]
    assert th.buffered_bytes.tolist() == [100, 200, 300, 100, 0, 0]
    assert th.paused_after_poll.tolist() == [1, 1, 1, 1, 0, 0]
    assert pa.paused.tolist() == [False, False, True, False, False, False]
    assert th.processed_records.tolist() == [2, 2, 2, 2, 2, 0]
    assert pa.polled_records.tolist() == [3, 3, 3, 0, 1, 0]
    assert pa.lag_records.tolist() == [7, 4, 1, 1, 0, 0]


def test_buffered_records_per_partition_pauses_above_n_and_resumes_at_n():
    """N = 2: t0 3 records > 2: paused, processing to 2 resumes it; t2 5 records, processed to
    3: still paused; t3 back to 2 (resumed) and 1."""
    trace = simulate(replace(TINY, policy="records_per_partition"), value_bytes=[77])
    pa = trace.partitions
    assert trace.threads.buffered_records.tolist() == [1, 2, 3, 1, 0, 0]
    assert pa.paused.tolist() == [False, False, True, False, False, False]
    assert trace.threads.paused_after_poll.tolist() == [1, 1, 1, 1, 0, 0]


def test_the_code_merged_in_3_2_stalls_for_good_when_a_join_waits_on_a_paused_partition():
    """t0: 10 small + 1 large record = 2000 > 800: both paused; processing takes t-0's first and
    t-1's only record, leaving 900 bytes > 800, with t-1 empty but 99 records behind on the
    broker. The task must wait for t-1, which stays paused: nothing is processed again."""
    merged = simulate(replace(JOIN, policy="thread_bytes_as_merged"), value_bytes=JOIN_VALUES)
    th = merged.threads
    assert th.processed_records.tolist() == [2] + [0] * 39
    assert th.buffered_bytes.tolist() == [900] * 40
    last = merged.partitions.tail(2)
    assert last.paused.tolist() == [True, True] and last.buffered_records.tolist() == [9, 0]
    assert last.lag_records.tolist() == [90, 99]


def test_the_fix_resumes_the_emptied_partition_and_the_join_goes_on():
    """With apache/kafka#13283's fix (policy thread_bytes) t-1 is resumed once empty: one large
    record a tick keeps the task going, and all 200 records are processed."""
    fixed = simulate(replace(JOIN, policy="thread_bytes", ticks=200), value_bytes=JOIN_VALUES)
    th = fixed.threads
    assert th.processed_records.iloc[:3].tolist() == [2, 2, 2]
    assert th.processed_records.sum() == 200
    assert fixed.partitions.tail(2).lag_records.tolist() == [0, 0]


def test_adding_a_thread_recomputes_the_shares_and_moves_tasks_with_their_buffers_dropped():
    """Two threads then three at 50 ms (tick 5), with a global thread: shares 9000 // 3 = 3000,
    then 9000 // 4 = 2250. Of 6 tasks, 2, 3, 4 and 5 move (k % 2 != k % 3); their buffered
    records go back to the broker side."""
    s = replace(TINY, input_buffer_max_bytes=9000, threads=2, global_thread=True, tasks=6,
                thread_changes=((50, 3),), ticks=8, initial_lag_records=1000,
                process_records_per_s=100.0)
    trace = simulate(s, value_bytes=[77] * 6)
    th = trace.threads
    assert th[th.time_ms < 50].share_bytes.unique().tolist() == [3000]
    assert th[th.time_ms >= 50].share_bytes.unique().tolist() == [2250]
    assert th.groupby("time_ms").threads.max().tolist() == [2] * 5 + [3] * 3
    assert trace.meta["task_moves"] == 4
    assert trace.meta["share_bytes"] == {2: thread_share_bytes(9000, 2, True), 3: 2250}
    pa = trace.partitions
    moved = pa[(pa.time_ms == 40) & pa.task.isin([2, 3, 4, 5])]
    after = pa[(pa.time_ms == 50) & pa.task.isin([2, 3, 4, 5])]
    assert (after.lag_records.to_numpy() >= moved.lag_records.to_numpy()
            + moved.buffered_records.to_numpy() - 3).all()  # back to the broker, minus 1 fetch
    assert after.thread.tolist() == [2, 0, 1, 2]


def test_the_same_seed_gives_the_same_trace_and_record_sizes_spread_as_asked():
    """Deterministic for a seed; sizes stay within value_bytes / spread and * spread."""
    s = replace(StreamsScenario(), ticks=50)
    a, b = simulate(s, seed=4), simulate(s, seed=4)
    assert a.threads.equals(b.threads) and a.partitions.equals(b.partitions)
    assert a.meta == b.meta
    values = np.array(a.meta["value_bytes"])
    assert values.min() >= 100 and values.max() <= 10_000 and values.max() > 3 * values.min()
    assert simulate(s, seed=5).meta["value_bytes"] != a.meta["value_bytes"]
    assert simulate(replace(s, record_size_spread=1.0)).meta["value_bytes"] == [1000] * 32


def test_the_trace_has_the_documented_dtypes():
    """Fixed dtypes for both tables."""
    trace = simulate(TINY, value_bytes=[77])
    assert dict(trace.threads.dtypes.astype(str)) == {
        "time_ms": "int64", "thread": "int32", "threads": "int32", "share_bytes": "int64",
        "polled_bytes": "int64", "buffered_bytes_after_poll": "int64",
        "buffered_bytes": "int64", "buffered_records": "int64", "processed_records": "int64",
        "processed_bytes": "int64", "demand_records": "int64", "partitions": "int32",
        "paused_partitions": "int32", "paused_after_poll": "int32",
        "nonempty_after_poll": "int32", "lag_records": "int64"}
    assert dict(trace.partitions.dtypes.astype(str)) == {
        "time_ms": "int64", "partition": "int32", "task": "int32", "topic": "int32",
        "thread": "int32", "buffered_records": "int64", "buffered_bytes": "int64",
        "lag_records": "int64", "paused": "bool", "polled_records": "int64",
        "processed_records": "int64"}


@settings(max_examples=examples(0.5))
@given(small_streams_scenarios())
def test_the_compiled_kernel_gives_the_plain_pythons_trace(case):
    """compiled=True and compiled=False give identical tables and meta."""
    s, values = case
    a = simulate(s, value_bytes=values)
    b = simulate(s, value_bytes=values, compiled=False)
    assert a.threads.equals(b.threads) and a.partitions.equals(b.partitions)
    assert a.meta == b.meta


@settings(max_examples=examples(1.2))
@given(small_streams_scenarios(policies=("thread_bytes", "thread_bytes_as_merged"), changes=False))
def test_a_thread_never_holds_more_than_its_share_plus_one_fetch_per_partition(case):
    """Under the byte bound a thread is over its share only by one poll: after a poll that took
    it over, every partition holding records is paused, so later polls reach only partitions
    that were empty. Buffered bytes <= share + sum of one fetch per partition it owns."""
    s, values = case
    trace = simulate(s, value_bytes=values)
    sizes = trace.meta["record_bytes"]
    th = trace.threads
    for i, rows in th.groupby("thread"):
        own = [p for p in range(s.partitions) if (p // s.topics) % s.threads == i]
        bound = sum(fetch_bytes(sizes[p], s.max_partition_fetch_bytes) for p in own)
        assert (rows.buffered_bytes_after_poll <= rows.share_bytes + bound).all()
    over = th[th.buffered_bytes_after_poll > th.share_bytes]
    assert (over.paused_after_poll >= over.nonempty_after_poll).all()
    if s.policy == "thread_bytes":  # nothing empty stays paused
        assert (over.paused_after_poll == over.nonempty_after_poll).all()


@settings(max_examples=examples(0.8))
@given(small_streams_scenarios(policies=("records_per_partition",)))
def test_a_partition_never_holds_more_than_n_records_and_one_fetch(case):
    """buffered.records.per.partition: a partition fetches only while at or below N."""
    s, values = case
    trace = simulate(s, value_bytes=values)
    fetch = [fetch_bytes(r, s.max_partition_fetch_bytes) // r for r in trace.meta["record_bytes"]]
    pa = trace.partitions
    assert (pa.buffered_records.to_numpy()
            <= s.buffered_records_per_partition + np.array(fetch)[pa.partition]).all()


@settings(max_examples=examples(1.2))
@given(small_streams_scenarios(policies=tuple(p for p in STREAMS_POLICIES
                                      if p != "thread_bytes_as_merged")))
def test_no_policy_but_the_merged_code_deadlocks_every_record_is_processed(case):
    """No deadlock: with nothing more produced and processing going on, every paused partition
    is resumed and every record processed by the end (a thread processes at least one record
    every two ticks while it has work: one tick may go to fetching what a task waits for)."""
    s, values = case
    s = replace(s, produce_records_per_s=0.0)
    s = replace(s, ticks=2 * s.partitions * s.initial_lag_records + 160)
    trace = simulate(s, value_bytes=values)
    last = trace.partitions[trace.partitions.time_ms == trace.partitions.time_ms.max()]
    assert (last.lag_records == 0).all() and (last.buffered_records == 0).all()
    assert not last.paused.any()
    assert trace.threads.processed_records.sum() == s.partitions * s.initial_lag_records


def test_the_lesson_instance_stalls_under_the_merged_code_and_not_under_the_others():
    """The lesson's 16-partition join: threads stop for good under the merged code; under every
    other policy the instance processes its whole backlog at full speed."""
    from kipviz.widgets.streams import STREAMS_LESSON_SCENARIO as s

    merged = simulate(replace(s, policy="thread_bytes_as_merged")).threads
    end = merged[merged.time_ms >= merged.time_ms.max() - 1000]
    stalled = end.groupby("thread").processed_records.sum() == 0
    assert stalled.sum() >= 1
    assert (end[end.thread.isin(stalled[stalled].index)].lag_records > 0).all()
    for policy in ("thread_bytes", "records_per_partition", "instance_bytes"):
        th = simulate(replace(s, policy=policy)).threads
        assert th.groupby("time_ms").processed_records.sum().iloc[-100:].min() > 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"input_buffer_max_bytes": -1}, r"input_buffer_max_bytes \(input\.buffer\.max\.bytes\) "
                                         r"must be an integer >= 0: -1"),
        ({"buffered_records_per_partition": 0},
         r"buffered_records_per_partition \(buffered\.records\.per\.partition\) must be an integer "
         r">= 1"),
        ({"threads": 0}, r"threads \(num\.stream\.threads\) must be an integer >= 1: 0"),
        ({"max_partition_fetch_bytes": -5},
         r"max\.partition\.fetch\.bytes\) must be an integer >= 0"),
        ({"policy": "global"}, r"policy must be one of 'records_per_partition', 'thread_bytes'"),
        ({"record_size_spread": 0.5}, r"record_size_spread must be a number >= 1: 0\.5"),
        ({"process_records_per_s": 0.0}, r"process_records_per_s must be a number > 0: 0\.0"),
        ({"produce_records_per_s": float("inf")},
         r"produce_records_per_s must be a finite number: inf"),
        ({"thread_changes": ((100, 2), (100, 3))}, r"thread_changes\[1\] time_ms must be above the "
                                                   r"one before \(100\): 100"),
        ({"thread_changes": ((100, 0),)},
         r"thread_changes\[0\] threads \(num\.stream\.threads\) must be an integer >= 1: 0"),
        ({"thread_changes": (100,)},
         r"thread_changes\[0\] must be a \(time_ms, threads\) pair: 100"),
        ({"global_thread": "yes"}, r"global_thread must be True or False"),
        ({"topic": ""}, r"topic must be a non-empty string: ''"),
    ],
)
def test_bad_settings_are_rejected_naming_the_kafka_setting(changes, message):
    """Invalid scenarios raise ValueError at construction (never clamped)."""
    with pytest.raises(ValueError, match=message):
        replace(TINY, **changes)


def test_given_value_sizes_must_fit_the_partitions():
    """One size per partition, each >= 0."""
    with pytest.raises(ValueError, match=r"one size per partition \(1\): 2"):
        simulate(TINY, value_bytes=[1, 2])
    with pytest.raises(ValueError, match=r"value_bytes\[0\] must be an integer >= 0: -1"):
        simulate(TINY, value_bytes=[-1])
