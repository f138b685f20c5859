"""What ``kafka-reassign-partitions --throttle`` really does, planned and simulated alike.

``--throttle`` lists the moving partitions' current replicas in
``leader.replication.throttled.replicas``: the F = R - 1 in-sync followers are counted by the
leader's quota (never throttled), and the new replica nets T - (F + 1) x IN. The planner, the
scenario's meta and the simulation must agree on it.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from kipviz.apps.planner.throttle import plan_throttle
from kipviz.kafka.replication.planning import (
    catch_up_bytes_per_s,
    move_time_s,
    scheduled_move_time_s,
    throttle_bounds,
    throttle_verdict,
)
from kipviz.scenarios.reassignment.scenario import MOVE_STATUS, ReassignmentScenario, simulate

MB = 1_000_000
# R = 3, IN = 10 MB/s into ten moving partitions of 100 MB (1 GB), both throttles 40 MB/s.
GB_MOVE = ReassignmentScenario(brokers=5, network_bytes_per_s=125e6, bytes_in_per_s=10 * MB,
                               replication_factor=3, partitions=10, log_bytes=100 * MB,
                               leader_throttle_bytes_per_s=40 * MB,
                               follower_throttle_bytes_per_s=40 * MB, tick_ms=100, ticks=1300)


def _both(throttle: float) -> ReassignmentScenario:
    return replace(GB_MOVE, leader_throttle_bytes_per_s=throttle,
                   follower_throttle_bytes_per_s=throttle)


def test_one_gb_at_40_mb_per_s_with_r_3_and_10_mb_per_s_in_takes_100_s_not_33():
    """1000 MB / (40 - 3 x 10) MB/s = 100 s, planned and simulated; the KIP's T - IN says 33 s."""
    plan = plan_throttle(brokers=5, network_bytes_per_s=125e6, bytes_in_per_s=10 * MB,
                         replication_factor=3, bytes_to_move=1000 * MB,
                         throttle_bytes_per_s=40 * MB)
    assert plan.in_sync_followers == 2
    assert plan.move_time_s == pytest.approx(100.0)
    assert plan.kip_move_time_s == pytest.approx(100 / 3)
    meta = simulate(GB_MOVE).meta
    assert meta["planned_move_time_s"] == pytest.approx(100.0)
    assert meta["kip_move_time_s"] == pytest.approx(100 / 3)
    assert meta["move_status"] == "finished"
    assert meta["completed_ms"] / 1000 == pytest.approx(100.0, rel=0.05)


def test_at_30_mb_per_s_the_move_never_finishes():
    """T = 3 x IN: the followers' 20 MB/s and the new replica's own 10 MB/s of keep-up use all of
    it. The planner and the meta say "never"; in the simulation the lag barely moves (the
    optimistic quota lets about one response per quota window through above T, here under
    1 MB/s: the 1 GB is still more than 90% there after 130 s)."""
    plan = plan_throttle(brokers=5, network_bytes_per_s=125e6, bytes_in_per_s=10 * MB,
                         replication_factor=3, bytes_to_move=1000 * MB,
                         throttle_bytes_per_s=30 * MB)
    assert plan.move_time_s == math.inf and not plan.finishes
    assert "never finishes" in plan.to_text()
    trace = simulate(_both(30 * MB))
    assert trace.meta["move_status"] == "never" and trace.meta["completed_ms"] is None
    assert trace.meta["projected_move_time_s"] == math.inf
    assert trace.ticks.replica_lag_bytes.iloc[-1] > 900 * MB


@pytest.mark.parametrize("r", [1, 2, 3, 4])
@pytest.mark.parametrize("inbound", [2 * MB, 5 * MB])
@pytest.mark.parametrize("extra", [10 * MB, 25 * MB])
@pytest.mark.parametrize("followers", [None, 0])
def test_simulated_and_planned_move_times_agree_within_5_percent(r, inbound, extra, followers):
    """A grid of R, IN, T = (F + 1) x IN + extra and F (None: R - 1, or 0): 200 MB over four
    partitions finishes within 5% of the planner's bytes / (T - (F + 1) x IN). (The simulation
    is a little faster: the quota lets about one response per window through above T.)"""
    f = r - 1 if followers is None else followers
    t = (f + 1) * inbound + extra
    s = replace(GB_MOVE, replication_factor=r, in_sync_followers=followers,
                bytes_in_per_s=inbound, partitions=4, log_bytes=50 * MB,
                leader_throttle_bytes_per_s=t, follower_throttle_bytes_per_s=t, tick_ms=50,
                ticks=round(200 * MB / extra * 1.3 * 20) + 100)
    plan = plan_throttle(brokers=s.brokers, network_bytes_per_s=s.network_bytes_per_s,
                         bytes_in_per_s=inbound, replication_factor=r, bytes_to_move=200 * MB,
                         throttle_bytes_per_s=t, in_sync_followers=followers)
    meta = simulate(s).meta
    assert meta["planned_move_time_s"] == pytest.approx(plan.move_time_s)
    assert meta["completed_ms"] is not None
    assert meta["completed_ms"] / 1000 == pytest.approx(plan.move_time_s, rel=0.05)


def test_not_within_this_run_is_not_never():
    """A run shorter than the move reports "not within this run" with the projected time from
    the planner's rule; a throttle at (F + 1) x IN reports "never"."""
    short = simulate(replace(GB_MOVE, ticks=300)).meta
    assert short["move_status"] == "not within this run" and short["completed_ms"] is None
    assert short["projected_move_time_s"] == pytest.approx(100.0)
    assert set(MOVE_STATUS) == {"finished", "not within this run", "never"}


def test_a_throttle_schedule_changes_both_rates_mid_move_and_the_plan_follows_it():
    """40 MB/s for 20 s (10 MB/s net: 200 MB), 20 MB/s to 60 s (-10 MB/s: the lag grows by
    400 MB), then 60 MB/s (30 MB/s net): the 1200 MB left take 40 s more, 100 s in all."""
    s = replace(GB_MOVE, throttle_schedule=((20, 20 * MB), (60, 60 * MB)))
    assert scheduled_move_time_s(1000 * MB, ((0, 10 * MB), (20, -10 * MB), (60, 30 * MB))) == 100
    trace = simulate(s)
    assert trace.meta["planned_move_time_s"] == pytest.approx(100.0)
    assert trace.meta["completed_ms"] / 1000 == pytest.approx(100.0, rel=0.05)
    lag = trace.ticks.set_index("time_ms").replica_lag_bytes
    assert lag[59_900] > lag[20_000]  # the lag grew while the throttle was below 3 x IN
    stopped = simulate(replace(GB_MOVE, throttle_schedule=((10, 0),))).meta
    assert stopped["move_status"] == "never"
    assert "= 0 B/s must be above" in stopped["reason"]


def test_the_rule_is_the_kips_formula_with_zero_followers():
    """F = 0 gives Q&A 1 and Q&A 4 as written; F counted raises the lower end of the range."""
    assert catch_up_bytes_per_s(40 * MB, 10 * MB, 0) == 30 * MB
    assert move_time_s(1.0, 1e9, 1, 40 * MB, 10 * MB) == pytest.approx(100 / 3)
    assert move_time_s(1.0, 1e9, 1, 40 * MB, 10 * MB, in_sync_followers=2) == 100
    assert throttle_bounds(10 * MB, 125 * MB, 3, in_sync_followers=2) == (30 * MB,
                                                                          125 * MB - 10 * MB / 3)
    with pytest.raises(ValueError, match=r"\(F \+ 1\) x IN < T < N - IN/R needs"):
        throttle_bounds(40 * MB, 125 * MB, 3, in_sync_followers=2)


@pytest.mark.parametrize(("change", "message"), [
    ({"replication_factor": 5, "brokers": 2}, r"replication_factor must be <= brokers - 1 \(1; "
                                              r".*\): 5"),
    ({"in_sync_followers": 7}, r"in_sync_followers must be <= replication_factor - 1 \(2; .*\): 7"),
    ({"network_bytes_per_s": math.inf}, r"network_bytes_per_s must be a finite number: inf"),
    ({"bytes_in_per_s": math.inf}, r"bytes_in_per_s must be a finite number: inf"),
    ({"leader_throttle_bytes_per_s": math.inf},
     r"leader_throttle_bytes_per_s \(leader.replication.throttled.rate\) must be a finite number: "
     r"inf"),
    ({"throttle_schedule": ((5, MB), (5, 2 * MB))}, r"throttle_schedule\[1\] from_s must be"),
    ({"throttle_schedule": ((5, -1),)},
     r"throttle_schedule\[0\] rate .* must be a number >= 0: -1"),
    ({"throttle_schedule": (5, MB)}, r"throttle_schedule\[0\] must be a \(from_s, rate\) pair"),
    ({"replica_fetch_max_bytes": 2**31},
     r"replica.fetch.max.bytes\) must be an integer <= 2147483647"),
    ({"bytes_in_per_s": 1e300},
     r"bytes_in_per_s must be <= 4611686018427387904 bytes over the run"),
    ({"network_bytes_per_s": 1e300},
     r"network_bytes_per_s must be <= 4611686018427387904 bytes per tick"),
])
def test_settings_that_cannot_go_together_are_rejected_naming_them(change, message):
    """Cross-field rules (R current replicas plus a destination need R + 1 brokers; at most
    R - 1 followers), finite rates, Java's ranges and a trace that fits in memory."""
    with pytest.raises(ValueError, match=message):
        replace(GB_MOVE, **change)


def test_the_planner_defaults_to_r_minus_1_followers_and_checks_them():
    """``in_sync_followers=None`` is R - 1; more than R - 1 is a ValueError."""
    args = {"brokers": 5, "network_bytes_per_s": 125e6, "bytes_in_per_s": 10 * MB,
            "replication_factor": 3, "bytes_to_move": 1000 * MB}
    plan = plan_throttle(**args, target_completion_s=100)
    assert plan.throttle_bytes_per_s == 40 * MB and plan.throttle_range[0] == 30 * MB
    text = plan.to_text()
    assert "2 in-sync followers" in text and "T - 3 x IN" in text
    assert "follower.replication.throttled.replicas): the new replicas only" in text
    assert "KIP-73's T - IN, no followers counted: 33 s" in text
    with pytest.raises(ValueError, match=r"in_sync_followers must be <= replication_factor - 1"):
        plan_throttle(**args, in_sync_followers=3)


def test_a_trace_too_big_for_memory_is_refused_before_anything_is_allocated(monkeypatch):
    """The trace size is estimated first; above ``KIPVIZ_MAX_TRACE_BYTES`` (default half the
    memory) the scenario names the settings to lower."""
    monkeypatch.setenv("KIPVIZ_MAX_TRACE_BYTES", "1000000")
    with pytest.raises(ValueError, match=r"A reassignment of 10 partitions x 100000 ticks would "
                                         r"need .* \(KIPVIZ_MAX_TRACE_BYTES\): lower "
                                         r"ticks=100000, partitions=10$"):
        replace(GB_MOVE, ticks=100_000)
    assert replace(GB_MOVE, ticks=10_000).ticks == 10_000


def test_a_reassignment_reads_the_trace_limit_as_every_scenario_kind_does(monkeypatch):
    """One limit (kipviz.scenarios.limits.max_trace_bytes): a limit written as a float is read,
    a blank one is no limit, a word or a limit below 1 byte is refused by name."""
    monkeypatch.setenv("KIPVIZ_MAX_TRACE_BYTES", "1e6")
    with pytest.raises(ValueError, match=r"lower ticks=100000, partitions=10$"):
        replace(GB_MOVE, ticks=100_000)
    monkeypatch.setenv("KIPVIZ_MAX_TRACE_BYTES", "  ")
    assert replace(GB_MOVE, ticks=100_000).ticks == 100_000
    for text, rule in (("lots", "a number of bytes"), ("0", ">= 1")):
        monkeypatch.setenv("KIPVIZ_MAX_TRACE_BYTES", text)
        with pytest.raises(ValueError, match=f"KIPVIZ_MAX_TRACE_BYTES must be {rule}: '{text}'"):
            replace(GB_MOVE, ticks=10)


def test_the_meta_blames_the_quota_that_stops_the_move_as_the_planner_would():
    """KIP-73's verdicts, from kipviz.kafka.replication.planning for the planner and the meta
    alike: a follower rate at or below IN never finishes (the follower quota counts the new
    replica alone, not R x IN); a leader rate that nets enough is not blamed when the fetch
    sizes stop the move; a throttle set as --throttle gets the planner's own words."""
    rate = "leader.replication.throttled.rate / follower.replication.throttled.rate"
    follower = replace(GB_MOVE, leader_throttle_bytes_per_s=None,
                       follower_throttle_bytes_per_s=8e6, ticks=50)
    assert simulate(follower).meta["reason"] == (
        f"{rate} = 8000000 B/s must be above bytes_in_per_s (IN) = 1e+07: no move ever finishes")
    both = replace(GB_MOVE, leader_throttle_bytes_per_s=100e6, follower_throttle_bytes_per_s=8e6,
                   ticks=50)
    assert simulate(both).meta["reason"] == simulate(follower).meta["reason"]
    fetch_bound = replace(GB_MOVE, leader_throttle_bytes_per_s=50e6,
                          follower_throttle_bytes_per_s=None, replica_fetch_max_bytes=1000,
                          ticks=50)
    assert simulate(fetch_bound).meta["reason"] == (
        "the network or the fetch sizes leave no room above IN: no move ever finishes")
    for throttle in (25e6, 30e6, 124e6):
        meta = simulate(replace(_both(throttle), ticks=50)).meta
        plan = plan_throttle(brokers=5, network_bytes_per_s=125e6, bytes_in_per_s=10 * MB,
                             replication_factor=3, bytes_to_move=meta["bytes_to_move"],
                             throttle_bytes_per_s=throttle)
        assert meta["reason"] == plan.reason == throttle_verdict(
            throttle, 10 * MB, 125e6, 3, in_sync_followers=2) != ""


def test_the_advice_counts_the_followers_against_the_leader_rate_only():
    """R = 3, IN = 10 MB/s: a leader rate of 30 MB/s never finishes (R x IN), the same follower
    rate is fine (the follower quota counts the new replica alone: T - IN)."""
    from kipviz.kafka.config.advice import config_warnings
    from kipviz.kafka.config.settings import BrokerConfig

    kw = {"bytes_in_per_s": 10e6, "network_bytes_per_s": 125e6, "replication_factor": 3}
    leader = BrokerConfig(leader_replication_throttled_rate_bytes_per_s=30_000_000)
    (note,) = config_warnings(broker=leader, **kw)
    assert "is at or below the inbound rate IN = 10,000,000 bytes/s (10 MB/s) times R = 3" in note
    assert "2 in-sync followers" in note and "never finishes" in note
    follower = BrokerConfig(follower_replication_throttled_rate_bytes_per_s=30_000_000)
    assert config_warnings(broker=follower, **kw) == []


@pytest.mark.parametrize("name", ["kipviz.kafka.replication.planning",
                                  "kipviz.kafka.replication.reassignment",
                                  "kipviz.curves.reassignment.compare",
                                  "kipviz.scenarios.reassignment.meta"])
def test_the_new_modules_list_sorted_public_names_and_their_doctests_run(name):
    """As tests/test_package.py checks for the older modules: a sorted ``__all__`` whose names
    exist and have docstrings, and docstring examples that pass."""
    import doctest
    import importlib

    module = importlib.import_module(name)
    assert list(module.__all__) == sorted(module.__all__)
    for public in module.__all__:
        obj = getattr(module, public)
        assert isinstance(obj, str) or obj.__doc__, public
    assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize("change", [{"partitions": 10**9}, {"partitions": 2**31 - 1},
                                    {"ticks": 2**31 - 1}])
def test_huge_runs_are_refused_at_once_naming_ticks_and_partitions(change, monkeypatch):
    """A billion partitions or ticks: refused before any per-partition tuple or array is built
    (it answers at once), naming the settings to lower."""
    monkeypatch.setenv("KIPVIZ_MAX_TRACE_BYTES", str(8 * 2**30))
    with pytest.raises(ValueError, match=r"A reassignment of .* ticks would need .* lower ticks="):
        replace(GB_MOVE, **change)
    with pytest.raises(ValueError, match=r"log_bytes must be an integer >= 0 and <= "
                                         r"4611686018427387904"):
        replace(GB_MOVE, log_bytes=2**63)
