"""The KIP-73 reassignment scenario: worked numbers, T <= IN, KAFKA-4313, properties, bad input;
the kernel against the loop it replaced, and its windowed rate against
kipviz.kafka.quotas.rate's classes."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings

from kipviz.apps.planner.throttle import plan_throttle
from kipviz.kafka.quotas import rate
from kipviz.kafka.quotas.rate import Rate, Sample, SimpleRate, java_round, throttle_time_ms
from kipviz.kafka.replication.quota import ReplicationQuotaManager
from kipviz.scenarios.reassignment import kernel
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario, simulate
from tests.cases import MB, MIB, ONE
from tests.strategies import (
    booleans,
    examples,
    java_round_inputs,
    quota_samples,
    quota_windows_ms,
    quota_windows_s,
    rate_steps,
    reassignment_scenarios,
    replication_quotas,
    throttle_raises,
    throttled_reassignments,
)
from tools.oracles.reassignment_reference import simulate_reference


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


@settings(max_examples=examples(0.8))
@given(throttled_reassignments())
@example(ReassignmentScenario(  # the delay design, 1 byte over the quota mode's bound
    partitions=1, log_bytes=7_791_457, bytes_in_per_s=0.0, leader_throttle_bytes_per_s=500_000.0,
    replica_fetch_max_bytes=MIB, replica_fetch_response_max_bytes=MIB,
    replication_quota_window_num=2, tick_ms=50, ticks=300, mode="delay"))
def test_the_long_run_throttled_rate_stays_within_the_quota_plus_one_response_per_window(s):
    """In any span of one full quota window (samples x window), the leader sends at most
    T x (span + one window, the slot granularity) + one response: it sends only while its rate,
    which covers the span's bytes, is within T (KIP-73 as shipped).

    The rejected delay design sends first, then holds the response for
    ``QuotaUtils.throttleTime``: the delay that brings the rate to T *if* the measured window
    grows by it. Purging old samples meanwhile shrinks the window, so the next response can leave
    with the rate still above T (the example: 1 MiB at 10.35 s and at 10.4 s, held 1,794 ms on a
    2.4 s window that two purged empty samples cut to 2.25 s by 12.25 s, then the log's last
    451,425 bytes: 2,548,577 bytes in 2 s against T x 3 s + 1 MiB = 2,548,576). What the delay
    does bound is the bytes before the span's last response: the previous one waited until their
    rate over the time since the oldest sample it measured (less than span + one window before
    it) was T, so the span holds at most T x (2 x span + one window) + one response."""
    t = simulate(s).ticks
    sent = (t.throttled_bytes + t.unthrottled_bytes).to_numpy()
    span = s.replication_quota_window_num * s.replication_quota_window_size_seconds
    per_span = int(span * 1000 // s.tick_ms)
    cum = np.concatenate([[0], np.cumsum(sent)])
    windows = cum[per_span:] - cum[:-per_span] if per_span < len(cum) else cum[-1:]
    response = min(s.replica_fetch_response_max_bytes,
                   math.floor(s.network_bytes_per_s * s.tick_ms / 1000))
    measured_s = span + s.replication_quota_window_size_seconds
    if s.mode == "delay":
        measured_s += span
    assert windows.max() <= s.leader_throttle_bytes_per_s * measured_s + response


@settings(max_examples=examples(0.6))
@given(throttled_reassignments(), throttle_raises)
def test_a_higher_throttle_never_makes_the_move_slower(s, more):
    s = replace(s, mode="quota", ticks=600)
    higher = replace(s, leader_throttle_bytes_per_s=s.leader_throttle_bytes_per_s + more)
    slow, fast = simulate(s).meta["completed_ms"], simulate(higher).meta["completed_ms"]
    if slow is not None:
        assert fast is not None and fast <= slow


@settings(max_examples=examples(0.3))
@given(throttled_reassignments())
def test_deterministic(s):
    a, b = simulate(s), simulate(s)
    assert a.ticks.equals(b.ticks) and a.partitions.equals(b.partitions) and a.meta == b.meta


@pytest.mark.parametrize(("change", "message"), [
    ({"mode": "fast"}, "mode"),
    ({"leader_throttle_bytes_per_s": -1.0}, "leader.replication.throttled.rate"),
    ({"follower_throttle_bytes_per_s": -1.0}, "follower.replication.throttled.rate"),
    ({"replication_quota_window_num": 0}, "replication.quota.window.num"),
    ({"replication_quota_window_size_seconds": 0}, "replication.quota.window.size.seconds"),
    ({"replica_fetch_max_bytes": -1}, "replica.fetch.max.bytes"),
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


def test_a_throttle_at_in_is_legal_and_the_meta_says_it_never_finishes():
    """T = IN with no follower counted (the KIP's case) and T = 3 x IN with R - 1 = 2 counted
    (what --throttle sets up): legal in Kafka, and the move never finishes."""
    kip = simulate(replace(ONE, bytes_in_per_s=10 * MB, ticks=10, in_sync_followers=0)).meta
    assert kip["finishes"] is False and kip["move_status"] == "never"
    assert "must be above bytes_in_per_s (IN) = 1e+07" in kip["reason"]
    real = simulate(replace(ONE, bytes_in_per_s=10 * MB / 3, ticks=10)).meta
    assert real["finishes"] is False and real["projected_move_time_s"] == math.inf
    assert "must be above (in_sync_followers + 1) x bytes_in_per_s = (2 + 1) x IN" in \
        real["reason"]


# --- the kernel: today's loop, compiled ------------------------------------------------------


def _same_run(scenario: ReassignmentScenario, compiled: bool) -> None:
    """``simulate`` gives the reference loop's trace value for value, or the same ValueError.

    The reference predates the in-sync followers, so both run without them (F = 0); ``meta``
    agrees on every key the reference knew but ``reason`` and ``finishes``, which now come from
    the move-time rule (a network too slow for a byte a tick never finishes, for one)."""
    scenario = replace(scenario, in_sync_followers=0, throttle_schedule=())
    try:
        old = simulate_reference(scenario)
    except ValueError:  # mode="delay" with a throttle of 0 divides by it
        with pytest.raises(ValueError, match="must be > 0 in mode='delay'"):
            simulate(scenario, compiled=compiled)
        return
    new = simulate(scenario, compiled=compiled)
    assert list(new.ticks.dtypes.items()) == list(old.ticks.dtypes.items())
    assert new.ticks.equals(old.ticks), (new.ticks.compare(old.ticks), scenario)
    assert new.partitions.equals(old.partitions), (new.partitions.compare(old.partitions),
                                                   scenario)
    same = set(old.meta) - {"reason", "finishes"}
    assert {k: new.meta[k] for k in same} == {k: old.meta[k] for k in same}
    assert new.meta["in_sync_followers"] == 0


EDGES = {
    "the worked 100 MB move": ONE,
    "the rejected delay design": replace(ONE, mode="delay", ticks=1500),
    "an in-sync partition beside a throttled one": replace(
        ONE, sizes=(1000, 50 * MB), bytes_in_per_s=200_000, leader_throttle_bytes_per_s=2 * MB,
        follower_throttle_bytes_per_s=None, tick_ms=100, ticks=100),
    "a throttle below IN": replace(
        ONE, partitions=4, log_bytes=5 * MB, bytes_in_per_s=2 * MB,
        leader_throttle_bytes_per_s=MB, follower_throttle_bytes_per_s=None, tick_ms=100,
        ticks=600),
    "unlimited throttles": replace(ONE, partitions=3, leader_throttle_bytes_per_s=None,
                                   follower_throttle_bytes_per_s=None, bytes_in_per_s=1e6),
    "empty logs and no IN never catch up": replace(ONE, sizes=(0, 3 * MB, 0), ticks=300),
    "empty logs that IN fills later": replace(ONE, sizes=(0, 0), bytes_in_per_s=150,
                                              tick_ms=7, ticks=400),
    "a network too slow for a byte a tick": replace(ONE, network_bytes_per_s=50, ticks=50),
    "throttles of 0": replace(ONE, partitions=2, leader_throttle_bytes_per_s=0,
                              bytes_in_per_s=1e5, ticks=300),
    "delay with a follower throttle of 0": replace(ONE, mode="delay",
                                                   follower_throttle_bytes_per_s=0, ticks=30),
    "response limit binding, one window, 3 s windows": replace(
        ONE, partitions=6, log_bytes=3 * MB, replica_fetch_max_bytes=300_000,
        replica_fetch_response_max_bytes=700_000, replication_quota_window_num=1,
        replication_quota_window_size_seconds=3, bytes_in_per_s=300_000, tick_ms=50, ticks=800),
    "follower binds in delay mode": replace(
        ONE, partitions=5, log_bytes=2 * MB, leader_throttle_bytes_per_s=None,
        follower_throttle_bytes_per_s=3 * MB, mode="delay", bytes_in_per_s=500_000,
        tick_ms=10, ticks=1000),
}


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("name", list(EDGES))
def test_the_kernel_gives_the_traces_of_the_loop_it_replaced(name, compiled):
    """Compiled or plain, every column, partition row and meta value is the old loop's."""
    _same_run(EDGES[name], compiled)


@settings(max_examples=examples(4))
@given(reassignment_scenarios())
def test_the_compiled_kernel_gives_the_old_loops_trace_on_any_small_scenario(s):
    """Hypothesis varies every setting, edges included; the traces stay identical."""
    _same_run(s, compiled=True)


@settings(max_examples=examples(0.5))
@given(reassignment_scenarios(ticks=(1, 120)))
def test_the_plain_python_kernel_gives_the_old_loops_trace_too(s):
    """``compiled=False`` runs the same function un-jitted: the same trace."""
    _same_run(s, compiled=False)


def test_in_sync_followers_fill_the_leader_quota_and_slow_the_move():
    """Two existing in-sync followers fetch IN / P per partition each: 2 x 2 MB/s of the
    leader's 10 MB/s quota, so the move gets about 6 MB/s minus IN = 4 MB/s instead of
    8 MB/s: 20 MB in about 5 s rather than 2.5 s. Their bytes are in no column but the
    leader's rate (they are not moving replicas) and the follower's quota never sees them."""
    base = replace(ONE, log_bytes=20 * MB, bytes_in_per_s=2 * MB, ticks=1500)
    alone, crowded = (simulate(replace(base, in_sync_followers=f)) for f in (0, 2))
    assert crowded.meta["in_sync_followers"] == 2
    plain = simulate(replace(base, in_sync_followers=2), compiled=False)
    assert plain.ticks.equals(crowded.ticks) and plain.partitions.equals(crowded.partitions)
    assert alone.meta["completed_ms"] == pytest.approx(2500, abs=300)
    assert crowded.meta["completed_ms"] == pytest.approx(5000, abs=600)
    for t in (alone.ticks, crowded.ticks):
        assert np.allclose(t.client_bandwidth_left_bytes_per_s, base.network_bytes_per_s
                           - 2 * MB / 3 - (t.throttled_bytes + t.unthrottled_bytes) * 100)
    late = crowded.ticks.time_ms >= 11_000  # a full quota window after the first bytes
    assert crowded.ticks.leader_rate_bytes_per_s[late].max() <= 10 * MB
    assert simulate(base).ticks.equals(crowded.ticks)  # None is R - 1 = 2, as --throttle
    with pytest.raises(ValueError, match="in_sync_followers must be an integer >= 0"):
        replace(base, in_sync_followers=-1)


# --- the kernel's windowed rate (kipviz.kafka.quotas.rate on arrays, compiled) is
# kipviz.kafka.quotas.rate's classes ------------


def _functions(compiled: bool) -> dict[str, Any]:
    return {name: kernel.compiled_kernel(name) if compiled else getattr(rate, name)
            for name in rate.RATE_FUNCTIONS}


def _slots(slots: np.ndarray, pos: np.ndarray) -> list[Sample]:
    return [Sample(*row) for row in slots.reshape(-1, rate.FIELDS)[: pos[rate.USED]].tolist()]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@settings(max_examples=examples(2))
@given(rate_steps, quota_samples, quota_windows_ms, booleans)
def test_the_rate_arrays_record_purge_pad_and_measure_as_kipviz_quota(
        compiled, steps, samples, window_ms, simple):
    """On any timeline of records and measurements, the arrays hold the Rate classes'
    slots (samples + 1, purged by last event, created by measuring an empty stat) and measure the
    same window
    (padded for Rate, at least one window for SimpleRate, never below 1 ms) and rate."""
    f = _functions(compiled)
    stat = (SimpleRate if simple else Rate)(samples, window_ms)
    slots, pos = rate.new_rate(samples)
    now = 0
    for dt, value, measure in steps:
        now += dt
        if measure:
            assert f["rate_window_size_ms"](slots, pos, window_ms, now, simple) == \
                stat.window_size_ms(now)
            assert f["rate_measure"](slots, pos, window_ms, now, simple) == stat.measure(now)
        else:
            f["rate_record"](slots, pos, window_ms, value, now)
            stat.record(value, now)
        assert _slots(slots, pos) == list(stat.slots())
        assert pos[rate.CURRENT] == stat.current_slot


# numpy scalars warn where Python floats silently overflow to inf (a quota of 5e-324 B/s)
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@settings(max_examples=examples(2))
@given(rate_steps, quota_samples, quota_windows_s, replication_quotas)
def test_the_kernels_quota_is_the_replication_quota_managers(
        compiled, steps, samples, window_s, bytes_per_s):
    """``quota_exceeded`` is ``is_quota_exceeded`` (fractional windows included; an unlimited
    quota measures nothing, so no slot appears) and ``quota_throttle_time_ms`` is
    ``throttle_time_ms`` of the measured rate."""
    f = _functions(compiled)
    manager = ReplicationQuotaManager(bytes_per_s, samples, window_s)
    window_ms = manager.rate.window_ms
    bound = rate.UNLIMITED if bytes_per_s is None else float(bytes_per_s)
    slots, pos = rate.new_rate(samples)
    now = 0
    for dt, value, check in steps:
        now += dt
        if check:
            exceeded = manager.is_quota_exceeded(now)
            assert f["quota_exceeded"](slots, pos, window_ms, bound, now) is exceeded
            if exceeded and bound > 0:
                expected = max(0, throttle_time_ms(manager.measure(now), bound,
                                                   manager.rate.window_size_ms(now)))
                assert f["quota_throttle_time_ms"](slots, pos, window_ms, bound, now,
                                                   True) == expected
        else:
            f["rate_record"](slots, pos, window_ms, value, now)
            manager.record(value, now)
        assert _slots(slots, pos) == list(manager.rate.slots())


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_the_kernels_quota_accepts_a_rate_equal_to_its_bound(compiled):
    """1000 bytes over one whole 1 s window is 1000/s: a 1000 B/s quota is not exceeded."""
    f = _functions(compiled)
    slots, pos = rate.new_rate(2)
    f["rate_record"](slots, pos, 1000, 1000, 0)
    assert not f["quota_exceeded"](slots, pos, 1000, 1000.0, 500)
    assert f["quota_exceeded"](slots, pos, 1000, 999.0, 500)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@given(java_round_inputs)
def test_the_kernels_java_round_is_kipviz_quotas(compiled, x):
    """Ties towards +inf, NaN to 0, clamped to the long range."""
    assert _functions(compiled)["java_round"](x) == java_round(x)


def test_replica_fetch_max_bytes_of_zero_is_accepted_as_kafka_does():
    """ReplicationConfigs defines replica.fetch.max.bytes with atLeast(0), so 0 is a legal
    setting; the model's bytes are continuous (no oversized first batch), so nothing moves."""
    trace = simulate(replace(ONE, replica_fetch_max_bytes=0, ticks=50))
    assert trace.meta["move_status"] == "never"
    assert trace.ticks.moved_bytes.max() == 0
