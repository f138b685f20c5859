"""KIP-73 replication quotas and Kafka's rate metric, on hand-worked timelines and as properties.

Timelines use samples=2 and a 1000 ms window unless said otherwise, so a slot is purged once its
last event is 2000 ms old and a ``Rate`` pads its window up to one whole window plus the part
elapsed.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given

from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.fetch.response import effective_response_max_bytes
from kipviz.kafka.quotas.rate import (
    Quota,
    Rate,
    Sample,
    SimpleRate,
    java_round,
    max_value_in_quota_window,
    throttle_time_ms,
)
from kipviz.kafka.replication.planning import (
    max_replica_fetch_response_bytes,
    move_time_s,
    throttle_bounds,
)
from kipviz.kafka.replication.quota import (
    REPLICATION_QUOTA_WINDOW_NUM,
    ReplicationQuotaManager,
    parse_throttled_replicas,
)
from tests.strategies import (
    booleans,
    move_times,
    optimistic_throttles,
    quota_samples,
    quota_windows_ms,
    rate_steps,
)

MB = 1_000_000
MiB = 1024 * 1024


# --- Rate and SimpleRate -----------------------------------------------------------------------


def test_a_young_rate_adds_the_missing_whole_window_to_the_time_elapsed():
    """100 at t=0, measured at t=500: 500 ms elapsed, 0 whole windows of the samples - 1 = 1
    needed, so Rate adds one window: 500 + 1000 = 1500 ms and 100 / 1.5 s = 66.67/s (Kafka's
    RateTest.testRateWithNoPriorAvailableSamples: elapsed + (samples - 1) windows). SimpleRate
    takes max(500, 1000) = 1000 ms: 100/s."""
    rate, simple = Rate(2, 1000), SimpleRate(2, 1000)
    for stat in (rate, simple):
        stat.record(100, 0)
    assert rate.window_size_ms(500) == 1500
    assert rate.measure(500) == pytest.approx(100 / 1.5)
    assert simple.window_size_ms(500) == 1000
    assert simple.measure(500) == 100


def test_once_a_whole_window_has_passed_both_rates_use_the_time_elapsed():
    """At t=1500 one whole window has elapsed (1500 // 1000 = 1 = samples - 1): no padding, so
    both divide 100 by 1.5 s. At t=2000 the slot's last event (t=0) is 2000 ms old and is purged."""
    rate, simple = Rate(2, 1000), SimpleRate(2, 1000)
    for stat in (rate, simple):
        stat.record(100, 0)
        assert stat.window_size_ms(1500) == 1500
        assert stat.measure(1500) == pytest.approx(100 / 1.5)
        assert stat.measure(1999) == pytest.approx(100 / 1.999)
        assert stat.measure(2000) == 0


def test_a_record_a_window_after_the_slot_start_opens_the_next_slot():
    """100 at t=0 and 100 at t=1500 (1500 - 0 >= 1000: a new slot starting at 1500). At t=2500
    the first slot (last event 0, 2500 ms old) is purged and reset to start at 2500, so the
    oldest start is 1500: 1000 ms, one whole window, 100 / 1 s = 100/s for both."""
    for stat in (Rate(2, 1000), SimpleRate(2, 1000)):
        stat.record(100, 0)
        stat.record(100, 1500)
        assert stat.slots() == (Sample(0, 0, 100), Sample(1500, 1500, 100))
        assert stat.measure(2500) == 100
        assert stat.slots() == (Sample(2500, 2500, 0), Sample(1500, 1500, 100))


def test_a_stat_keeps_samples_plus_one_slots_and_reuses_them_cyclically():
    """Records at 0, 1000, 2000 and 3000 each open a slot; with samples=2 there are 3 slots, so
    the fourth record resets slot 0. Before Kafka 3.8 (legacy) there were only 2 slots."""
    rate, legacy = Rate(2, 1000), Rate(2, 1000, legacy=True)
    for t in (0, 1000, 2000, 3000):
        rate.record(1, t)
        legacy.record(1, t)
    assert [s.start_ms for s in rate.slots()] == [3000, 1000, 2000]
    assert [s.start_ms for s in legacy.slots()] == [2000, 3000]


def test_a_slot_is_purged_by_its_last_event_not_by_its_start():
    """100 at 0 and 900 (same slot: start 0, last event 900), 100 at 1900 (new slot). At 2500
    the first slot started 2500 ms ago but its last event is only 1600 ms old: it is kept, so
    300 over 2500 ms = 120/s. The pre-3.8 rule purged it by its start: 100 over 600 + 1000 ms
    of padding = 62.5/s, the dip that apache/kafka#15889 fixed."""
    rate, legacy = Rate(2, 1000), Rate(2, 1000, legacy=True)
    for stat in (rate, legacy):
        for t in (0, 900, 1900):
            stat.record(100, t)
    assert rate.measure(2500) == 120
    assert legacy.measure(2500) == 62.5


def test_a_window_size_is_never_below_one_millisecond():
    """With samples=1 nothing is padded; measured at the instant of the first record the
    elapsed time is 0 ms, so Kafka takes 1 ms: 5 / 0.001 s = 5000/s, not a division by zero."""
    rate = Rate(1, 1000)
    rate.record(5, 0)
    assert rate.window_size_ms(0) == 1
    assert rate.measure(0) == 5000


def test_measuring_an_empty_stat_creates_a_sample_starting_then():
    """Measured at t=0 while empty, the stat gets a slot starting at 0; 100 recorded at 900 goes
    into it, and at t=1000 one whole window has elapsed: 100/s. Without that early measurement
    the slot starts at 900: 100 ms + 1000 ms of padding, 100 / 1.1 s = 90.9/s."""
    measured, fresh = Rate(2, 1000), Rate(2, 1000)
    assert measured.measure(0) == 0
    assert measured.slots() == (Sample(0, 0, 0),)
    for stat in (measured, fresh):
        stat.record(100, 900)
    assert measured.measure(1000) == 100
    assert fresh.measure(1000) == pytest.approx(100 / 1.1)


def test_the_generic_metric_defaults_are_two_samples_of_thirty_seconds():
    """MetricConfig: metrics.num.samples 2, metrics.sample.window.ms 30000."""
    rate = Rate()
    rate.record(60_000, 0)
    assert (rate.samples, rate.window_ms) == (2, 30_000)
    assert rate.measure(30_000) == 2000  # 60000 over one whole 30 s window


# --- Quota, throttle time, max value in a window ------------------------------------------------


def test_a_quota_accepts_a_value_equal_to_its_bound():
    """Quota.acceptable: value <= bound for an upper bound, value >= bound for a lower one."""
    assert Quota(1000).acceptable(1000)
    assert not Quota(1000).acceptable(1000.0001)
    assert Quota(10, upper=False).acceptable(10)
    assert not Quota(10, upper=False).acceptable(9)


@pytest.mark.parametrize(
    ("observed", "expected", "python_round"),
    [(1500, 1, 0), (3500, 3, 2), (500, 0, 0), (-500, -1, -2), (2000, 1, 1)],
)
def test_throttle_time_rounds_half_up_as_java_does(observed, expected, python_round):
    """(observed - 1000) / 1000 * 1 ms gives 0.5, 2.5, -0.5, -1.5 and 1.0: Math.round rounds
    halves towards +inf, Python's round to even."""
    x = (observed - 1000) / 1000
    assert round(x) == python_round
    assert throttle_time_ms(observed, 1000, 1) == expected


def test_throttle_time_is_the_delay_that_brings_the_rate_back_to_the_quota():
    """1500 B/s against 1000 B/s over an 11 s window: X = (1500 - 1000) / 1000 * 11000 = 5500 ms,
    and 1500 * 11 / (11 + 5.5) = 1000."""
    assert throttle_time_ms(1500, 1000, 11_000) == 5500


def test_java_round_is_exact_where_floor_of_x_plus_a_half_is_not():
    """0.49999999999999994 + 0.5 rounds up to 1.0 in doubles; Java 7+ returns 0."""
    assert math.floor(0.49999999999999994 + 0.5) == 1
    assert java_round(0.49999999999999994) == 0
    assert java_round(2.0**52 + 1) == 2**52 + 1
    assert java_round(-2.5) == -2
    assert (java_round(math.nan), java_round(math.inf), java_round(-math.inf)) == (
        0, 2**63 - 1, -(2**63))


def test_the_max_value_in_a_quota_window_is_window_num_minus_one_windows_of_quota():
    """ClientQuotaManager.getMaxValueInQuotaWindow: 1 MiB/s * (11 - 1) * 1 s = 10 MiB, the same
    cap that kipviz.kafka.fetch.response.effective_response_max_bytes applies to a fetch."""
    assert max_value_in_quota_window(MiB, 11, 1) == 10 * MiB
    assert max_value_in_quota_window(1000, 3, 0.5) == 1000
    assert effective_response_max_bytes(52428800, fetch_quota_bytes_per_s=MiB) == int(
        max_value_in_quota_window(MiB, 11, 1))


# --- ReplicationQuotaManager -------------------------------------------------------------------


def test_a_replication_quota_is_exceeded_until_the_window_grows_to_fit_the_burst():
    """1000 B/s, 11 windows of 1 s. 5000 B at t=0: SimpleRate's window is max(t, 1000 ms), so the
    rate is 5000 B/s at t=0 and 5000 / 4.999 s > 1000 at t=4999; at t=5000 it is exactly 1000,
    which the quota accepts. At t=11000 the slot's last event is 11 windows old and is purged."""
    quota = ReplicationQuotaManager(1000)
    quota.record(5000, 0)
    assert quota.measure(0) == 5000 and quota.is_quota_exceeded(0)
    assert quota.is_quota_exceeded(4999)
    assert quota.measure(5000) == 1000 and not quota.is_quota_exceeded(5000)
    assert quota.measure(10_999) == pytest.approx(5000 / 10.999)
    assert quota.measure(11_000) == 0


def test_an_unlimited_replication_quota_is_never_exceeded_and_measures_nothing_to_check():
    """No rate set (Kafka: no quota on the metric): ``checkQuotas`` skips the metric, so asking
    creates no sample, while the bytes are still recorded."""
    quota = ReplicationQuotaManager()
    assert not quota.is_quota_exceeded(0)
    assert quota.rate.slots() == ()
    quota.record(10**12, 0)
    assert not quota.is_quota_exceeded(1)
    assert quota.measure(1000) == 10**12


def test_a_fractional_window_and_a_rate_change_at_run_time():
    """window_s=0.5 gives 500 ms slots; update_quota keeps the recorded bytes."""
    quota = ReplicationQuotaManager(1000, samples=3, window_s=0.5)
    assert quota.rate.window_ms == 500
    quota.record(1000, 0)
    assert quota.is_quota_exceeded(250)  # 1000 B over max(250, 500) ms = 2000 B/s
    quota.update_quota(2000)
    assert not quota.is_quota_exceeded(250)


def test_throttled_partitions_are_listed_per_topic_or_all_with_a_wildcard():
    """markThrottled replaces a topic's list; ``*`` throttles every partition; removeThrottle."""
    quota = ReplicationQuotaManager(1000)
    quota.mark_throttled("a", [0, 2])
    quota.mark_throttled("b")
    assert [quota.is_throttled(TopicPartition("a", p)) for p in range(3)] == [True, False, True]
    assert quota.is_throttled(TopicPartition("b", 99))
    assert not quota.is_throttled(TopicPartition("c", 0))
    quota.mark_throttled("a", [1])
    assert not quota.is_throttled(TopicPartition("a", 0))
    quota.remove_throttle("b")
    assert not quota.is_throttled(TopicPartition("b", 99))


def test_the_parsed_replica_list_of_a_broker_marks_its_throttled_partitions():
    """ConfigHandler: parse the topic's value for this broker, then markThrottled."""
    quota = ReplicationQuotaManager(1000)
    quota.mark_throttled("t", parse_throttled_replicas("0:101,1:102,2:101", 101))
    assert [quota.is_throttled(TopicPartition("t", p)) for p in range(3)] == [True, False, True]


def test_in_sync_replicas_are_never_throttled_and_checked_only_when_throttled():
    """KAFKA-4313: ``!inSync && isThrottled && isQuotaExceeded``. An in-sync or unthrottled
    replica short-circuits before the rate is measured, so no sample is created."""
    quota = ReplicationQuotaManager(1000)
    quota.mark_throttled("t", [0])
    assert not quota.should_throttle(TopicPartition("t", 1), in_sync=False, now_ms=0)
    assert quota.rate.slots() == ()
    quota.record(5000, 0)
    assert not quota.should_throttle(TopicPartition("t", 0), in_sync=True, now_ms=1)
    assert quota.should_throttle(TopicPartition("t", 0), in_sync=False, now_ms=1)


# --- parse_throttled_replicas --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "broker", "expected"),
    [("0:101,1:102,2:101", 101, [0, 2]), ("0:101,1:102", 103, []), ("*", 7, "*"),
     (" * ", 7, "*"), ("", 1, []), ("0:1,", 1, [0]), (" 3:1 , 4:2 ", 1, [3])],
)
def test_throttled_replica_lists_give_the_partitions_of_one_broker(value, broker, expected):
    """Entries are partition:broker; blanks around entries and trailing empty entries pass
    Kafka's validator; ``*`` means every partition."""
    assert parse_throttled_replicas(value, broker) == expected


@pytest.mark.parametrize(
    "value", ["0-101", ",0:1", "0:1,,1:1", "*,0:1", "a:1", "0:1:2", "0:2147483648", "**"],
)
def test_bad_throttled_replica_lists_name_the_setting_and_the_form(value):
    """The KIP's early ``0-101`` syntax, empty entries before others, ``*`` in a list and
    numbers beyond a Java int are errors, as ThrottledReplicaListValidator says."""
    with pytest.raises(ValueError, match=r"follower.replication.throttled.replicas must be the "
                       r"literal '\*' or a list of replicas in the form \[partitionId\]:"):
        parse_throttled_replicas(value, 1, setting="follower.replication.throttled.replicas")


# --- planning arithmetic -------------------------------------------------------------------------


def test_move_time_follows_the_kips_formula_and_never_ends_at_or_below_the_inbound_rate():
    """Q&A 1: 0.25 * 4 GB * 5 brokers / (50 - 10 MB/s) = 5 GB / 40 MB/s = 125 s."""
    assert move_time_s(0.25, 4000 * MB, 5, 50 * MB, 10 * MB) == 125
    assert move_time_s(0.25, 4000 * MB, 5, 10 * MB, 10 * MB) == math.inf
    assert move_time_s(0.25, 4000 * MB, 5, 5 * MB, 10 * MB) == math.inf
    assert move_time_s(0, 4000 * MB, 5, 5 * MB, 10 * MB) == 0


def test_a_workable_throttle_lies_between_the_inbound_rate_and_the_network_left():
    """Q&A 4: IN < T < N - IN/R. IN 10 MB/s, N 100 MB/s, R 2: 10 < T < 95 MB/s."""
    assert throttle_bounds(10 * MB, 100 * MB, 2) == (10 * MB, 95 * MB)
    with pytest.raises(ValueError, match=r"no workable throttle: IN < T < N - IN/R needs "
                       r"IN < N - IN/R, but IN = 60000000 and N - IN/R = .* = 40000000.0"):
        throttle_bounds(60 * MB, 100 * MB, 1)


def test_the_kips_replica_fetch_response_sizes_for_5_and_500_brokers():
    """Q&A 5, on a GbE network taken as 100 MB/s with a 10 s window total (11 windows of 1 s
    less the current one): 5 brokers at a 1 MB/s leader quota allow 1 MB/s * 10 s = 10 MB;
    with 500 brokers the follower's network share binds: 10 s * 100 MB/s / 500 = 2 MB."""
    window_total_s = (REPLICATION_QUOTA_WINDOW_NUM - 1) * 1
    assert max_replica_fetch_response_bytes(1 * MB, window_total_s, 100 * MB, 5) == 10 * MB
    assert max_replica_fetch_response_bytes(1 * MB, window_total_s, 100 * MB, 500) == 2 * MB
    assert max_value_in_quota_window(1 * MB, REPLICATION_QUOTA_WINDOW_NUM, 1) == 10 * MB


# --- bad arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Rate(0, 1000), r"samples \(metrics.num.samples\) must be an integer >= 1: 0"),
        (lambda: Rate(2, 0), r"window_ms \(metrics.sample.window.ms\) must be an integer >= 1: 0"),
        (lambda: ReplicationQuotaManager(-1),
         r"rate_bytes_per_s \(leader.replication.throttled.rate / "
         r"follower.replication.throttled.rate\) must be a number >= 0: -1"),
        (lambda: ReplicationQuotaManager(1000, samples=0),
         r"samples \(replication.quota.window.num\) must be an integer >= 1: 0"),
        (lambda: ReplicationQuotaManager(1000, window_s=0),
         r"window_s \(replication.quota.window.size.seconds\) must be a number > 0: 0"),
        (lambda: ReplicationQuotaManager(1000, window_s=0.0005),
         r"must be a whole number of milliseconds >= 1 ms: 0.0005"),
        (lambda: ReplicationQuotaManager(1000).record(-1, 0), "bytes must be a number >= 0: -1"),
        (lambda: ReplicationQuotaManager(1000).update_quota(math.nan), "must be a number: nan"),
        (lambda: throttle_time_ms(10, 0, 1000), r"bound \(quota\) must be a number > 0: 0"),
        (lambda: max_value_in_quota_window(1000, 0, 1),
         r"samples \(quota.window.num\) must be an integer >= 1: 0"),
        (lambda: move_time_s(0.5, 100, 0, 10, 1), "brokers must be an integer >= 1: 0"),
        (lambda: move_time_s(-0.5, 100, 1, 10, 1), "move_ratio must be a number >= 0: -0.5"),
        (lambda: throttle_bounds(1, 100, 0), "replication_factor must be an integer >= 1: 0"),
        (lambda: max_replica_fetch_response_bytes(1, 10, 0, 5),
         "network_bytes_per_s must be a number > 0: 0"),
    ],
)
def test_bad_arguments_are_rejected_naming_the_setting_and_the_rule(make, message):
    """Negative rates, empty windows and sample counts below 1 are errors, never clamped."""
    with pytest.raises(ValueError, match=message):
        make()


# --- properties ----------------------------------------------------------------------------------


@given(**optimistic_throttles)
def test_the_optimistic_throttle_stays_within_quota_plus_one_response_per_window(
        quota_bytes_per_s, samples, window_ms, responses, poll_ms, windows):
    """A sender that checks the quota and, when not exceeded, sends a response of at most R bytes
    (KIP-73: check, then send) moves at most Q * (T + W) + R * (T / W + 1) bytes in T: the quota
    plus one response per window in the long run, plus one window of start-up overshoot."""
    quota = ReplicationQuotaManager(quota_bytes_per_s, samples, window_ms / 1000)
    horizon_ms = windows * window_ms
    sent = 0
    for k, now in enumerate(range(0, horizon_ms, poll_ms)):
        if not quota.is_quota_exceeded(now):
            size = responses[k % len(responses)]
            quota.record(size, now)
            sent += size
    t_s, w_s, r = horizon_ms / 1000, window_ms / 1000, max(responses)
    assert sent <= quota_bytes_per_s * (t_s + w_s) + r * (t_s / w_s + 1)


@given(**move_times)
def test_move_time_falls_as_the_throttle_rises_above_the_inbound_rate(
        ratio, log_bytes, brokers, inbound, above, more):
    """More throttle above IN, less time; a throttle at IN never finishes."""
    slow = move_time_s(ratio, log_bytes, brokers, inbound + above, inbound)
    fast = move_time_s(ratio, log_bytes, brokers, inbound + above + more, inbound)
    assert 0 < fast < slow < math.inf
    assert move_time_s(ratio, log_bytes, brokers, inbound, inbound) == math.inf


@given(rate_steps, quota_samples, quota_windows_ms, booleans, booleans)
def test_a_rate_is_never_negative_and_its_window_never_below_one_ms(
        steps, samples, window_ms, simple, legacy):
    """Whatever the timeline of non-negative records, ``measure >= 0`` and ``window >= 1 ms``;
    at most samples + 1 slots (samples before 3.8) exist."""
    stat = (SimpleRate if simple else Rate)(samples, window_ms, legacy=legacy)
    now = 0
    for dt, value, measure in steps:
        now += dt
        if measure:
            assert stat.window_size_ms(now) >= 1
            assert stat.measure(now) >= 0
        else:
            stat.record(value, now)
        assert len(stat.slots()) <= samples + (0 if legacy else 1)
