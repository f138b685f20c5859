"""The KIP-73 reassignment scenario: worked numbers, T <= IN, KAFKA-4313, properties, bad input."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipviz.planner import plan_throttle
from kipviz.scenarios.reassignment import ReassignmentScenario, simulate

MB = 1_000_000
MIB = 1_048_576
# One 100 MB partition, IN 0, both throttles 10 MB/s, 11 x 1 s windows, a fetch every 10 ms.
ONE = ReassignmentScenario(partitions=1, log_bytes=100 * MB, leader_throttle_bytes_per_s=10 * MB,
                           follower_throttle_bytes_per_s=10 * MB, tick_ms=10, ticks=1200)


def test_schema_has_fixed_dtypes():
    trace = simulate(ONE)
    assert trace.ticks.dtypes.astype(str).to_dict() == {
        "time_ms": "int64", "leader_rate_bytes_per_s": "float64",
        "follower_rate_bytes_per_s": "float64", "throttled_bytes": "int64",
        "unthrottled_bytes": "int64", "replica_lag_bytes": "int64", "moved_bytes": "int64",
        "client_bandwidth_left_bytes_per_s": "float64"}
    assert trace.partitions.dtypes.astype(str).to_dict() == {
        "partition": "int32", "size_bytes": "int64", "caught_up_ms": "int64"}
    assert len(trace.ticks) == ONE.ticks


def test_100_mb_at_10_mb_per_s_takes_about_ten_seconds_like_the_planner():
    """While the run is shorter than 11 windows nothing is purged, so the leader sends a 1 MiB
    response whenever (all bytes so far) / max(elapsed, 1 s) <= T: the moved bytes stay within
    T x elapsed + one response, and fall below it by at most one response. Completion is thus
    within (100 MB - 1 MiB) / T and 100 MB / T + a tick of the KIP's 10 s."""
    trace = simulate(ONE)
    meta = trace.meta
    plan = plan_throttle(brokers=ONE.brokers, network_bytes_per_s=ONE.network_bytes_per_s,
                         bytes_in_per_s=0, replication_factor=ONE.replication_factor,
                         bytes_to_move=100 * MB, throttle_bytes_per_s=10 * MB)
    assert meta["kip_move_time_s"] == plan.move_time_s == 10.0
    assert meta["finishes"] and meta["reason"] == ""
    low = (100 * MB - MIB) / (10 * MB) * 1000
    assert low <= meta["completed_ms"] <= 10_000 + ONE.tick_ms
    assert trace.partitions.caught_up_ms.tolist() == [meta["completed_ms"]]
    assert trace.ticks.moved_bytes.iloc[-1] == 100 * MB
    assert trace.ticks.replica_lag_bytes.iloc[-1] == 0


def test_the_first_window_overshoots_because_the_mechanism_is_optimistic():
    """Nothing is measured before the first responses: ten 1 MiB fetches (0..90 ms) go out
    before the rate passes 10 MB/s, 10 MiB in the first second, over T x 1 s."""
    ticks = simulate(ONE).ticks
    assert ticks.throttled_bytes.iloc[:10].tolist() == [MIB] * 10
    assert ticks.throttled_bytes.iloc[10:100].sum() == 0
    assert simulate(ONE).meta["first_window_throttled_bytes"] == 10 * MIB > 10 * MB
    # 20 partitions at T = 1 MB/s: the very first response is a whole 10 MiB, ten times T x 1 s
    many = replace(ONE, partitions=20, log_bytes=5 * MB, leader_throttle_bytes_per_s=MB,
                   follower_throttle_bytes_per_s=None, tick_ms=100, ticks=50)
    t = simulate(many).ticks
    assert t.throttled_bytes.iloc[0] == many.replica_fetch_response_max_bytes
    assert t.throttled_bytes.iloc[1:].sum() == 0  # 10 MiB / max(elapsed, 1 s) > 1 MB/s for 5 s


def test_a_throttle_at_or_below_in_never_finishes_and_the_lag_grows():
    """At T = IN the KIP's formula says never; the simulated lag may still creep down, by the
    optimistic response per window that the quota lets through (see the property below)."""
    for throttle in (MB, 1.5 * MB):
        s = replace(ONE, partitions=4, log_bytes=5 * MB, bytes_in_per_s=2 * MB,
                    leader_throttle_bytes_per_s=throttle, follower_throttle_bytes_per_s=None,
                    tick_ms=100, ticks=600)
        trace = simulate(s)
        assert trace.meta["finishes"] is False
        assert trace.meta["kip_move_time_s"] == math.inf
        assert "no move ever finishes" in trace.meta["reason"]
        assert trace.meta["completed_ms"] is None
        lag = trace.ticks.replica_lag_bytes
        assert lag.iloc[-1] > lag.iloc[0]
        assert (trace.partitions.caught_up_ms == -1).all()


def test_in_sync_replicas_are_not_throttled_but_counted_kafka_4313():
    """Partition 0 is tiny and catches up at once; afterwards it keeps fetching its share of IN
    even in ticks where the leader quota is exceeded and partition 1 gets nothing, and those
    bytes raise the leader's throttled rate."""
    s = replace(ONE, sizes=(1000, 50 * MB), bytes_in_per_s=200_000,
                leader_throttle_bytes_per_s=2 * MB, follower_throttle_bytes_per_s=None,
                tick_ms=100, ticks=100)
    trace = simulate(s)
    t = trace.ticks
    assert trace.partitions.caught_up_ms.iloc[0] == 0
    only_in_sync = t[(t.throttled_bytes == 0) & (t.unthrottled_bytes > 0)]
    assert len(only_in_sync) > 10
    # 100 kB/s of partition 0 in each tick: 10 kB per 100 ms tick
    assert set(only_in_sync.unthrottled_bytes.tolist()) == {10_000}
    assert (only_in_sync.leader_rate_bytes_per_s > 2 * MB).any()


def test_the_delay_design_moves_the_same_data_in_about_the_same_time():
    delay = simulate(replace(ONE, mode="delay", ticks=1500))
    assert delay.meta["completed_ms"] is not None
    assert abs(delay.meta["completed_ms"] - 10_000) <= 1000
    assert delay.ticks.moved_bytes.iloc[-1] == 100 * MB


def test_client_bandwidth_left_is_n_minus_in_over_r_minus_what_the_leader_sent():
    s = replace(ONE, bytes_in_per_s=3 * MB, ticks=20)
    t = simulate(s).ticks
    sent = (t.throttled_bytes + t.unthrottled_bytes) * 1000 / s.tick_ms
    assert np.allclose(t.client_bandwidth_left_bytes_per_s,
                       s.network_bytes_per_s - MB - sent)


def test_the_network_caps_one_tick():
    s = replace(ONE, network_bytes_per_s=50 * MB, replica_fetch_max_bytes=10 * MIB, ticks=5)
    assert simulate(s).ticks.throttled_bytes.iloc[0] == 50 * MB // 100


scenarios = st.builds(
    ReassignmentScenario,
    partitions=st.integers(1, 6),
    log_bytes=st.integers(0, 20 * MB),
    bytes_in_per_s=st.sampled_from([0.0, 100_000.0, 500_000.0]),
    leader_throttle_bytes_per_s=st.integers(MB // 2, 8 * MB).map(float),
    follower_throttle_bytes_per_s=st.none() | st.integers(MB // 2, 8 * MB).map(float),
    replica_fetch_max_bytes=st.sampled_from([65536, MIB, 4 * MIB]),
    replica_fetch_response_max_bytes=st.sampled_from([MIB, 10 * MIB]),
    replication_quota_window_num=st.integers(2, 11),
    tick_ms=st.sampled_from([10, 50, 100]),
    ticks=st.just(300),
    mode=st.sampled_from(["quota", "delay"]),
)


@settings(max_examples=40, deadline=None)
@given(scenarios)
def test_the_long_run_throttled_rate_stays_within_the_quota_plus_one_response_per_window(s):
    """In any span of one full quota window (samples x window), the leader sends at most
    T x (span + one window, the slot granularity) + one response."""
    t = simulate(s).ticks
    sent = (t.throttled_bytes + t.unthrottled_bytes).to_numpy()
    span = s.replication_quota_window_num * s.replication_quota_window_size_seconds
    per_span = int(span * 1000 // s.tick_ms)
    cum = np.concatenate([[0], np.cumsum(sent)])
    windows = cum[per_span:] - cum[:-per_span] if per_span < len(cum) else cum[-1:]
    response = min(s.replica_fetch_response_max_bytes,
                   math.floor(s.network_bytes_per_s * s.tick_ms / 1000))
    bound = s.leader_throttle_bytes_per_s * (span + s.replication_quota_window_size_seconds)
    assert windows.max() <= bound + response


@settings(max_examples=30, deadline=None)
@given(scenarios, st.integers(1, 4 * MB))
def test_a_higher_throttle_never_makes_the_move_slower(s, more):
    s = replace(s, mode="quota", ticks=600)
    higher = replace(s, leader_throttle_bytes_per_s=s.leader_throttle_bytes_per_s + more)
    slow, fast = simulate(s).meta["completed_ms"], simulate(higher).meta["completed_ms"]
    if slow is not None:
        assert fast is not None and fast <= slow


@settings(max_examples=15, deadline=None)
@given(scenarios)
def test_deterministic(s):
    a, b = simulate(s), simulate(s)
    assert a.ticks.equals(b.ticks) and a.partitions.equals(b.partitions) and a.meta == b.meta


@pytest.mark.parametrize(("change", "message"), [
    ({"mode": "fast"}, "mode"),
    ({"leader_throttle_bytes_per_s": -1.0}, "leader.replication.throttled.rate"),
    ({"follower_throttle_bytes_per_s": -1.0}, "follower.replication.throttled.rate"),
    ({"replication_quota_window_num": 0}, "replication.quota.window.num"),
    ({"replication_quota_window_size_seconds": 0}, "replication.quota.window.size.seconds"),
    ({"replica_fetch_max_bytes": 0}, "replica.fetch.max.bytes"),
    ({"replica_fetch_response_max_bytes": 0}, "replica.fetch.response.max.bytes"),
    ({"network_bytes_per_s": 0}, "network_bytes_per_s"),
    ({"bytes_in_per_s": -1}, "bytes_in_per_s"),
    ({"sizes": ()}, "sizes"),
    ({"sizes": (5, -1)}, r"sizes\[1\]"),
    ({"tick_ms": 0}, "tick_ms"),
])
def test_bad_input_names_the_setting(change, message):
    with pytest.raises(ValueError, match=message):
        replace(ONE, **change)


def test_a_throttle_at_in_is_legal_and_the_planner_says_it_never_finishes():
    s = replace(ONE, bytes_in_per_s=10 * MB, ticks=10)
    meta = simulate(s).meta
    assert meta["finishes"] is False
    assert "must be above bytes_in_per_s" in meta["reason"]
