"""The consumer by Kafka version: KAFKA-17182's buffered-node rule (with Kafka's own test cases),
request orders, broker caps, fetch quotas, and the one consumer-memory answer."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.kafka.config.versions import (
    BEHAVIOURS,
    KAFKA_VERSIONS,
    NEWEST_KAFKA_VERSION,
    fetch_request_version,
    has,
    request_ordering,
)
from kipviz.kafka.consumer.memory import (
    consumer_memory_bound_bytes,
    consumer_memory_bounds,
    one_round,
)
from kipviz.kafka.fetch.request import Ordering, TopicPartition, java_hash_order, request_partitions
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Workload
from tests.strategies import consumer_scenarios, examples, seeds

MiB = 1024 * 1024


def send_fetches(leader, buffered, fetchable, skip, brokers):
    """``sendFetches()`` over every node: {node: partitions requested}, nodes asked nothing left
    out."""
    requests = {}
    for node in range(brokers):
        order = np.array([p for p in range(len(leader)) if leader[p] == node], np.int64)
        out, places = np.zeros(len(order), np.int64), np.zeros(len(order), np.int64)
        n = request_partitions(order, np.array(buffered), np.array(fetchable), skip, out, places)
        if n:
            requests[node] = set(out[:n].tolist())
    return requests


# FetchRequestManagerTest: tp0..tp3 spread over two nodes; node 0 serves 0 and 2, node 1 1 and 3
LEADER = [0, 1, 0, 1]
ALL = [True] * 4


def test_kafka_4_sends_no_fetch_to_a_node_with_buffered_partitions():
    """testFetchRequestWithBufferedPartitions: call #2 and #3 send nothing while each node still
    has a buffered partition; #4 asks node 0 alone for both its partitions once they were
    collected; #6 asks both nodes for everything."""
    assert send_fetches(LEADER, [0] * 4, ALL, True, 2) == {0: {0, 2}, 1: {1, 3}}  # call 1
    assert send_fetches(LEADER, [0, 1, 1, 1], ALL, True, 2) == {}  # call 2: tp0 collected
    assert send_fetches(LEADER, [0, 0, 1, 1], ALL, True, 2) == {}  # call 3: tp1 collected
    assert send_fetches(LEADER, [0, 0, 0, 1], ALL, True, 2) == {0: {0, 2}}  # call 4
    assert send_fetches(LEADER, [0] * 4, ALL, True, 2) == {0: {0, 2}, 1: {1, 3}}  # call 6


def test_kafka_3_9_fetches_every_partition_with_nothing_buffered():
    """The same call #2 under 3.9's rules asks for the collected partition at once."""
    assert send_fetches(LEADER, [0, 1, 1, 1], ALL, False, 2) == {0: {0}}


@pytest.mark.parametrize("state", ["paused", "not assigned", "pending revocation",
                                   "pending assignment", "offset reset"])
def test_an_unfetchable_buffered_partition_does_not_block_its_node(state):
    """testFetchRequestWithBufferedPartitionPaused / NotAssigned / PendingRevocation /
    PendingAssignment / ResetOffset: tp1 is buffered but unfetchable, tp0 was collected, so the
    node is asked for tp0 alone."""
    assert send_fetches([0, 0], [0, 1], [True, False], True, 1) == {0: {0}}


def test_a_leaderless_buffered_partition_blocks_no_node():
    """testFetchRequestWithBufferedPartitionMissingLeader: a partition with no leader is on no
    node's list, so its buffered data blocks nobody; node 0 is asked for its collected one."""
    leader = [0, 1, -1, 1]  # tp2 (node 0's second partition) lost its leader
    assert send_fetches(leader, [0, 1, 1, 1], ALL, True, 2) == {0: {0}}


def test_versions_are_release_names_and_anything_else_is_refused():
    """kafka_version accepts the releases the model knows and names them when it refuses."""
    assert KAFKA_VERSIONS[0] == "0.10.0" and KAFKA_VERSIONS[-1] == NEWEST_KAFKA_VERSION
    assert ConsumerScenario().kafka_version == NEWEST_KAFKA_VERSION
    for bad in ("5.0", "4", "3.9.1", 4.0, None):
        with pytest.raises(ValueError, match=r"kafka_version must be one of 0\.10\.0, .*4\.0"):
            ConsumerScenario(kafka_version=bad)


@pytest.mark.usefixtures("compiled_kernels")
def test_every_release_the_model_knows_simulates_a_small_consumer():
    """Each release runs (its rules, its newest fetch request version, its request order) and
    says which it was: the dashboards' version controls are moved through one release of each
    set of releases run alike (``test_widget_coverage.py``), this covers the rest."""
    small = ConsumerScenario(partitions=12, ticks=100, windows=5,
                             workload=Workload(initial_lag_bytes=4 * MiB))
    for v in KAFKA_VERSIONS:
        trace = simulate(replace(small, kafka_version=v), record_fetches=False)
        assert trace.meta["kafka_version"] == v
        assert trace.meta["fetch_version"] == fetch_request_version(v)
        assert trace.memory["held_bytes"].max() > 0, v


def test_each_behaviour_starts_with_the_release_that_introduced_it():
    """KIP-74 in 0.10.1, KIP-219 in 2.0, KAFKA-9677 first released in 2.5.0 (no 2.4.2 shipped),
    KIP-541 in 2.5, KAFKA-12330 in 3.0, KAFKA-17182 in 4.0, KAFKA-19795 in 4.2, KAFKA-8677's
    hand-over only by a poll that found nothing buffered in 2.4."""
    since = {b.name: b.since for b in BEHAVIOURS if b.area in ("consumer", "tiered")}
    assert since.pop("follower_fetch_pending_upload") == "4.3"  # KIP-1023
    assert since == {"response_limit": "0.10.1", "round_robin_order": "0.10.1",
                     "hash_set_order": "3.7", "round_robin_order_again": "4.2",
                     "fetch_sessions": "1.1", "throttled_empty_response": "2.0",
                     "quota_window_cap": "2.5", "broker_fetch_max_bytes": "2.5",
                     "buffered_nodes": "4.0", "tiered_storage": "3.6",
                     "hand_over_when_idle": "2.4",
                     "remote_log_quotas": "3.8", "remote_fetch_max_wait": "3.8",
                     "remote_fetch_several_partitions": "4.2",
                     "remote_fetch_charged_up_front": "4.2",
                     "topic_grouped_requests": "0.10.0", "session_moves_records_only": "3.0",
                     "fetch_session_cache_shards": "3.8", "remote_fetch_first_batch_once": "4.2"}
    assert not has("3.9", "buffered_nodes") and has("4.0", "buffered_nodes")
    assert [fetch_request_version(v) for v in ("0.10.0", "0.10.1", "1.1", "3.9", "4.3")] == [
        2, 3, 7, 17, 18]


def test_the_request_order_follows_the_release():
    """HashMap order in 0.10.0, KIP-74's round-robin from 0.10.1, HashSet order 3.7 to 4.1
    (KAFKA-14274), round-robin again from 4.2 (KAFKA-19820)."""
    assert [request_ordering(v) for v in ("0.10.0", "0.10.1", "3.6", "3.7", "4.1", "4.2")] == [
        Ordering.HASH, Ordering.ROUND_ROBIN, Ordering.ROUND_ROBIN, Ordering.HASH, Ordering.HASH,
        Ordering.ROUND_ROBIN]
    assert ConsumerScenario(kafka_version="4.0").request_ordering == Ordering.HASH
    assert ConsumerScenario(kafka_version="4.0", ordering=Ordering.FIXED).request_ordering == (
        Ordering.FIXED)


def test_an_assigned_consumer_starts_in_hash_order_and_a_group_member_in_partition_order():
    """KafkaConsumer.assign puts the partitions in a HashSet and SubscriptionState.assignFromUser
    in a HashMap; a classic group's assignment is a TreeSet (ConsumerCoordinator.onJoinComplete).
    The assigned orders are the first full fetches a real 4.4.0 consumer sent to two brokers
    (``kipviz reality``, partition_order: topic events, 16 partitions, p on broker p % 2 + 1)."""
    from kipviz.scenarios.consumer.scenario import initial_orders

    assigned = ConsumerScenario(partitions=16, brokers=2, kafka_version="4.3",
                                assignment="assign")
    orders, start = initial_orders(assigned)
    assert orders[start[0]:start[1]].tolist() == [12, 14, 4, 6, 8, 10, 0, 2]
    assert orders[start[1]:start[2]].tolist() == [11, 13, 15, 3, 5, 7, 9, 1]
    orders, start = initial_orders(replace(assigned, assignment="group"))
    assert orders.tolist() == [*range(0, 16, 2), *range(1, 16, 2)]
    with pytest.raises(ValueError, match="assignment"):
        ConsumerScenario(assignment="subscribe")


def test_a_copied_hash_set_is_sized_for_its_collection():
    """new HashSet<>(96 partitions) has 256 buckets (96 / .75 + 1 = 129, rounded up), a HashMap
    filled one put at a time 128: the iteration orders differ."""
    tps = [TopicPartition("orders", i) for i in range(96)]
    copied = java_hash_order(tps, copied=True)
    buckets = [((h := tps[i].java_hash() & 0xFFFFFFFF) ^ (h >> 16)) & 255 for i in copied]
    assert buckets == sorted(buckets) and copied != java_hash_order(tps)


def test_a_fetch_version_the_release_cannot_send_is_refused():
    """0.10.0 sends at most v2; 4.0 dropped v0 to v3 (FetchRequest.json "validVersions": "4-17")."""
    with pytest.raises(ValueError, match=r"version \(fetch request version\) must be >= 0 and <= 2 "
                                         r"for "
                                         r"kafka_version '0\.10\.0': 12"):
        ConsumerScenario(kafka_version="0.10.0", version=12)
    with pytest.raises(ValueError, match=r"must be >= 4 and <= 17 for kafka_version '4\.0': 2"):
        ConsumerScenario(kafka_version="4.0", version=2)
    assert ConsumerScenario(kafka_version="0.10.0").fetch_version == 2
    with pytest.raises(ValueError, match=r"ordering must not be SESSION before fetch sessions "
                                         r"\(KIP-227, Kafka 1\.1; "
                                         r"kafka_version '1\.0'\): <Ordering\.SESSION: 3>"):
        ConsumerScenario(kafka_version="1.0", ordering=Ordering.SESSION)


def test_the_broker_caps_the_response_as_the_release_does():
    """The broker's fetch.max.bytes from 2.5 (KIP-541), the quota window from 2.4 (KAFKA-9677:
    quota x (11 - 1) x 1 s)."""
    s = ConsumerScenario(fetch_max_bytes=100 * MiB, broker_fetch_max_bytes=55 * MiB)
    assert s.response_max_bytes == 55 * MiB
    assert replace(s, kafka_version="2.4").response_max_bytes == 100 * MiB
    q = replace(s, fetch_quota_bytes_per_s=1e6)
    assert q.response_max_bytes == 10_000_000
    assert replace(q, kafka_version="2.3").response_max_bytes == 100 * MiB


LAGGING = ConsumerScenario(  # producers write 3x faster than the application consumes
    partitions=60, brokers=3, fetch_max_bytes=4 * MiB, consume_bytes_per_s=10e6, ticks=1000,
    windows=10, workload=Workload(produce_bytes_per_s=30e6, record_bytes=1000))


def test_a_lagging_kafka_4_consumer_holds_one_response_per_broker():
    """KAFKA-17182: 60 partitions on 3 brokers, the application 3x slower than the producers.
    Kafka 4.0 holds about one response per broker (3 x 4 MiB) and at most one more, the drained
    response still next in line (16 MiB and each response's own fields). 3.9's bound is every
    partition's 1 MiB and the 4 MiB response being drained (64 MiB), but its consumer does not
    grow towards it: a response is handed to the fetch buffer only by a poll that found nothing
    buffered (KAFKA-8677, 2.4), and a response's partitions without records are completed
    fetches too, so they wait behind the others (measured on real 3.9.2 consumers: 1.3 MB with
    12 partitions of 256 KiB on one broker, where the bound is 4 MiB)."""
    new = simulate(replace(LAGGING, kafka_version="4.0"), record_fetches=False)
    old = simulate(replace(LAGGING, kafka_version="3.9"), record_fetches=False)
    assert new.meta["memory_bound_bytes"] == 16 * MiB + 4 * 815
    assert 10 * MiB < new.memory.held_bytes.max() <= new.meta["memory_bound_bytes"]
    assert old.meta["memory_bound_bytes"] == 64 * MiB + 61 * 815
    assert new.memory.held_bytes.max() <= old.memory.held_bytes.max() < 24 * MiB


def test_the_consumer_memory_bound_is_the_smaller_of_the_broker_and_partition_terms():
    """KIP-74: min(N * fetch.max.bytes, max.partition.fetch.bytes * partitions)."""
    assert consumer_memory_bound_bytes(3, 52428800, 1048576, 1000) == 3 * 52428800
    assert consumer_memory_bound_bytes(3, 52428800, 1048576, 10) == 10 * 1048576
    assert consumer_memory_bound_bytes(1, 1000, 100, 4, max_batch_bytes=2000) == 2000


def test_the_scenarios_bounds_and_the_memory_answer_are_kip74s_one_round():
    """The drawn bounds and the answer's one-round figure come from one_round: the KIP's
    arithmetic (consumer fetch.max.bytes), and what holds (the response limit, whole batches),
    on the serving brokers."""
    s = replace(LAGGING, kafka_version="3.9", fetch_max_bytes=5 * MiB,
                broker_fetch_max_bytes=4 * MiB)
    kip, held = one_round(3, 5 * MiB, MiB, 60), one_round(3, 4 * MiB, MiB, 60, 2 * MiB)
    bounds = s.bounds(2 * MiB)
    assert [bounds[k] for k in ("pre_kip74_bound_bytes", "kip74_bound_bytes",
                                "in_flight_bound_bytes", "buffered_bound_bytes")] == [
        kip.buffered_bytes, kip.bound_bytes, held.in_flight_bytes, held.buffered_bytes] == [
        60 * MiB, 15 * MiB, 12 * MiB, 120 * MiB]
    answer = consumer_memory_bounds(s, lagging=False, max_batch_bytes=2 * MiB)
    assert answer.kip74_bytes == held.bound_bytes
    # and the response being drained, and each of the 61 responses' own fields (v17, 20
    # partitions of up to 2 MiB: 835 bytes)
    assert answer.bound_bytes == held.buffered_bytes + 4 * MiB + 61 * 835


def test_the_one_memory_answer_names_the_rule_and_its_source():
    """consumer_memory_bounds: one response per broker and the drained one on 4.x, one completed
    fetch per partition (and the whole response being drained) on 3.9, each response with its
    own fields, lagging or not (KIP-74's one round is the typical figure beside it when keeping
    up), KIP-81's pool when smaller."""
    four = consumer_memory_bounds(replace(LAGGING, kafka_version="4.0"))
    assert (four.bound_bytes, four.rule, four.lagging) == (16 * MiB + 4 * 815,
                                                           "one response per broker", True)
    assert "KAFKA-17182" in four.source and "at most 16.0 MiB" in four.sentence()
    assert "3 x 4.0 MiB + 1 x 4.0 MiB drained, still next in line" in four.sentence()
    old = consumer_memory_bounds(replace(LAGGING, kafka_version="3.9"))
    assert (old.bound_bytes, old.rule) == (64 * MiB + 61 * 815,
                                           "one completed fetch per partition")
    assert "60 x 1.0 MiB + 1 x 4.0 MiB being drained" in old.sentence()
    keeping_up = consumer_memory_bounds(replace(LAGGING, kafka_version="3.9"), lagging=False)
    assert (keeping_up.bound_bytes, keeping_up.kip74_bytes) == (64 * MiB + 61 * 815, 12 * MiB)
    assert "at most 64.0 MiB" in keeping_up.sentence()
    assert "about 12.0 MiB while the application keeps up" in keeping_up.sentence()
    pool = consumer_memory_bounds(replace(LAGGING, kafka_version="3.9",
                                          buffer_memory_bytes=8 * MiB))
    assert (pool.bound_bytes, pool.rule) == (12 * MiB - 1, "buffer.memory pool")


def test_a_quota_throttled_fetch_comes_back_empty_and_the_client_waits():
    """KIP-219 (2.0): a fetch over consumer_byte_rate is answered empty with a throttle time and
    nothing is sent to that broker until it has passed; over the run the consumer gets no more
    than the quota plus one burst of quota x (quota.window.num - 1) x 1 s (Rate's window starts
    full). Before 2.0 the broker held the response, data included, for the throttle time."""
    s = ConsumerScenario(partitions=4, brokers=1, consume_bytes_per_s=1e9, ticks=1500, windows=5,
                         fetch_quota_bytes_per_s=2e6,
                         workload=Workload(produce_bytes_per_s=10e6, initial_lag_bytes=20 * MiB))
    trace = simulate(s)
    assert trace.meta["throttled_fetches"] > 0 and trace.meta["throttle_time_total_ms"] > 0
    empty = trace.fetches.groupby("fetch_id").raw_bytes.sum() == 0
    assert empty.sum() >= trace.meta["throttled_fetches"]
    run_s = s.ticks * s.tick_ms / 1000
    assert trace.windows.delivered_bytes.sum() <= 2e6 * run_s + 2e6 * 10
    old = simulate(replace(s, kafka_version="1.1"))
    assert old.meta["throttled_fetches"] > 0
    assert (old.fetches.groupby("fetch_id").raw_bytes.sum() > 0).all()


def test_paused_partitions_keep_their_data_without_blocking_their_broker():
    """Kafka 4.x: a paused partition's buffered data is not handed over and does not stop its
    broker from being fetched for the others."""
    s = replace(LAGGING, kafka_version="4.0", consume_bytes_per_s=100e6,
                paused_partitions=(0, 3), pause_at_ms=2000)
    trace = simulate(s)
    after = trace.fetches[trace.fetches.time_ms > 2500]
    assert not after.partition.isin([0, 3]).any()
    assert after.broker.eq(0).any()  # partitions 0 and 3 are led by broker 0


@pytest.mark.parametrize("pause_at_ms", [5, 40, 95, 200, 330])
def test_a_paused_partitions_buffered_fetch_lets_the_drained_one_go(pause_at_ms):
    """FetchCollector.collectFetch (4.4 :125-130) moves a paused partition's completed fetch
    through nextInLineFetch and leaves it null at every poll, so with one buffered the drained
    response is let go before the poll reads the network. Measured (kipviz reality, 2026-12-02):
    a 4.4.0 consumer of 6 partitions on one broker, partition 2 paused, held at most 2,097,608
    bytes, two 1 MiB responses (the paused one's and the one being read), never three; the
    simulation said three in most runs before this rule, whatever the pause time."""
    from kipviz.reality.experiments.consumer_memory import Case, _scenario, simulated_peak_bytes

    scenario = _scenario(Case(1, 6, paused=(2,)), "4.3", 2_081_965, 7003, pause_at_ms)
    peak = simulated_peak_bytes(scenario, [[16_205] * 194 for _ in range(6)])
    assert peak == 2 * (1 << 20)


@settings(max_examples=examples(0.8))
@given(consumer_scenarios(quotas=False, kafka_versions=KAFKA_VERSIONS), seeds)
def test_held_memory_never_exceeds_the_one_memory_answer(scenario, seed):
    """Over random settings and every Kafka version, lagging or not, paused partitions included,
    the whole responses a consumer holds never exceed ``consumer_memory_bounds``: on 4.x one
    response per broker plus one per paused partition; before, every partition's completed fetch,
    the response being drained and one per paused partition."""
    trace = simulate(scenario, seed=seed, record_fetches=False)
    b = consumer_memory_bounds(scenario, max_batch_bytes=trace.meta["max_batch_bytes"])
    assert trace.meta["memory_bound_bytes"] == b.bound_bytes
    assert (trace.memory.held_bytes <= b.bound_bytes).all()


def test_the_heap_beside_the_responses_is_one_poll_and_one_decompressed_batch():
    """Since 0.11 one record batch is decompressed at a time (16 KiB x 4 = 64 KiB); 0.10.x
    decompressed a partition's whole completed fetch (1 MiB x 4); one poll() hands over at most
    max.poll.records records (500 x 1,000 bytes)."""
    from kipviz.kafka.consumer.memory import poll_heap_sentence

    new = poll_heap_sentence("4.3", record_bytes=1000, compression_ratio=4.0)
    assert "500 x 1,000 = 488.3 KiB" in new and "16,384 x 4 = 64.0 KiB" in new
    old = poll_heap_sentence("0.10.2", record_bytes=1000, compression_ratio=4.0)
    assert "1,048,576 x 4 = 4.0 MiB (0.10.x)" in old
    with pytest.raises(ValueError, match=r"compression_ratio must be a number >= 1: 0.5"):
        poll_heap_sentence("4.3", record_bytes=1000, compression_ratio=0.5)
