"""KIP-599's token bucket and controller mutation quota, on Kafka's own tests' numbers.

Kafka's tests run on a ``MockTime`` that starts at the wall clock, long after the bucket's time 0,
so they see a full bucket at their first measure; ``T`` below plays that wall-clock time.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given

import kipviz.kafka.quotas.token_bucket as tb
from kipviz.kafka.quotas.rate import java_round
from kipviz.kafka.quotas.token_bucket import (
    ControllerMutationQuota,
    TokenBucket,
    bucket_measure,
    bucket_record,
    new_bucket_state,
    permissive_record,
    strict_record,
    token_bucket_throttle_time_ms,
)
from tests.strategies import bucket_quotas, bucket_steps, quota_samples

T = 1_764_000_000_000  # 2025-11-24 in ms since the epoch


def test_kafka_token_bucket_test_record_gives_100_40_45_and_minus_5_credits():
    """``TokenBucketTest.testRecord``: 5 units/s, 10 samples of 2 s: burst 100; 100 at T, 40
    after recording 60, 45 two seconds later after recording 5 (40 + 10 - 5), -5 two seconds
    after that on recording 60 (45 + 10 - 60), which is a 1000 ms throttle (5 / 5 s)."""
    bucket = TokenBucket(quota=5, samples=10, window_s=2)
    assert bucket.burst == 100
    assert bucket.measure(T) == 100
    bucket.record(60, T)
    assert bucket.measure(T) == 40
    bucket.record(5, T + 2000)
    assert bucket.measure(T + 2000) == 45
    bucket.record(60, T + 4000)
    assert bucket.measure(T + 4000) == -5
    assert bucket.throttle_time_ms(T + 4000) == 1000


def test_kafka_token_bucket_test_unrecord_never_fills_beyond_the_burst():
    """``TokenBucketTest.testUnrecord``: recording -60 on a full bucket leaves 100; 60 two seconds
    later leaves 40; -60 two seconds after that gives 40 + 10 + 60 = 110, capped at 100."""
    bucket = TokenBucket(quota=5, samples=10, window_s=2)
    assert bucket.measure(T) == 100
    bucket.record(-60, T)
    assert bucket.measure(T) == 100
    bucket.record(60, T + 2000)
    assert bucket.measure(T + 2000) == 40
    bucket.record(-60, T + 4000)
    assert bucket.measure(T + 4000) == 100


def test_the_bucket_starts_empty_at_time_0_and_is_full_after_burst_over_quota_seconds():
    """``new TokenBucket()`` has 0 tokens last updated at 0 ms: measured at 0 it has 0 credits,
    at 10 s 50, and from 20 s (100 / 5 per s) on the full 100; Kafka's tests measure at a
    wall-clock time, so they start full."""
    bucket = TokenBucket(quota=5, samples=10, window_s=2)
    assert [bucket.measure(ms) for ms in (0, 10_000, 20_000, 30_000)] == [0, 50, 100, 100]
    fresh = TokenBucket(quota=5, samples=10, window_s=2)
    fresh.record(60, 4_000)  # 20 credits refilled by 4 s, 60 taken
    assert fresh.measure(4_000) == -40 and fresh.throttle_time_ms(4_000) == 8000


def test_kafka_throttle_time_is_minus_credits_over_quota_in_ms():
    """``ControllerMutationQuotaManagerTest.testThrottleTime``: credits 0, -5 and -10 against a
    quota of 10 throttle 0, 500 and 1000 ms; positive credits never throttle; Java rounds half
    up."""
    assert [token_bucket_throttle_time_ms(c, 10) for c in (0, -5, -10, 7)] == [0, 500, 1000, 0]
    assert token_bucket_throttle_time_ms(-0.0025, 5) == 1  # 0.5 ms rounds up, as Math.round


def test_kafka_strict_quota_accepts_until_the_credits_are_negative_then_rejects():
    """``testStrictControllerMutationQuotaViolation``: quota 10, burst 100: 90 (credits 10) and
    90 (credits -80) are accepted, the third 90 is rejected with 8000 ms and not recorded; the
    throttle time counts down to 3000 ms five seconds later."""
    bucket = TokenBucket(quota=10, samples=10, window_s=1)
    quota = ControllerMutationQuota(bucket, strict=True)
    assert quota.record(90, T) and not quota.is_exceeded and quota.throttle_time_ms(T) == 0
    assert quota.record(90, T) and not quota.is_exceeded and quota.throttle_time_ms(T) == 0
    assert not quota.record(90, T)
    assert quota.is_exceeded and quota.throttle_time_ms(T) == 8000
    assert bucket.measure(T) == -80  # the rejected permits were not recorded
    assert quota.throttle_time_ms(T + 5000) == 3000
    assert quota.throttle_time_ms(T + 9000) == 0


def test_kafka_permissive_quota_accepts_everything_and_reports_the_throttle_time():
    """``testPermissiveControllerMutationQuotaViolation``: 90, 90, 90 are all accepted; throttle
    times 0, 8000 and 17000 ms; 12000 ms five seconds later; never 'exceeded'."""
    quota = ControllerMutationQuota(TokenBucket(quota=10, samples=10, window_s=1), strict=False)
    throttles = []
    for _ in range(3):
        assert quota.record(90, T)
        throttles.append(quota.throttle_time_ms(T))
    assert throttles == [0, 8000, 17000] and not quota.is_exceeded
    assert quota.throttle_time_ms(T + 5000) == 12000


def test_kafka_manager_accepts_a_spike_on_full_credits_and_rejects_the_next_for_1s():
    """``testControllerMutationQuotaViolation`` (``recordAndGetThrottleTimeMs``, strict): ten
    records of 10 a second apart are free; a spike of 110 on 100 credits is accepted (-10); the
    next 110 is throttled 1000 ms; after waiting it, 110 is accepted on 0 credits."""
    state, quota, burst = new_bucket_state(), 10.0, 10 * 1 * 10.0
    now = T
    for _ in range(10):
        assert strict_record(state, quota, burst, 10, now) == (False, 0)
        now += 1000
    assert strict_record(state, quota, burst, 110, now) == (False, 0)
    assert strict_record(state, quota, burst, 110, now) == (True, 1000)
    now += 1000
    assert strict_record(state, quota, burst, 110, now) == (False, 0)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"quota": 0, "samples": 11, "window_s": 1}, r"quota \(controller_mutation_rate\) must be a "
                                                 r"number > 0"),
    ({"quota": 5, "samples": 0, "window_s": 1},
     r"samples \(controller.quota.window.num\) must be an integer >= 1"),
    ({"quota": 5, "samples": 11, "window_s": -1},
     r"window_s \(controller.quota.window.size.seconds\) must be a number > 0: -1"),
    ({"quota": 5, "samples": 1.5, "window_s": 1}, r"samples .* must be an integer"),
])
def test_bad_bucket_settings_are_rejected_naming_the_kafka_setting(kwargs, match):
    """A zero quota, no samples or a non-positive window are errors naming the setting."""
    with pytest.raises(ValueError, match=match):
        TokenBucket(**kwargs)


def test_negative_permits_and_non_bool_modes_are_rejected():
    """Mutations are counts of partitions (>= 0); the mode is a bool."""
    bucket = TokenBucket(quota=5)
    with pytest.raises(ValueError, match=r"permits .* must be a number >= 0: -1"):
        ControllerMutationQuota(bucket, strict=True).record(-1, T)
    with pytest.raises(ValueError, match="strict must be True or False: 1"):
        ControllerMutationQuota(bucket, strict=1)  # type: ignore[arg-type]


@given(quota=bucket_quotas, samples=quota_samples, steps=bucket_steps)
def test_credits_never_exceed_the_burst_and_follow_the_refill_formula(quota, samples, steps):
    """At every step the credits are min(burst, previous + quota * elapsed - value)."""
    bucket = TokenBucket(quota=quota, samples=samples, window_s=1)
    now, credits = T, bucket.measure(T)
    assert credits == bucket.burst
    for dt, value in steps:
        now += dt
        bucket.record(value, now)
        credits = min(bucket.burst, min(bucket.burst, credits + quota * dt / 1000) - value)
        assert bucket.measure(now) == pytest.approx(credits, abs=1e-6)
        assert bucket.measure(now) <= bucket.burst


@given(quota=bucket_quotas, samples=quota_samples, steps=bucket_steps)
def test_strict_rejects_exactly_when_overdrawn_and_permissive_never(quota, samples, steps):
    """Strict: a request is rejected iff the credits are already negative, and then nothing is
    taken. Permissive takes everything; its throttle time is -credits / quota * 1000 after."""
    burst = samples * quota
    strict, permissive = new_bucket_state(), new_bucket_state()
    now = T
    for dt, value in steps:
        now += dt
        permits = abs(value)
        before = bucket_measure(strict.copy(), quota, burst, now)
        violated, throttle = strict_record(strict, quota, burst, permits, now)
        assert violated == (before < 0)
        assert bucket_measure(strict.copy(), quota, burst, now) == (
            before if violated else min(burst, before - permits))
        assert throttle == (java_round(-before / quota * 1000) if violated else 0)
        _, throttle = permissive_record(permissive, quota, burst, permits, now)
        after = bucket_measure(permissive.copy(), quota, burst, now)
        assert throttle == (java_round(-after / quota * 1000) if after < 0 else 0)


def test_the_plain_functions_compile_with_numba_and_agree():
    """The rules numba compiles for kernels give the same credits and throttle times."""
    pytest.importorskip("numba")
    from kipviz.scenarios.jit import jit_functions

    names = ["bucket_refill", "bucket_measure", "bucket_record", "token_bucket_throttle_time_ms",
             "strict_record", "permissive_record", "_as_int", "remaining_throttle_time_ms"]
    jit = jit_functions(names, vars(tb), foreign={"java_round": java_round})
    rec, meas = jit["bucket_record"], jit["bucket_measure"]
    strict, perm = jit["strict_record"], jit["permissive_record"]
    a, b = new_bucket_state(), new_bucket_state()
    for now, value in ((T, 60.0), (T + 2000, 5.0), (T + 4000, 60.0)):
        rec(a, 5.0, 100.0, value, now)
        bucket_record(b, 5.0, 100.0, value, now)
        assert meas(a, 5.0, 100.0, now) == bucket_measure(b, 5.0, 100.0, now)
    s1, s2 = new_bucket_state(), new_bucket_state()
    for _ in range(3):
        assert tuple(strict(s1, 10.0, 100.0, 90.0, float(T))) == strict_record(
            s2, 10.0, 100.0, 90.0, float(T))
    assert tuple(perm(s1, 10.0, 100.0, 90.0, float(T))) == (True, 17000)
    np.testing.assert_array_equal(s1, [-170.0, T])
    assert jit["remaining_throttle_time_ms"](17000, float(T), T + 5000.0) == 12000


def test_docstring_examples_run():
    """The module's examples (Kafka's test numbers) are true."""
    result = doctest.testmod(tb)
    assert result.attempted > 0 and result.failed == 0
