"""KIP-956's remote copy and fetch quotas and KIP-405's remote fetch rules by Kafka version."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given

import kipviz.kafka.tiered.fetch as rf
import kipviz.kafka.tiered.quota as rq
from kipviz.kafka.fetch.response import fill_raw_bytes
from kipviz.kafka.tiered.fetch import (
    REMOTE_FETCH_MAX_WAIT_MS,
    LogRead,
    ReadLimits,
    RequestPartitions,
    charges_remote_fetch_up_front,
    delayed_remote_fetch_complete_ms,
    read_from_log,
    reads_several_remote_partitions,
    remote_read_bytes,
)
from kipviz.kafka.tiered.quota import (
    RemoteLogQuota,
    copy_segment,
    copy_segments,
    record_remote_read,
    remote_fetch_throttle_time_ms,
    rlm_throttle_time_ms,
)
from kipviz.scenarios.jit import jit_functions
from tests.strategies import byte_limits, mixed_partition_logs, partition_logs

T = 1_764_000_000_000


def test_kafka_rlm_quota_test_throttles_9000_then_1000_then_0_ms():
    """``RLMQuotaManagerTest.testQuotaExceeded``: 50 B/s over 11 x 1 s. 500 bytes at T measure
    500 B/s one second later (SimpleRate's window is at least 1 s): (500 - 50) / 50 * 1 s = 9 s;
    eight seconds later 500 / 9 s = 55.6 B/s: 0.111 * 9 s = 1 s; at 10 s, 50 B/s is within."""
    quota = RemoteLogQuota(50, window_num=11, window_size_s=1)
    assert quota.throttle_time_ms(T) == 0
    quota.record(500, T)
    assert quota.throttle_time_ms(T + 1000) == 9000
    assert quota.throttle_time_ms(T + 9000) == 1000
    assert quota.throttle_time_ms(T + 10_000) == 0


def test_kafka_rlm_quota_update_applies_to_the_bytes_already_recorded():
    """``testQuotaUpdate``: 51 bytes at once against 50 B/s throttle (20 ms: 1/50 of the 1 s
    window); raising the quota to 60 lifts it, lowering it to 40 throttles again (275 ms)."""
    quota = RemoteLogQuota(50)
    assert quota.throttle_time_ms(T) == 0
    quota.record(51, T)
    assert quota.throttle_time_ms(T) == 20
    quota.update_quota(60)
    assert quota.throttle_time_ms(T) == 0
    quota.update_quota(40)
    assert quota.throttle_time_ms(T) == 275


def test_throttle_time_is_quota_utils_formula_and_zero_at_the_bound():
    """``Quota.acceptable`` accepts the bound itself; above it Java's Math.round of the delay."""
    assert rlm_throttle_time_ms(50.0, 50.0, 10_000.0) == 0
    assert rlm_throttle_time_ms(50.0 + 1e-9, 50.0, 10_000.0) == 0  # 0.0000002 ms rounds to 0
    assert rlm_throttle_time_ms(75.0, 50.0, 1000.0) == 500


def test_the_copy_thread_records_a_whole_segment_then_waits_out_the_burst():
    """A 1 MB/s copy quota and 5 MB segments uploaded at 10 MB/s: the first goes at once (0.5 s
    upload); the second, asked for at 0.5 s, sees 5 MB over SimpleRate's 1 s minimum window
    (4000 ms), re-asks every second and goes at 5.5 s; the third goes at 10 s (10 MB in 10 s);
    the fourth at 15.5 s, when the first segment's slot has expired (11 windows of 1 s) and 10 MB
    over 10 s is back at the bound. The rate then reads 1.5 MB/s: the quota is a burst pattern."""
    quota = RemoteLogQuota(1_000_000)
    copied = copy_segments(quota, [5_000_000] * 4, 0, upload_bytes_per_s=10_000_000)
    assert [c.recorded_ms for c in copied] == [0, 5500, 10_000, 15_500]
    assert copied[1].throttle_times_ms == (4000, 3500, 2500, 1500, 500)
    assert copied[2].throttle_times_ms == (4000, 3000, 2000, 1000)
    assert [c.waited_ms for c in copied] == [0, 5000, 4000, 5000]
    assert quota.measure(15_500) == 1_500_000


def test_a_segment_smaller_than_the_quota_never_waits():
    """Segments of 100 kB against 1 MB/s, one per second, are never throttled."""
    quota = RemoteLogQuota(1_000_000)
    for s in range(20):
        assert copy_segment(quota, 100_000, s * 1000).waited_ms == 0


def test_a_throttled_remote_partition_is_returned_empty_with_no_read_scheduled():
    """KIP-956: with the fetch quota exceeded, ``readFromLog`` gives the remote partition no
    ``RemoteStorageFetchInfo`` (empty, no error) and serves the local one as usual."""
    quota = RemoteLogQuota(1_000)
    record_remote_read(quota, 50_000, T)
    throttle = remote_fetch_throttle_time_ms(quota, T + 100)
    assert throttle == 49_000
    assert remote_fetch_throttle_time_ms(None, T) == 0  # no quota configured (Long.MAX_VALUE)
    out = _read([(500, 10_000, True), (500, 10_000, False)], limit=5_000, pmax=4_000,
                version="4.2", throttled=[throttle > 0, False])
    assert out == ([0, 4_000], [0, 0])


def _read(parts, *, limit, pmax, version, throttled=None):
    """``read_from_log`` on (first batch, log bytes, remote) triples: (raw bytes, remote max)."""
    n = len(parts)
    first = np.array([p[0] for p in parts], dtype=np.int64)
    log = np.array([p[1] for p in parts], dtype=np.int64)
    remote = np.array([p[2] for p in parts])
    thr = np.array(throttled or [False] * n)
    raw, rmax = np.zeros(n, np.int64), np.zeros(n, np.int64)
    min_one = np.zeros(n, dtype=np.bool_)
    read_from_log(RequestPartitions(first_batch_bytes=first, log_bytes=log, remote=remote,
                                    throttled=thr, partition_max_bytes=np.full(n, pmax, np.int64)),
                  ReadLimits(response_max_bytes=limit,
                             several_remote=reads_several_remote_partitions(version),
                             charge_remote=charges_remote_fetch_up_front(version)),
                  LogRead(raw_bytes=raw, remote_max_bytes=rmax, remote_min_one=min_one))
    return raw.tolist(), rmax.tolist()


def test_before_4_2_one_remote_partition_is_read_and_charged_nothing():
    """4.1: two remote partitions then a local one, fetch.max.bytes 1000, max.partition.fetch
    .bytes 600: only the first remote partition is read (600), the second comes back empty, and
    the local one still fills 600: up to 1200 bytes in a 1000-byte response (KAFKA-19462)."""
    raw, remote_max = _read([(100, 5_000, True), (100, 5_000, True), (100, 5_000, False)],
                            limit=1000, pmax=600, version="4.1")
    assert remote_max == [600, 0, 0] and raw == [0, 0, 600]


def test_from_4_2_every_remote_partition_is_read_and_charged_up_front():
    """4.2: the same request reads both remote partitions, 600 and min(600, 400 left) = 400,
    and the local one gets nothing: the response stays within 1000 bytes."""
    raw, remote_max = _read([(100, 5_000, True), (100, 5_000, True), (100, 5_000, False)],
                            limit=1000, pmax=600, version="4.2")
    assert remote_max == [600, 400, 0] and raw == [0, 0, 0]


def test_a_remote_partition_charged_up_front_ends_the_first_batch_exception():
    """4.2: after a remote partition is charged, a local partition whose first batch exceeds
    its budget returns nothing; in 4.1 it still gets its whole first batch (minOneMessage)."""
    parts = [(100, 5_000, True), (3_000, 5_000, False)]
    assert _read(parts, limit=2_000, pmax=1_000, version="4.2") == ([0, 0], [1_000, 0])
    assert _read(parts, limit=2_000, pmax=1_000, version="4.1") == ([0, 3_000], [1_000, 0])


def test_remote_read_and_version_rules_and_wait_defaults():
    """``RemoteLogManager.read`` sizes, the version switches and ``remote.fetch.max.wait.ms``."""
    assert REMOTE_FETCH_MAX_WAIT_MS == 500
    assert [reads_several_remote_partitions(v) for v in ("3.9", "4.1", "4.2", "4.3")] == [
        False, False, True, True]
    assert remote_read_bytes(3_000, 0, 1_000, True) == 0  # nothing there
    with pytest.raises(ValueError, match=r"kafka_version must be one of"):
        charges_remote_fetch_up_front("4")


def test_delayed_remote_fetch_holds_local_data_until_every_read_or_the_max_wait():
    """KAFKA-14915 (4.2): one DelayedRemoteFetch waits for all its remote reads, here 50 ms and
    2 s: the response (local data included) goes at 500 ms with the slow partition empty; with
    both fast it goes when the slower is done."""
    served = np.zeros(2, np.bool_)
    assert delayed_remote_fetch_complete_ms(np.array([1050.0, 3000.0]), 1000.0,
                                            REMOTE_FETCH_MAX_WAIT_MS, served) == 1500.0
    assert served.tolist() == [True, False]
    assert delayed_remote_fetch_complete_ms(np.array([1050.0, 1200.0]), 1000.0,
                                            REMOTE_FETCH_MAX_WAIT_MS, served) == 1200.0
    assert served.tolist() == [True, True]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"bytes_per_s": 0}, r"remote.log.manager.\{copy,fetch\}.max.bytes.per.second\) must be a "
                         r"number >= 1"),
    ({"bytes_per_s": 50, "window_num": 0}, r"quota.window.num\) must be an integer >= 1: 0"),
    ({"bytes_per_s": 50, "window_size_s": 0.5}, r"window.size.seconds\) must be an integer"),
])
def test_bad_remote_quota_settings_are_rejected_naming_the_setting(kwargs, match):
    """Kafka's ``atLeast(1)`` on the rate, the window count and the whole-second window size."""
    with pytest.raises(ValueError, match=match):
        RemoteLogQuota(**kwargs)


@given(logs=partition_logs, limit=byte_limits, pmax=byte_limits)
def test_with_no_remote_partition_the_loop_is_kip74s_fill_raw_bytes(logs, limit, pmax):
    """All-local requests are filled exactly as
    :func:`kipviz.kafka.fetch.response.fill_raw_bytes` (v3)."""
    first = np.array([s[0] if s else 0 for s in logs], np.int64)
    log = np.array([sum(s) for s in logs], np.int64)
    n = len(logs)
    expected = np.zeros(n, np.int64)
    fill_raw_bytes(first, log, np.full(n, pmax, np.int64), limit, 3, expected)
    raw = _read([(int(f), int(b), False) for f, b in zip(first, log, strict=True)],
                limit=limit, pmax=pmax, version="4.2")[0]
    assert raw == expected.tolist()


@given(mixed=mixed_partition_logs(), limit=byte_limits, pmax=byte_limits)
def test_from_4_2_local_and_remote_bytes_stay_within_the_limit_or_one_batch(mixed, limit, pmax):
    """4.2: local bytes + remote reads' fetchMaxBytes <= max(limit, what the first partition
    served took): KIP-74's guarantee, kept for remote reads by KAFKA-19462."""
    logs, flags = mixed
    parts = [(s[0] if s else 0, sum(s), f) for s, f in zip(logs, flags, strict=True)]
    raw, remote_max = _read(parts, limit=limit, pmax=pmax, version="4.2")
    charges = [r + m for r, m in zip(raw, remote_max, strict=True) if r + m > 0]
    assert sum(raw) + sum(remote_max) <= max(limit, charges[0] if charges else 0)


def test_the_fetch_loop_compiles_with_numba():
    """The loop kernels will call is numba-ready."""
    pytest.importorskip("numba")
    jit = jit_functions(["read_partition", "read_from_log"], vars(rf))["read_from_log"]
    partitions = RequestPartitions(
        first_batch_bytes=np.array([100, 100], np.int64), log_bytes=np.array([5_000, 5_000]),
        remote=np.array([True, False]), throttled=np.array([False, False]),
        partition_max_bytes=np.full(2, 600, np.int64))
    out = LogRead(raw_bytes=np.zeros(2, np.int64), remote_max_bytes=np.zeros(2, np.int64),
                  remote_min_one=np.zeros(2, np.bool_))
    limits = ReadLimits(response_max_bytes=1000, several_remote=True, charge_remote=True)
    assert jit(partitions, limits, out) == 400
    assert out.remote_max_bytes.tolist() == [600, 0]
    assert out.remote_min_one.tolist() == [True, False]


@pytest.mark.parametrize("module", [rq, rf])
def test_docstring_examples_run(module):
    """The modules' examples (Kafka's test numbers) are true."""
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
