"""The copy quota's burst pattern and Kafka's three meters on one bursty load, with Kafka's own
numbers (RLMQuotaManagerTest, TokenBucketTest)."""

from __future__ import annotations

import pandas as pd
import pytest

from kipviz.scenarios.tiered_fetch.quotas import bursty_load, copy_under_quota, three_rates


def test_an_rlm_quota_of_50_bytes_per_s_throttles_9000_then_1000_then_0_ms():
    """RLMQuotaManagerTest.testQuotaExceeded: 500 bytes recorded at once against 50 B/s over
    11 x 1 s: 9,000 ms one second later, 1,000 ms eight seconds after that, 0 one second later."""
    rate = copy_under_quota(500, 1, 50, sample_ms=1_000)["rate"].set_index("time_ms")
    assert rate.throttle_time_ms.loc[[1_000.0, 9_000.0, 10_000.0]].tolist() == [9_000, 1_000, 0]


def test_the_copy_quota_lets_one_segment_through_then_spaces_the_next_by_its_windows():
    """1 GiB segments under 100 MiB/s: the first goes at once; each later one waits until
    SimpleRate has spread the burst over 10.24 s; the copy thread checks every second
    (quotaTimeout), so at 11 s, when the 11 windows have also purged the last segment: the
    copy runs at 1 GiB per 11 s, 93 MiB/s, in bursts."""
    seg = copy_under_quota(1024 ** 3, 4, 100 * 1024 ** 2)["segments"]
    assert seg.recorded_ms.tolist() == [0.0, 11_000.0, 22_000.0, 33_000.0]
    assert seg.throttle_checks.tolist() == [0, 11, 11, 11]


def test_the_token_bucket_gives_kafkas_numbers_beside_the_two_rates():
    """TokenBucketTest.testRecord: 5 units/s, 10 samples of 2 s: full at 100, 40 after 60, 45
    two seconds later after 5, -5 after 60 more (a 1,000 ms throttle); the rates see 60 units
    in one window too."""
    load = pd.DataFrame({"time_ms": [0, 2_000, 4_000], "value": [60, 5, 60]})
    t = three_rates(load, 5, 6_000, samples=10, window_s=2, sample_ms=2_000)
    bucket = t[t.meter == "TokenBucket"]
    assert bucket.measure.tolist() == [40.0, 45.0, -5.0]
    assert bucket.throttle_time_ms.tolist() == [0, 0, 1_000]
    assert set(t.meter) == {"Rate", "SimpleRate", "TokenBucket"}


def test_simple_rate_reads_a_burst_higher_than_rate_and_the_bucket_absorbs_it():
    """One 5,000-unit burst against 1,000/s: SimpleRate divides by one window (5,000/s, a 4 s
    throttle), Rate by the 10 whole windows it assumes (500/s: none), the bucket of 11,000
    credits takes it (no throttle)."""
    t = three_rates(bursty_load(5_000, 60_000, 1_000), 1_000, 1_000).query("time_ms == 0")
    got = t.set_index("meter")
    assert got.measure.to_dict() == {"Rate": 500.0, "SimpleRate": 5_000.0, "TokenBucket": 6_000.0}
    assert got.throttle_time_ms.to_dict() == {"Rate": 0, "SimpleRate": 4_000, "TokenBucket": 0}


@pytest.mark.parametrize(("call", "match"), [
    (lambda: copy_under_quota(0, 1, 10), r"segment_bytes \(log\.segment\.bytes\) must be an "
                                         r"integer >= 1"),
    (lambda: copy_under_quota(10, 1, 0),
     r"remote\.log\.manager\.\{copy,fetch\}\.max\.bytes\.per\.second\) must be a number >= 1"),
    (lambda: three_rates(bursty_load(1, 10, 100), 0, 100), r"quota must be a number > 0"),
    (lambda: bursty_load(1, 0, 100), r"period_ms must be an integer >= 1: 0"),
])
def test_bad_arguments_name_the_setting(call, match):
    """Bad values raise ValueError naming the argument (and the Kafka setting)."""
    with pytest.raises(ValueError, match=match):
        call()


def test_the_throttle_summary_says_when_each_meter_first_throttles():
    """5,000 units every 3 s against 1,000/s: SimpleRate at once, Rate at 6 s, the bucket of
    11,000 credits at 12 s."""
    from kipviz.scenarios.tiered_fetch.quotas import throttle_summary

    table = three_rates(bursty_load(5_000, 3_000, 30_000), 1_000, 30_000, sample_ms=250)
    first = throttle_summary(table)["first throttle s"].to_dict()
    assert first == {"Rate": 6.0, "SimpleRate": 0.0, "TokenBucket": 12.0}
