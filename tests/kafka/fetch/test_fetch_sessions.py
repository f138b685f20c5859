"""KIP-227's fetch sessions decide the order a broker reads (kipviz.kafka.fetch.session), by
version, and a buffered partition pins its whole response (issue 27's Show list)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.fetch.request import Ordering
from kipviz.kafka.fetch.session import (
    close_response,
    java_fetch_order,
    new_fetch_sessions,
    open_request,
    session_moves,
)
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Workload

MiB = 2**20
# 24 partitions with a backlog on 2 brokers, Zipf-skewed producers, responses limited to 256 KiB:
# the response limit binds, so the order decides who gets the bytes.
SKEWED = ConsumerScenario(
    partitions=24, brokers=2, fetch_max_bytes=256 * 1024, max_partition_fetch_bytes=128 * 1024,
    consume_bytes_per_s=1e9, ticks=400, windows=4, kafka_version="4.1",
    workload=Workload(profile="zipf", produce_bytes_per_s=40e6, initial_lag_bytes=24 * MiB))


def _same_fetches(a: ConsumerScenario, b: ConsumerScenario) -> bool:
    """Whether two scenarios give the same fetches, bytes per window and memory."""
    x, y = simulate(a, seed=3), simulate(b, seed=3)
    return (x.fetches.equals(y.fetches) and x.windows.equals(y.windows)
            and x.memory.equals(y.memory))


def test_a_4_1_consumer_fetches_in_its_sessions_rotation_not_in_hash_order():
    """Kafka 4.1, ordering=None: the first (full) fetch is in hash order (KAFKA-14274), every
    later one in the session's rotation: the same fetches as Ordering.SESSION, nobody starved
    for long; with every fetch full (incremental_fetch_sessions=False) the same as Ordering.HASH,
    where the partitions at the back starve."""
    assert java_fetch_order("4.1").request == Ordering.HASH
    assert _same_fetches(SKEWED, replace(SKEWED, ordering=Ordering.SESSION))
    full = replace(SKEWED, incremental_fetch_sessions=False)
    assert _same_fetches(full, replace(SKEWED, ordering=Ordering.HASH))
    session, hashed = simulate(SKEWED, seed=3), simulate(full, seed=3)
    assert session.meta["fetch_sessions"] and not hashed.meta["fetch_sessions"]
    got = {name: t.windows.groupby("partition").delivered_bytes.sum()
           for name, t in (("session", session), ("hash", hashed))}
    assert got["session"].min() > 0.9 * got["session"].max()  # the same bytes per partition
    assert got["hash"].min() == 0  # the back of the hash order gets nothing
    streak = {name: t.windows.max_starvation_streak.max()
              for name, t in (("session", session), ("hash", hashed))}
    assert streak["session"] < 12 < streak["hash"]  # within one rotation of 12 partitions


def test_a_3_9_consumer_that_keeps_up_sees_the_sessions_rotation():
    """Kafka 3.9 leaves partitions with buffered data out of a request (forgotten and re-added
    at the end of the session); an application that drains each response before the next fetch
    is sent leaves nothing out, so it fetches as with Ordering.SESSION."""
    keeps_up = replace(SKEWED, kafka_version="3.9", consume_bytes_per_s=1e12)
    assert _same_fetches(keeps_up, replace(keeps_up, ordering=Ordering.SESSION))


def test_an_incremental_fetch_forgets_left_out_partitions_and_re_adds_them_at_the_end():
    """Broker 0 serves 0..3: a full fetch [2, 0, 3, 1] creates the session in that order; an
    incremental fetch of [0, 3, 1, 2] after 2 was left out once reads 0, 3, 1 then the re-added
    2; partitions that returned records move to the end, in session order."""
    s = new_fetch_sessions(np.array([0, 4]), 4)
    request, places = np.array([2, 0, 3, 1]), np.arange(4)
    open_request(s, 0, request, places, 4, True)
    assert bool(s.full[0]) and s.order[:4].tolist() == [2, 0, 3, 1]
    request, places = np.array([0, 3, 1]), np.arange(3)  # 2 still buffered: left out
    open_request(s, 0, request, places, 3, True)
    assert not s.full[0] and s.order[: s.size[0]].tolist() == [0, 3, 1]
    request, places = np.array([0, 3, 1, 2]), np.array([0, 1, 2, 3])
    open_request(s, 0, request, places, 4, True)
    assert request.tolist() == [0, 3, 1, 2] and s.order[:4].tolist() == [0, 3, 1, 2]
    for p, raw in ((0, 10), (3, 0), (1, 5), (2, 0)):
        session_moves(s, 0, p, raw, 100, False)
    flags, scratch = np.zeros(4, np.bool_), np.zeros(4, np.int64)
    close_response(s, 0, False, flags, scratch)
    assert s.order[:4].tolist() == [3, 2, 0, 1]


def test_before_3_0_a_high_watermark_change_alone_moves_a_partition():
    """KAFKA-12330 (3.0): before it, a partition moved to the end of the session whenever it was
    in the incremental response, a changed high watermark enough; since, only with records."""
    assert java_fetch_order("2.8").moves_on_high_watermark
    assert not java_fetch_order("3.0").moves_on_high_watermark
    for moves_on_hw, expected in ((True, [1, 0]), (False, [0, 1])):
        s = new_fetch_sessions(np.array([0, 2]), 2)
        open_request(s, 0, np.array([0, 1]), np.arange(2), 2, True)  # full: creates it
        for p in (0, 1):
            session_moves(s, 0, p, 0, 50, moves_on_hw)
        close_response(s, 0, False, np.zeros(2, np.bool_), np.zeros(2, np.int64))
        open_request(s, 0, np.array([0, 1]), np.arange(2), 2, True)  # incremental
        session_moves(s, 0, 0, 0, 80, moves_on_hw)  # new high watermark, no records
        session_moves(s, 0, 1, 0, 50, moves_on_hw)
        close_response(s, 0, False, np.zeros(2, np.bool_), np.zeros(2, np.int64))
        assert s.order[:2].tolist() == expected


def test_a_throttled_full_fetch_creates_no_session():
    """KIP-219: a throttled response is answered empty; for a full fetch the broker creates no
    session (getThrottledResponse), so the next fetch is full again."""
    s = new_fetch_sessions(np.array([0, 2]), 2)
    open_request(s, 0, np.array([1, 0]), np.arange(2), 2, True)
    close_response(s, 0, True, np.zeros(2, np.bool_), np.zeros(2, np.int64))
    assert s.size[0] == -1 and not s.member.any()


def test_no_session_before_kafka_1_1_or_fetch_request_v7():
    """KIP-227 came with fetch request v7 (Kafka 1.1): older releases and versions read in
    request order."""
    assert not java_fetch_order("1.0").sessions and java_fetch_order("1.1").sessions
    assert not java_fetch_order("2.0", fetch_version=6).sessions


def test_a_4_3_consumer_that_pauses_partitions_holds_whole_responses():
    """Kafka 4.3, 2 brokers, 16 partitions with data, the application slow and 4 partitions
    paused while they hold data: each paused partition pins its whole response, so the consumer
    holds more than one response per broker plus paused x max.partition.fetch.bytes, and no more
    than consumer_memory_bounds."""
    s = ConsumerScenario(
        partitions=16, brokers=2, fetch_max_bytes=1 * MiB, max_partition_fetch_bytes=128 * 1024,
        consume_bytes_per_s=2e6, ticks=600, windows=2, kafka_version="4.3",
        paused_partitions=(0, 1, 2, 3), pause_at_ms=1500,
        workload=Workload(produce_bytes_per_s=8e6, initial_lag_bytes=16 * MiB))
    trace = simulate(s, seed=0, record_fetches=False)
    peak = trace.memory.held_bytes.max()
    old_answer = 2 * s.largest_response_bytes() + 4 * s.max_partition_fetch_bytes
    assert old_answer < peak <= consumer_memory_bounds(s).bound_bytes
