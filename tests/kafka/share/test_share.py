"""KIP-932 share groups: the UNIFORM byte split and SharePartition's acquire rules, on Kafka's own
tests' numbers (``PartitionMaxBytesStrategyTest``, ``SharePartitionTest``)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given

import kipviz.kafka.share.acquire as sa
import kipviz.kafka.share.assign as sassign
import kipviz.kafka.share.fetch as share
import kipviz.kafka.share.partition as spf
from kipviz.kafka.share.fetch import SharePartition, uniform_partition_max_bytes, uniform_split_into
from kipviz.kafka.share.partition import ACQUIRED, ARCHIVED, AVAILABLE, RELEASE
from tests.strategies import share_partition_runs, uniform_splits

TPS = ["topic1-0", "topic1-1", "topic2-0"]


def test_issue_numbers_one_million_over_seven_partitions():
    """1,000,000 bytes, 7 partitions read, 7 acquired: six get 142,857 and one 142,858 (the
    remainder 1,000,000 - 7 x 142,857 = 1 goes to one random partition)."""
    tps = [f"t-{i}" for i in range(7)]
    split = uniform_partition_max_bytes(1_000_000, tps, 7, rng=np.random.default_rng(42))
    assert list(split) == tps
    assert sorted(split.values()) == [142_857] * 6 + [142_858]
    assert sum(split.values()) == 1_000_000


def test_issue_numbers_ten_acquired_seven_asked_and_a_budget_of_three():
    """10 acquired but 7 read: 1,000,000 / 10 = 100,000 each (the other 300,000 are for the
    three partitions not read now). A budget of 3 over 7: exactly three get 1 byte, in a row."""
    tps = [f"t-{i}" for i in range(7)]
    assert set(uniform_partition_max_bytes(1_000_000, tps, 10).values()) == {100_000}
    for seed in range(20):
        values = list(uniform_partition_max_bytes(3, tps, 7,
                                                  rng=np.random.default_rng(seed)).values())
        assert sorted(values) == [0, 0, 0, 0, 1, 1, 1]
        ones = [i for i, v in enumerate(values) if v]
        assert any(all((s + k) % 7 in ones for k in range(3)) for s in ones)  # contiguous, wraps


def test_kafka_partition_max_bytes_strategy_test_uniform_cases():
    """``testUniformStrategy``: 100 over 3 of 3 -> {33, 33, 34}; 100 over 3 of 5 -> 20 each;
    9 over 3 of 12 -> 3 each (case 2); 10 over 3 of 12 -> {3, 3, 4}; 2 over 3 of 4 -> {0, 1, 1}."""
    def values(n, acquired):
        return list(uniform_partition_max_bytes(n, TPS, acquired).values())
    assert sorted(values(100, 3)) == [33, 33, 34]
    assert values(100, 5) == [20, 20, 20]
    assert values(9, 12) == [3, 3, 3]
    assert sorted(values(10, 12)) == [3, 3, 4]
    assert sorted(values(2, 4)) == [0, 1, 1]


def test_the_random_index_is_drawn_only_where_kafka_calls_next_int():
    """No remainder: no draw, so the generator is left as it was (Kafka's ``Random`` too)."""
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    uniform_partition_max_bytes(99, TPS, 3, rng=a)
    assert a.integers(1_000_000) == b.integers(1_000_000)
    out = np.zeros(3, np.int64)
    uniform_split_into(101, 3, 5, 2, out)  # case 1 with a remainder of 1, index 2
    assert out.tolist() == [20, 20, 21]


@given(split=uniform_splits)
def test_uniform_split_follows_kafkas_three_cases(split):
    """Order kept; case 1 (bytes >= acquired): bytes // acquired each, one partition the
    remainder more; case 2: the same over the partitions read; case 3: bytes ones in a row."""
    budget, n, extra = split
    acquired = n + extra
    tps = list(range(n))
    values = list(uniform_partition_max_bytes(budget, tps, acquired).values())
    if budget >= n:
        share = acquired if budget >= acquired else n
        assert sorted(values)[:-1] == [budget // share] * (n - 1)
        assert max(values) == budget // share + budget % share
    else:
        ones = [i for i, v in enumerate(values) if v]
        assert sorted(values) == [0] * (n - budget) + [1] * budget
        assert any(all((s + k) % n in ones for k in range(budget)) for s in ones)


@pytest.mark.parametrize(("args", "match"), [
    ((100, [], 20), r"partitions .* must be non-empty: \[\]"),
    ((0, TPS, 20), r"request_max_bytes \(share fetch MaxBytes\) must be an integer >= 1: 0"),
    ((100, TPS, 0), r"acquired_partitions must be an integer >= 1: 0"),
    ((100, ["a", "a"], 2), r"partitions must be distinct"),
])
def test_kafka_check_valid_arguments(args, match):
    """``testCheckValidArguments``: empty partitions, no bytes or no acquired partitions."""
    with pytest.raises(ValueError, match=match):
        uniform_partition_max_bytes(*args)


def test_kafka_acquire_with_max_in_flight_records_and_try_acquire_new_batch():
    """``testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch``: cap 20. 0-9 acquired; then
    batches 10-14, 15-24, 25-29, 30-31: 10 more are allowed, which end inside batch 15-24, so
    10-24 (15 records; 25 in flight, the cap is soft by a batch); then nothing at the cap."""
    sp = SharePartition([10, 5, 10, 5, 2], max_in_flight_records=20)
    assert sp.acquire(0, fetch_offset=0, fetched_last_offset=9) == list(range(10))
    assert sp.next_fetch_offset == 10
    assert sp.acquire(0, fetch_offset=10) == list(range(10, 25))
    assert sp.next_fetch_offset == 25 and sp.in_flight_records == 25
    assert sp.acquire(0, fetch_offset=25) == []
    assert sp.next_fetch_offset == 25


def test_kafka_acquire_with_max_in_flight_records_and_release_last_offset():
    """``...AndReleaseLastOffset``: batches from offset 10 (5, 10, 5, 3), cap 20: 10-29; release
    15-19 and re-acquire them (delivery 2) but not 30-32 (at the cap, up to SPEO only); release
    29 and only 29 comes back."""
    sp = SharePartition([5, 10, 5, 3], max_in_flight_records=20, start_offset=10)
    assert sp.acquire(0, fetch_offset=10) == list(range(10, 30))
    assert sp.next_fetch_offset == 30
    assert sp.acknowledge(0, 15, 19, RELEASE) == 5 and sp.next_fetch_offset == 15
    assert sp.acquire(0, fetch_offset=15) == list(range(15, 20))
    assert [sp.delivery_count(o) for o in (15, 19, 20)] == [2, 2, 1]
    assert sp.next_fetch_offset == 30
    assert sp.acknowledge(0, 29, 29, RELEASE) == 1 and sp.next_fetch_offset == 29
    assert sp.acquire(0, fetch_offset=29) == [29] and sp.delivery_count(29) == 2
    assert sp.next_fetch_offset == 30


def test_kafka_acquire_with_max_in_flight_records_release_batch_and_acquire_subset():
    """``...ReleaseBatchAndAcquireSubsetRecords``: in-flight batches 0-4, 5-14, 15-24 (the third
    takes 10 though 5 were left); releasing 5-14 gives back exactly 5-14 (delivery 2)."""
    sp = SharePartition([5, 10, 10, 10], max_in_flight_records=20)
    assert len(sp.acquire(0, fetch_offset=0, fetched_last_offset=4)) == 5
    assert len(sp.acquire(0, fetch_offset=5, fetched_last_offset=14)) == 10
    assert len(sp.acquire(0, fetch_offset=15, fetched_last_offset=24)) == 10
    assert sp.inflight_last[[0, 5, 15]].tolist() == [4, 14, 24]
    assert sp.next_fetch_offset == 25
    sp.acknowledge(0, 5, 14, RELEASE)
    assert sp.next_fetch_offset == 5
    assert sp.acquire(0, fetch_offset=5, fetched_last_offset=14) == list(range(5, 15))
    assert sp.delivery_count(5) == 2 and sp.next_fetch_offset == 25


def test_kafka_acquire_with_max_in_flight_records_release_batch_and_acquire_subset_overlap():
    """``...Overlap``: batches 0-4, 5-9, 10-14, 15-24; release 5-9, re-acquire with MaxRecords 6:
    only 5-9, nothing from the next batch."""
    sp = SharePartition([5, 5, 5, 10], max_in_flight_records=20)
    for first, last in ((0, 4), (5, 9), (10, 14), (15, 24)):
        sp.acquire(0, fetch_offset=first, fetched_last_offset=last)
    sp.acknowledge(0, 5, 9, RELEASE)
    assert sp.acquire(0, max_fetch_records=6, fetch_offset=5, fetched_last_offset=9) == [
        5, 6, 7, 8, 9]
    assert sp.next_fetch_offset == 25


def test_kafka_acquisition_lock_timeout_cause_max_delivery_count_exceed():
    """``testAcquisitionLockTimeoutCauseMaxDeliveryCountExceed``: delivery limit 2, lock 100 ms:
    0-9 and 10-19 time out (available, count 1); 10-19 re-acquired (count 2) and timed out again
    are archived; SPSO stays at 0 as 0-9 are still available; 10 records are done."""
    sp = SharePartition([10, 10], max_delivery_count=2, lock_duration_ms=100)
    sp.acquire(0, fetch_offset=0, fetched_last_offset=9)
    sp.acquire(0, fetch_offset=10)
    assert sp.expire_locks(120) == 20
    assert sp.next_fetch_offset == 0 and sp.state(10) == AVAILABLE and sp.delivery_count(10) == 1
    assert sp.acquire(0, fetch_offset=10, now_ms=120) == list(range(10, 20))
    assert sp.state(10) == ACQUIRED and sp.delivery_count(10) == 2
    assert sp.expire_locks(240) == 0
    assert sp.state(10) == ARCHIVED and sp.delivery_count(10) == 2
    assert sp.next_fetch_offset == 0 and sp.start_offset == 0
    assert int(np.sum(sp.record_state == ARCHIVED)) == 10  # deliveryCompleteCount


def _persisted(sp, first, last, delivery):
    """Seed the partition as the persister would: first..last one AVAILABLE batch, SPSO first."""
    sp.sp[:] = (first, last, 1)
    sp.delivery[first : last + 1] = delivery
    sp.inflight_last[first : last + 1] = last


def test_kafka_acquire_records_halves_batch_size_on_each_failure_until_single_record():
    """``testAcquireRecordsHalvesBatchSizeOnEachFailureUntilSingleRecordOnLastAttempt``: delivery
    limit 7 (throttled from max(2, ceil(7/2)) = 4 deliveries), batch 15-34 at 4 deliveries:
    10 records (20 >> 1), then after the locks expire 5 (20 >> 2), then the records on their
    last attempt one at a time; then 20-24 (at 5: 20 >> 2) and 25-34 (at 4: 20 >> 1)."""
    assert sa.throttle_records_delivery_limit(7) == 4
    assert sa.throttle_records_delivery_limit(2) == 2
    sp = SharePartition([20], max_delivery_count=7, lock_duration_ms=100, start_offset=15)
    _persisted(sp, 15, 34, 4)
    assert sp.acquire(0, fetch_offset=15) == list(range(15, 25))
    assert sp.delivery_count(15) == 5
    sp.expire_locks(101)
    assert sp.acquire(0, fetch_offset=15, now_ms=101) == list(range(15, 20))
    assert sp.delivery_count(15) == 6
    sp.expire_locks(202)
    for i in range(5):
        assert sp.acquire(0, fetch_offset=15, now_ms=202) == [15 + i]
        assert sp.delivery_count(15 + i) == 7
    assert sp.acquire(0, fetch_offset=15, now_ms=202) == list(range(20, 25))
    assert sp.delivery_count(20) == 6
    assert sp.acquire(0, fetch_offset=15, now_ms=202) == list(range(25, 35))
    assert sp.delivery_count(25) == 5


def test_kafka_last_attempt_record_isolation_with_mixed_delivery_count():
    """``testLastAttemptRecordIsolationWithMixedDeliveryCount`` (limit 5, throttled from 3): 15-34
    at 2 deliveries all go out (3); 17 and 20 released and re-acquired (4); all released; the
    next acquire stops before 17, on its last attempt (15-16 at 4); then 17 goes out alone (5)."""
    sp = SharePartition([20], start_offset=15)
    _persisted(sp, 15, 34, 2)
    assert len(sp.acquire(0, fetch_offset=15)) == 20
    assert sp.acknowledge(0, 17, 17, RELEASE) == 1 and sp.acknowledge(0, 20, 20, RELEASE) == 1
    assert sp.acquire(0, fetch_offset=15) == [17, 20]
    assert sp.acknowledge(0, 15, 34, RELEASE) == 20
    assert [sp.delivery_count(o) for o in (15, 16, 17, 18)] == [3, 3, 4, 3]
    assert sp.acquire(0, fetch_offset=15) == [15, 16] and sp.delivery_count(15) == 4
    assert sp.acquire(0, fetch_offset=15) == [17] and sp.delivery_count(17) == 5


def test_kafka_record_limit_mode_acquires_exactly_max_records_and_leaves_the_rest():
    """``testAcquireSingleBatchInRecordLimitMode`` / ``...MultipleBatches...`` (KIP-1206): 5 of
    batch 0-9, the other 5 stay available for member 2; batches 10-14, 15-29, 30-44 with 10
    wanted: 10-19 acquired, 20-29 available in the same in-flight batch (20 in flight)."""
    sp = SharePartition([10], acquire_mode="record_limit", batch_size=2)
    assert sp.acquire(1, max_fetch_records=5) == [0, 1, 2, 3, 4]
    assert sp.next_fetch_offset == 5 and sp.state(5) == AVAILABLE
    assert sp.acquire(2, max_fetch_records=5) == [5, 6, 7, 8, 9]
    assert sp.next_fetch_offset == 10
    sp = SharePartition([5, 15, 15], acquire_mode="record_limit", start_offset=10)
    assert sp.acquire(1, max_fetch_records=10) == list(range(10, 20))
    assert sp.next_fetch_offset == 20 and sp.in_flight_records == 20
    assert sp.state(20) == AVAILABLE and sp.inflight_last[10] == 29


def test_acknowledging_records_not_acquired_by_the_member_changes_nothing():
    """Kafka rejects acknowledgements of records another member holds or nobody holds."""
    sp = SharePartition([5])
    sp.acquire(0)
    assert sp.acknowledge(1, 0, 4, spf.ACCEPT) == -1
    assert sp.acknowledge(0, 0, 4, spf.ACCEPT) == 5
    assert sp.start_offset == 5 and sp.in_flight_records == 0 and sp.next_fetch_offset == 5


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"max_in_flight_records": 0},
     r"group.share.partition.max.record.locks\) must be an integer >= 1"),
    ({"acquire_mode": "strict"}, r"share.acquire.mode\) must be one of"),
    ({"max_delivery_count": 0}, r"group.share.delivery.count.limit\) must be an integer >= 1"),
])
def test_bad_share_partition_settings_are_rejected(kwargs, match):
    """Settings errors name the Kafka setting."""
    with pytest.raises(ValueError, match=match):
        SharePartition([5], **kwargs)


def _run(batches, settings, steps):
    """Run the steps; yield the partition after each one."""
    sp = SharePartition(batches, **settings)
    now = 0
    held: dict[int, list[int]] = {}
    for kind, member, n, dt in steps:
        now += dt
        if kind == "acquire":
            got = sp.acquire(member, max_fetch_records=n, now_ms=now)
            held.setdefault(member, []).extend(got)
        elif kind == "ack":
            mine = [o for o in held.get(member, []) if sp.owner[o] == member
                    and sp.state(o) == ACQUIRED]
            if mine:
                sp.acknowledge(member, mine[0], mine[0], 1 + n % 3)
        else:
            sp.expire_locks(now)
        yield sp


@given(run=share_partition_runs())
def test_in_flight_records_never_exceed_the_lock_cap_by_more_than_one_batch(run):
    """``group.share.partition.max.record.locks`` bounds new acquisitions: in flight never
    exceeds cap + (largest log batch - 1), and never the cap itself with one-record batches."""
    batches, settings, steps = run
    bound = settings["max_in_flight_records"] + max(batches) - 1
    for sp in _run(batches, settings, steps):
        assert sp.in_flight_records <= bound
    for sp in _run([1] * sum(batches), settings, steps):
        assert sp.in_flight_records <= settings["max_in_flight_records"]


@given(run=share_partition_runs())
def test_record_states_stay_consistent(run):
    """Delivery counts never pass the limit; below SPSO every record is done; ACQUIRED records
    have an owner and the others none."""
    batches, settings, steps = run
    for sp in _run(batches, settings, steps):
        assert sp.delivery.max() <= settings["max_delivery_count"]
        done = np.isin(sp.record_state[: sp.start_offset], [spf.ACKNOWLEDGED, ARCHIVED])
        assert done.all()
        assert ((sp.record_state == ACQUIRED) == (sp.owner >= 0)).all()


def test_the_share_partition_functions_compile_with_numba():
    """The rules kernels will call are numba-ready and give the same answers."""
    pytest.importorskip("numba")
    from kipviz.scenarios.jit import jit_functions

    jit = jit_functions(["in_flight_batch_first", "acknowledge", "_release",
                         "advance_start_offset", "expire_locks", "next_fetch_offset"], vars(spf))
    jit.update(jit_functions(["_take", "in_flight_batch_first", "_acquire_subset",
                              "throttle_records_delivery_limit", "acquire"], vars(sa)))
    sp = SharePartition([5, 10, 5, 3], max_in_flight_records=20, lock_duration_ms=100,
                        batch_size=500, start_offset=10)
    out = np.zeros(sp.log_end, np.int64)
    n = jit["acquire"](sp.part, sp.settings, sp.batch_last, 0, 10, 32, 500, 0, out)
    assert out[:n].tolist() == list(range(10, 30))
    assert jit["acknowledge"](sp.part, 0, 15, 19, RELEASE, 5) == 5
    assert jit["next_fetch_offset"](sp.sp, sp.record_state) == 15
    assert jit["expire_locks"](sp.part, 5, 100) == 15


@pytest.mark.parametrize("module", [share, spf, sa, sassign])
def test_docstring_examples_run(module):
    """The modules' examples are true."""
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
