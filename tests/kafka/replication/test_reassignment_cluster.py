"""Issue 26: a reassignment as a cluster. Kafka's rules on small plans by hand (who leads after a
move, who is counted, IN split by size), the flow schedule (destination-bound, leader-bound,
disjoint moves, a move that never finishes), and the cluster kernel against the planner."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.apps.planner.files import load_partition_sizes, load_reassignment
from kipviz.kafka.replication.cluster import (
    broker_loads,
    leader_after_move,
    make_move,
    partition_moves,
    split_bytes_in,
)
from kipviz.kafka.replication.flow import fill_into, fill_work, flow_schedule, max_min_fair
from kipviz.scenarios.reassignment.cluster import (
    ClusterReassignmentScenario,
    simulate_cluster,
)
from tests.strategies import cluster_reassignment_plans, examples

MB = 1e6
SAMPLE_MOVING = ("orders-0", "orders-1", "payments-0")


def _sample_moves(scale: float = 1.0):
    plan = load_reassignment("data/reassignment.json", current="data/current-assignment.json")
    sizes = {k: round(v * scale) for k, v in load_partition_sizes("data/log-dirs.json").items()}
    moving = sum(sizes[k] for k in SAMPLE_MOVING)
    rates = {k: 10 * MB * sizes[k] / moving for k in SAMPLE_MOVING}
    return partition_moves(plan, sizes, rates)


def _both(rate, brokers=range(10)):
    return {b: rate for b in brokers}


def test_a_removed_leader_hands_over_to_the_first_target_and_a_kept_one_stays():
    """PartitionChangeBuilder.electAnyLeader: the current leader while it is a target, else the
    first target; a new leader that was not a source counts no followers (not in the list)."""
    assert leader_after_move((1, 2, 3), (4, 2, 3), 1) == 4
    assert leader_after_move((1, 2), (4, 1), 1) == 1
    move = make_move("t", 0, (1, 2, 3), (4, 5, 3), size_bytes=10)
    assert (move.leader, move.leader_after, move.added, move.removed) == (1, 4, (4, 5), (1, 2))
    assert (move.followers, move.followers_after) == (2, 0)
    kept = make_move("t", 0, (1, 2, 3), (1, 2, 4), size_bytes=10)
    assert (kept.leader_after, kept.followers_after) == (1, 1)


def test_the_sample_files_give_each_partition_its_leader_sources_and_targets():
    """orders-0 and payments-0 are led by broker 1, orders-1 by broker 2, all land on 4;
    orders-2 is listed unchanged (leader-listed by --throttle, nothing to copy)."""
    moves = {str(m.tp): m for m in _sample_moves()}
    assert {k: (m.leader, m.added) for k, m in moves.items()} == {
        "orders-0": (1, (4,)), "orders-1": (2, (4,)), "orders-2": (3, ()),
        "payments-0": (1, (4,))}
    assert moves["payments-0"].leader_after == 1


def test_a_topic_rate_is_split_over_its_partitions_by_size_and_may_not_be_given_twice():
    """Pinned: a topic's IN is split over its partitions by size; a partition's own rate wins
    only if its topic is not also given."""
    assert split_bytes_in({"a": 9.0, "b-0": 1.0}, {"a-0": 2, "a-1": 1, "b-0": 5}) == {
        "b-0": 1.0, "a-0": 6.0, "a-1": 3.0}
    with pytest.raises(ValueError, match="must give topic 'a' or its partitions, not both"):
        split_bytes_in({"a": 9.0, "a-0": 1.0}, {"a-0": 2, "a-1": 1})
    with pytest.raises(ValueError, match=r"^bytes_in_per_s\['a'\] must be a number >= 0: -1"):
        split_bytes_in({"a": -1}, {"a-0": 2})


def test_a_leader_that_is_not_a_current_replica_is_refused():
    """The leader of a moving partition is one of its current replicas."""
    with pytest.raises(ValueError, match=r"^leader of t-0 must be one of its current replicas "
                                         r"\[1, 2\]: 3$"):
        make_move("t", 0, (1, 2), (1, 4), size_bytes=1, leader=3)


def test_per_broker_rules_on_the_sample_give_one_hour_at_35_and_056_at_55():
    """Broker 4 copies 90 GB and its follower quota records the new replicas' own IN (10 MB/s):
    90e9 / (T - 10 MB/s) = 3600 s at 35 MB/s, 2000 s at 55; leader 1 counts IN x (followers +
    new replicas) of orders-0 (x3) and payments-0 (x2)."""
    moves = _sample_moves()
    for rate, hours in ((35 * MB, 1.0), (55 * MB, 0.5556)):
        loads = broker_loads(moves, _both(rate), _both(rate))
        assert loads[4].bytes_in == 90_000_000_000
        assert loads[4].destination_s / 3600 == pytest.approx(hours, rel=1e-3)
        assert loads[1].leader_counted_in == pytest.approx(
            3 * 10 * MB * 40 / 90 + 2 * 10 * MB * 12 / 90)
        assert loads[1].leader_s < loads[4].destination_s


def test_the_flow_schedule_on_the_sample_is_bound_by_broker_4s_follower_quota():
    """The planned move time is the fluid schedule's: about 1.0 h at 35 MB/s and 0.56 h at 55,
    broker 4's follower quota the bottleneck."""
    moves = _sample_moves()
    at35 = flow_schedule(moves, leader_rates=_both(35 * MB), follower_rates=_both(35 * MB))
    at55 = flow_schedule(moves, leader_rates=_both(55 * MB), follower_rates=_both(55 * MB))
    assert at35.move_time_s / 3600 == pytest.approx(1.0, rel=0.01)
    assert at55.move_time_s / 3600 == pytest.approx(0.5573, rel=0.001)
    assert (at35.bottleneck_broker, at35.bottleneck) == (4, "broker 4's follower quota")
    assert set(at35.broker_move_time_s) == {1, 2, 4}


def test_max_min_fair_gives_equal_shares_at_a_binding_limit_and_caps_the_rest():
    """Progressive filling: two replicas share a 30 limit, the third stops at the cap."""
    rates, why = max_min_fair(np.array([[0, 0, 1]]), [np.array([30.0, 100.0])], 20.0)
    assert (rates.tolist(), why.tolist()) == ([15.0, 15.0, 20.0], [0, 0, 1])


def test_a_filling_that_reuses_its_last_groups_gives_what_a_fresh_one_gives():
    """fill_into with fresh=False (the kernel's tick after tick, same replicas, new
    capacities) keeps the member lists of its last call and answers as a fresh call would."""
    rng = np.random.default_rng(30)
    gid = np.stack([rng.integers(0, 4, 40), 4 + rng.integers(0, 5, 40), 9 + np.arange(40)])
    work = fill_work(3, 40, 49)
    for call in range(5):
        capacity = rng.choice([0.0, 3.0, 50.0, 200.0, math.inf], 49)
        x, why = np.zeros(40), np.zeros(40, np.int64)
        fill_into(gid, 40, capacity, 49, 10.0, 1e-9, x, why, *work, call == 0)
        want, want_why = max_min_fair(gid - np.array([[0], [4], [9]]),
                                      [capacity[:4], capacity[4:9], capacity[9:]], 10.0)
        assert x.tolist() == want.tolist() and why.tolist() == want_why.tolist()


def test_a_leader_sending_to_two_destinations_is_the_bottleneck():
    """One leader (quota 20 MB/s) sends 1 GB to each of brokers 2 and 3: 2 GB / 20 MB/s."""
    moves = [make_move("t", 0, (1,), (2,), size_bytes=10**9),
             make_move("t", 1, (1,), (3,), size_bytes=10**9)]
    plan = flow_schedule(moves, leader_rates=_both(20 * MB), follower_rates=_both(20 * MB))
    assert plan.move_time_s == pytest.approx(100.0)
    assert plan.bottleneck_broker == 1 and plan.bottleneck == "broker 1's leader quota"


def test_a_destination_fed_by_two_leaders_is_the_bottleneck():
    """Brokers 1 and 2 each send 1 GB to broker 3 (quota 20 MB/s): 2 GB / 20 MB/s."""
    moves = [make_move("t", 0, (1,), (3,), size_bytes=10**9),
             make_move("t", 1, (2,), (3,), size_bytes=10**9)]
    plan = flow_schedule(moves, leader_rates=_both(20 * MB), follower_rates=_both(20 * MB))
    assert plan.move_time_s == pytest.approx(100.0)
    assert plan.bottleneck == "broker 3's follower quota"


def test_two_disjoint_moves_run_in_parallel_and_the_slower_decides():
    """1 -> 2 with 1 GB and 3 -> 4 with 2 GB at 20 MB/s: 50 s and 100 s, the move takes 100 s."""
    moves = [make_move("a", 0, (1,), (2,), size_bytes=10**9),
             make_move("b", 0, (3,), (4,), size_bytes=2 * 10**9)]
    plan = flow_schedule(moves, leader_rates=_both(20 * MB), follower_rates=_both(20 * MB))
    assert plan.partition_move_time_s == pytest.approx({"a-0": 50.0, "b-0": 100.0})
    assert plan.broker_move_time_s == pytest.approx({1: 50.0, 2: 50.0, 3: 100.0, 4: 100.0})
    assert plan.move_time_s == pytest.approx(100.0)


def test_an_unlimited_quota_holds_no_replica_back():
    """Broker 3's follower quota (20 MB/s) binds its two new replicas; 1 -> 2 has no quota and
    moves at replica.fetch.max.bytes per 10 ms fetch (1 GB in 9.54 s), and the bottleneck is
    broker 3's follower quota, never an unlimited one."""
    moves = [make_move("t", 0, (1,), (2,), size_bytes=10**9),
             make_move("t", 1, (1,), (3,), size_bytes=10**9),
             make_move("t", 2, (4,), (3,), size_bytes=10**9)]
    plan = flow_schedule(moves, leader_rates=dict.fromkeys(range(1, 5)),
                         follower_rates={1: None, 2: None, 3: 20 * MB, 4: None})
    assert plan.partition_move_time_s == pytest.approx(
        {"t-0": 10**9 / (1048576 / 0.01), "t-1": 100.0, "t-2": 100.0})
    assert plan.bottleneck == "broker 3's follower quota"


def test_a_move_whose_destination_quota_is_below_the_new_replicas_in_never_finishes():
    """Broker 2's follower quota (5 MB/s) is not above the IN of its new replica (6 MB/s):
    the move time is inf and the reason names the partition, the broker and the limit."""
    moves = [make_move("a", 0, (1, 3), (2, 3), size_bytes=10**9, bytes_in_per_s=6 * MB)]
    plan = flow_schedule(moves, leader_rates=_both(50 * MB),
                         follower_rates={1: 50 * MB, 2: 5 * MB, 3: 50 * MB})
    assert plan.move_time_s == math.inf
    assert plan.bottleneck_broker == 2
    assert plan.reason.startswith("a-0 never reaches broker 2: broker 2's follower quota (5 MB/s)")


def test_the_simulation_agrees_with_the_planner_on_the_sample_at_35_and_55():
    """The sample plan (sizes / 10 to keep the test short: minutes of moving, not an hour):
    the cluster kernel's move time within 5% of the flow schedule's."""
    moves = _sample_moves(0.1)
    for rate in (35 * MB, 55 * MB):
        trace = simulate_cluster(ClusterReassignmentScenario(
            moves, leader_throttle_bytes_per_s=rate, follower_throttle_bytes_per_s=rate))
        meta = trace.meta
        assert meta["move_time_s"] == pytest.approx(meta["planned_move_time_s"], rel=0.05)
        assert meta["bottleneck_broker"] == 4


def test_one_broker_throttle_can_be_lowered_and_slows_only_its_moves():
    """broker_throttle_bytes_per_s sets both of one broker's rates: broker 4 at 20 MB/s bounds
    the move at 9 GB / (20 - 10) MB/s."""
    scenario = ClusterReassignmentScenario(_sample_moves(0.1), leader_throttle_bytes_per_s=55e6,
                                           follower_throttle_bytes_per_s=55e6,
                                           broker_throttle_bytes_per_s=((4, 20e6),))
    assert scenario.rates()[1][4] == 20e6 and scenario.rates()[1][1] == 55e6
    meta = simulate_cluster(scenario).meta
    assert meta["planned_move_time_s"] == pytest.approx(900.0, rel=0.01)
    assert meta["move_time_s"] == pytest.approx(900.0, rel=0.05)


def test_bad_cluster_scenarios_are_refused_in_the_one_error_shape():
    """moves must be PartitionMoves; a broker override names a broker of the plan; rates are
    Kafka's."""
    moves = _sample_moves(0.1)
    with pytest.raises(ValueError, match=r"^moves must be a non-empty tuple of PartitionMove"):
        ClusterReassignmentScenario(())
    with pytest.raises(ValueError, match=r"^broker_throttle_bytes_per_s\[0\] broker must be a "
                                         r"broker of the plan \[1, 2, 3, 4\]: 9$"):
        ClusterReassignmentScenario(moves, broker_throttle_bytes_per_s=((9, 1e6),))
    with pytest.raises(ValueError, match=r"^leader_throttle_bytes_per_s "
                                         r"\(leader.replication.throttled.rate\) must be"):
        ClusterReassignmentScenario(moves, leader_throttle_bytes_per_s=-1)


@settings(max_examples=examples(0.2))
@given(cluster_reassignment_plans())
def test_planner_and_simulation_agree_on_random_plans_and_no_quota_runs_ahead(plan):
    """The flow schedule's move time is the simulation's within 5% (or one quota window, 1 s,
    for moves of seconds), and no broker's follower quota records more than T x (t + the
    quota's 11 s window) plus one response per fetcher.

    Both share a binding broker's quota max-min fair (kipviz.scenarios.reassignment.share, the
    planner's own filling), the simulation per tick within the quota's windowed allowance,
    fetch limits and network. Over 1,600 random and 400 derandomized plans of this strategy the
    worst gap was 3.9% but for one plan: -6.0%, simulated 14.81 s against 15.76 s planned (T =
    60 MB/s, five partitions from brokers 1 and 2 to 0, 1 and 2). That is the quota window's,
    not the sharing's: Kafka's SimpleRate measures over at least one window
    (replication.quota.window.size.seconds) from the first byte, so a broker binding from the
    start sends T x 1 s ahead of the fluid plan and finishes up to 1 s sooner. Under Kafka's
    gate, which leaves the split to fetch timing, 3 of 400 were beyond 5% (-12.2% at worst)."""
    moves, rate = plan
    trace = simulate_cluster(ClusterReassignmentScenario(
        moves, leader_throttle_bytes_per_s=rate, follower_throttle_bytes_per_s=rate))
    meta = trace.meta
    assert meta["move_time_s"] == pytest.approx(meta["planned_move_time_s"], rel=0.05, abs=1.0)
    fetchers = Counter((d, s) for m in moves for d in m.added
                       for s in {m.leader, m.leader_after} - {d})
    response: Counter[int] = Counter()
    for (d, _), n in fetchers.items():
        response[d] += min(10485760, 1048576 * n)
    for broker, rows in trace.brokers.groupby("broker"):
        received = rows.received_bytes.cumsum().to_numpy()
        seconds = (rows.time_ms.to_numpy() + 10) / 1000
        assert (received <= rate * (seconds + 11) + response[broker]).all()
