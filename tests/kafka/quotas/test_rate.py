"""kipviz.kafka.quotas.rate: Kafka's windowed rate as plain functions on state, the one copy that
the quota classes, the kernels (compiled) and the SimPy references run."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from kipviz.kafka.quotas import rate
from kipviz.kafka.quotas.rate import Rate, SimpleRate
from kipviz.kafka.quotas.rate import java_round as quota_java_round
from kipviz.kafka.tiered.quota import RemoteLogQuota
from kipviz.scenarios.jit import compiled_rates
from tests.strategies import booleans, quota_samples, quota_windows_ms, rate_steps

T = 1_764_000_000_000  # a wall-clock time, as Kafka's MockTime starts


def test_java_round_is_defined_once():
    """``java_round`` is defined once, in :mod:`kipviz.kafka.quotas.rate`, not copied."""
    assert quota_java_round is rate.java_round


def test_the_rlm_quota_example_holds_on_the_bare_functions():
    """RLMQuotaManagerTest.testQuotaExceeded on state arrays: 50 B/s over 11 x 1 s, 500 bytes
    at t: within the quota before the record, then 9000, 1000 and 0 ms at t + 1, 9, 10 s."""
    slots, pos = rate.new_rate(11)
    assert rate.quota_throttle_time_ms(slots, pos, 1000, 50.0, T, True) == 0
    rate.rate_record(slots, pos, 1000, 500.0, T)
    assert [rate.quota_throttle_time_ms(slots, pos, 1000, 50.0, T + s * 1000, True)
            for s in (1, 9, 10)] == [9000, 1000, 0]
    quota = RemoteLogQuota(50)
    quota.record(500, T)
    assert quota.throttle_time_ms(T + 1000) == 9000  # the class runs the same functions


def test_an_unlimited_quota_is_never_exceeded_and_never_measured():
    """``UNLIMITED``: no throttle time, no exceeded quota, and no slot created by measuring."""
    slots, pos = rate.new_rate(2)
    assert not rate.quota_exceeded(slots, pos, 1000, rate.UNLIMITED, 5000)
    assert rate.quota_throttle_time_ms(slots, pos, 1000, rate.UNLIMITED, 5000, True) == 0
    assert pos[rate.USED] == 0


def test_the_legacy_rule_keeps_samples_slots_and_purges_by_start():
    """Before Kafka 3.8 (apache/kafka#15889) a stat had ``samples`` slots, purged once their
    *start* was ``samples`` windows old: a slot started at 0 and last written at 1999 is gone
    at 2000 (legacy) but kept until 3999 (since 3.8)."""
    for legacy, kept in ((True, 0.0), (False, 200.0)):
        slots, pos = rate.new_rate(2, legacy)
        assert len(slots) == rate.FIELDS * (2 if legacy else 3)
        rate.rate_record(slots, pos, 1000, 100.0, 0)
        rate.rate_record(slots, pos, 1000, 100.0, 999)
        assert rate.rate_measure(slots, pos, 1000, 2000, True) * 2 == kept


@pytest.mark.parametrize("legacy", [False, True], ids=["3.8+", "legacy"])
@given(rate_steps, quota_samples, quota_windows_ms, booleans)
def test_lists_arrays_and_compiled_arrays_give_the_same_rates(legacy, steps, samples, window_ms,
                                                              simple):
    """The class's list state, the plain functions on numpy arrays and the numba-compiled
    functions agree on every window size and rate of any timeline of records and
    measurements, and end with the same slots."""
    jit = compiled_rates()
    stat = (SimpleRate if simple else Rate)(samples, window_ms, legacy=legacy)
    plain, compiled = rate.new_rate(samples, legacy), rate.new_rate(samples, legacy)
    now = 0
    for dt, value, measure in steps:
        now += dt
        if measure:
            expected = stat.measure(now)
            assert rate.rate_measure(*plain, window_ms, now, simple) == expected
            assert jit["rate_measure"](*compiled, window_ms, now, simple) == expected
        else:
            stat.record(value, now)
            rate.rate_record(*plain, window_ms, float(value), now)
            jit["rate_record"](*compiled, window_ms, float(value), now)
    assert np.array_equal(plain[0], compiled[0]) and np.array_equal(plain[1], compiled[1])
    assert [(s.start_ms, s.last_event_ms, s.value) for s in stat.slots()] == [
        tuple(row) for row in plain[0].reshape(-1, rate.FIELDS)[: plain[1][rate.USED]].tolist()]
