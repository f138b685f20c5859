"""KIP-73 planner: reassignment JSON, the KIP's Q&A numbers through ``plan_throttle``, reports.

The sample reassignment (``tests/data/reassignment.json``) against ``CURRENT`` below moves
orders-2 to broker 3 and orders-0, orders-1 and payments-0 to broker 4. Rates are per broker in
bytes/s; MB is 10^6 bytes, as in the KIP's arithmetic.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given

from kipviz.apps.planner.files import load_partition_sizes, load_reassignment
from kipviz.apps.planner.throttle import (
    ThrottlePlan,
    log_bytes_to_copy,
    plan_log_dir_move,
    plan_throttle,
)
from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.replication.planning import move_time_s
from kipviz.kafka.replication.quota import REPLICATION_QUOTA_WINDOW_NUM
from kipviz.kafka.replication.reassignment import PartitionAssignment
from tests.strategies import throttle_ranges

MB = 1_000_000
DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLE = DATA / "reassignment.json"
CURRENT = {"version": 1, "partitions": [
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]},
    {"topic": "orders", "partition": 1, "replicas": [2, 3, 1]},
    {"topic": "orders", "partition": 2, "replicas": [1, 2, 4]},
    {"topic": "payments", "partition": 0, "replicas": [1, 2]},
    {"topic": "payments", "partition": 1, "replicas": [2, 3]},
]}
SIZES = {"orders-0": 100 * MB, "orders-1": 200 * MB, "orders-2": 300 * MB,
         "payments-0": 50 * MB}
# The KIP's own arithmetic: no in-sync follower counted (in_sync_followers=0); the tests of
# what --throttle really counts (F = R - 1, the default) are further down.
CLUSTER = {"brokers": 4, "network_bytes_per_s": 100 * MB, "bytes_in_per_s": 10 * MB,
           "replication_factor": 2, "in_sync_followers": 0}


def _entry(**fields):
    return {"version": 1, "partitions": [
        {"topic": "t", "partition": 0, "replicas": [1, 2]} | fields]}


# --- reassignment JSON ---------------------------------------------------------------------------


def test_the_sample_file_parses_as_kafka_reassign_partitions_writes_it():
    """Four entries in file order, replicas and log dirs as tuples; no current assignment."""
    plan = load_reassignment(SAMPLE)
    assert plan.partitions[0] == PartitionAssignment("orders", 0, (1, 2, 4), ("any",) * 3)
    assert [str(e.tp) for e in plan.partitions] == ["orders-0", "orders-1", "orders-2",
                                                    "payments-0"]
    assert plan.current is None
    with pytest.raises(ValueError, match=r"moves need the current assignment"):
        plan.moves()


def test_a_replica_moves_when_its_broker_is_new_to_the_partition():
    """orders-2 [1,2,4] -> [3,1,2] adds broker 3; orders-0 [1,2,3] -> [1,2,4], orders-1
    [2,3,1] -> [2,3,4] and payments-0 [1,2] -> [4,1] add broker 4. Broker 3 copies 300 MB,
    broker 4 100 + 200 + 50 = 350 MB: 650 MB in all. payments-1 is not reassigned."""
    plan = load_reassignment(SAMPLE, current=CURRENT)
    assert plan.moves() == {
        3: (TopicPartition("orders", 2),),
        4: (TopicPartition("orders", 0), TopicPartition("orders", 1),
            TopicPartition("payments", 0)),
    }
    assert plan.bytes_per_broker(SIZES) == {3: 300 * MB, 4: 350 * MB}
    assert plan.bytes_to_move(SIZES) == 650 * MB
    assert plan.brokers() == (1, 2, 3, 4)


def test_throttled_replica_lists_are_the_current_leaders_side_and_the_added_followers():
    """As Kafka's reassignment tool sets them, in ``partition:broker`` form, sorted as Java's
    ``TreeSet`` of strings: the leader list holds every current replica of a listed partition,
    the follower list the added ones; a listed partition that gains nothing is still in the
    leader list (``calculateLeaderThrottles``), and "10:1" sorts before "2:1"."""
    plan = load_reassignment(SAMPLE, current=CURRENT)
    assert plan.throttled_replicas() == {
        "orders": ("0:1,0:2,0:3,1:1,1:2,1:3,2:1,2:2,2:4", "0:4,1:4,2:3"),
        "payments": ("0:1,0:2", "0:4"),
    }
    same = {"version": 1, "partitions": [{"topic": "t", "partition": 10, "replicas": [1, 2]},
                                         {"topic": "t", "partition": 2, "replicas": [1, 2]}]}
    moved = {"version": 1, "partitions": [{"topic": "t", "partition": 10, "replicas": [1, 2]},
                                          {"topic": "t", "partition": 2, "replicas": [1, 3]}]}
    assert load_reassignment(moved, current=same).throttled_replicas() == {
        "t": ("10:1,10:2,2:1,2:2", "2:3")}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"version": 2, "partitions": []}, r"reassignment: version must be 1"),
        ({"version": 1, "partitions": []}, r"partitions must be a non-empty list"),
        ({"version": 1, "partitions": ["t-0"]}, r"partitions\[0\] must be an object"),
        (_entry(topic=""), r"partitions\[0\]: topic must be a non-empty string"),
        (_entry(partition=-1), r"partitions\[0\] \(t\): partition must be an integer >= 0: -1"),
        (_entry(partition=True), r"partition must be an integer >= 0: True"),
        (_entry(replicas=[]), r"partitions\[0\] \(t-0\): replicas must be a non-empty list"),
        (_entry(replicas=[1, -2]), r"\(t-0\): replicas must be a non-empty list of broker ids"),
        (_entry(replicas=[1, 1]), r"\(t-0\): replicas must be distinct broker ids: \[1, 1\]"),
        (_entry(log_dirs=["any"]), r"\(t-0\): log_dirs must be a list of strings as long as "
                                   r"replicas \(2\)"),
        ({"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1]}] * 2},
         r"partitions\[1\] \(t-0\) is listed twice"),
    ],
)
def test_malformed_reassignment_entries_are_rejected_naming_the_entry_and_the_rule(data, message):
    """Kafka's rules for the reassignment JSON; the error says which entry broke which rule."""
    with pytest.raises(ValueError, match=message):
        load_reassignment(data)


def test_moves_need_a_current_entry_and_a_size_for_every_moving_partition():
    """A reassigned partition missing from the current assignment, or a moving partition
    without a size, is an error naming the partition."""
    current = {"version": 1, "partitions": CURRENT["partitions"][1:]}
    with pytest.raises(ValueError, match=r"current assignment has no entry for orders-0"):
        load_reassignment(SAMPLE, current=current).moves()
    plan = load_reassignment(SAMPLE, current=CURRENT)
    with pytest.raises(ValueError, match=r"partition_sizes has no size for 'payments-0'"):
        plan.bytes_per_broker({k: v for k, v in SIZES.items() if k != "payments-0"})
    with pytest.raises(ValueError, match=r"partition_sizes\['orders-2'\] must be an integer >= 0: "
                                         r"-1"):
        plan.bytes_per_broker(SIZES | {"orders-2": -1})


# --- the KIP's Q&A through the planner -----------------------------------------------------------


@pytest.mark.parametrize(("brokers", "expected"), [(5, 10 * MB), (500, 2 * MB)])
def test_the_kips_replica_fetch_response_sizes_for_5_and_500_brokers(brokers, expected):
    """Q&A 5: a 1 MB/s leader quota on a 100 MB/s network with a 10 s window total allows
    1 MB/s * 10 s = 10 MB with 5 brokers; with 500 the follower's network share binds:
    10 s * 100 MB/s / 500 = 2 MB. Both are workable with IN 0.5 MB/s and R 3, and 1 GB moves in
    1000 MB / (1 - 0.5) MB/s = 2000 s."""
    plan = plan_throttle(brokers=brokers, network_bytes_per_s=100 * MB, bytes_in_per_s=MB // 2,
                         replication_factor=3, bytes_to_move=1000 * MB,
                         throttle_bytes_per_s=MB, in_sync_followers=0,
                         window_total_s=REPLICATION_QUOTA_WINDOW_NUM - 1)
    assert plan.replica_fetch_response_max_bytes == expected
    assert plan.move_time_s == 2000
    assert plan.workable and plan.require_workable() is plan


def test_without_a_target_the_middle_of_the_range_is_recommended():
    """IN 10, N 100, R 2: 10 < T < 95 MB/s, middle 52.5 MB/s; 650 MB / 42.5 MB/s = 15.3 s.
    Clients keep N - IN/R - T = 100 - 5 - 52.5 = 42.5 MB/s; responses stay below
    11 s * min(52.5, 100 / 4) MB/s = 275 MB."""
    plan = plan_throttle(**CLUSTER, bytes_to_move=650 * MB)
    assert plan.throttle_range == (10 * MB, 95 * MB)
    assert plan.throttle_bytes_per_s == 52_500_000
    assert plan.move_time_s == pytest.approx(650 / 42.5)
    assert plan.finishes and plan.reason == ""
    assert plan.client_bytes_per_s == 42.5 * MB
    assert plan.replica_fetch_response_max_bytes == 275 * MB


def test_a_reachable_target_gets_the_smallest_throttle_that_meets_it():
    """650 MB in 20 s needs T - IN = 32.5 MB/s: T = 42.5 MB/s, which moves it in exactly 20 s."""
    plan = plan_throttle(**CLUSTER, bytes_to_move=650 * MB, target_completion_s=20)
    assert plan.throttle_bytes_per_s == 42_500_000
    assert plan.move_time_s == 20
    assert plan.client_bytes_per_s == 52.5 * MB


def test_an_unreachable_target_is_reported_with_the_throttle_it_would_need():
    """650 MB in 5 s needs 10 + 130 = 140 MB/s, above N - IN/R = 95 MB/s: no throttle."""
    plan = plan_throttle(**CLUSTER, bytes_to_move=650 * MB, target_completion_s=5)
    assert plan.throttle_bytes_per_s is None and plan.move_time_s is None
    assert not plan.finishes and not plan.workable
    assert "needs leader.replication.throttled.rate" in plan.reason
    assert "140000000 B/s, outside 1e+07 < T < 9.5e+07" in plan.reason
    with pytest.raises(ValueError, match=r"target_completion_s = 5 s needs"):
        plan.require_workable()


@pytest.mark.parametrize("throttle", [10 * MB, 4 * MB])
def test_a_throttle_at_or_below_the_inbound_rate_never_finishes(throttle):
    """T <= IN: the catch-up never gains on the writes (Q&A 1), reported, not raised;
    ``require_workable`` raises naming the setting."""
    plan = plan_throttle(**CLUSTER, bytes_to_move=650 * MB, throttle_bytes_per_s=throttle)
    assert plan.move_time_s == math.inf and not plan.finishes
    assert "never finishes" in plan.to_text()
    with pytest.raises(ValueError, match=rf"leader.replication.throttled.rate / follower"
                                         rf".replication.throttled.rate = {throttle} B/s must be "
                                         r"above bytes_in_per_s \(IN\) = 1e\+07: no move ever"):
        plan.require_workable()


def test_an_empty_range_is_reported_with_its_reason():
    """IN 60, N 100, R 1: N - IN/R = 40 < IN, so no throttle is workable; a given one is still
    costed: 100 MB at T 70 MB/s moves in 100 / 10 = 10 s but leaves clients -30 MB/s. With
    nothing to move, T below IN "finishes" at once but is still outside the range."""
    cluster = CLUSTER | {"bytes_in_per_s": 60 * MB, "replication_factor": 1}
    plan = plan_throttle(**cluster, bytes_to_move=100 * MB)
    assert plan.throttle_range is None and plan.throttle_bytes_per_s is None
    assert plan.range_reason.startswith("no workable throttle: IN < T < N - IN/R")
    assert "workable range: none" in plan.to_text()
    given_t = plan_throttle(**cluster, bytes_to_move=100 * MB, throttle_bytes_per_s=70 * MB)
    assert given_t.move_time_s == 10 and given_t.finishes and not given_t.workable
    assert given_t.client_bytes_per_s == -30 * MB
    nothing = plan_throttle(**CLUSTER, bytes_to_move=0, throttle_bytes_per_s=5 * MB)
    assert nothing.move_time_s == 0 and nothing.finishes and not nothing.workable
    assert nothing.reason.endswith("no move ever finishes")


def test_a_throttle_above_the_range_finishes_but_takes_client_bandwidth():
    """T = 96 MB/s is not below 95: the move finishes in 650 / 86 s, clients are 1 MB/s short."""
    plan = plan_throttle(**CLUSTER, bytes_to_move=650 * MB, throttle_bytes_per_s=96 * MB)
    assert plan.finishes and not plan.workable
    assert plan.client_bytes_per_s == -1 * MB
    assert "clients lose bandwidth" in plan.reason


def test_the_report_prints_the_kafka_configs_commands():
    """Rates on every broker involved, replica lists per topic in bracketed ``partition:broker``
    form, and the largest safe ``replica.fetch.response.max.bytes`` beside Kafka's default."""
    plan = plan_throttle(**CLUSTER, bytes_to_move=650 * MB, target_completion_s=20)
    text = plan.to_text(load_reassignment(SAMPLE, current=CURRENT))
    cmd = "kafka-configs.sh --bootstrap-server localhost:9092"
    assert (f"{cmd} --entity-type brokers --entity-name 3 --alter --add-config "
            "leader.replication.throttled.rate=42500000,"
            "follower.replication.throttled.rate=42500000") in text
    assert (f"{cmd} --entity-type topics --entity-name payments --alter --add-config "
            "'leader.replication.throttled.replicas=[0:1,0:2],"
            "follower.replication.throttled.replicas=[0:4]'") in text
    assert text.count("--entity-type brokers") == 4
    assert "move time: 20 s (KIP-73's T - IN, no followers counted: 20 s)" in text
    assert "below 275000000 (default 10485760)" in text
    assert "--entity-name BROKER_ID" in plan.to_text()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"bytes_in_per_s": -1}, r"bytes_in_per_s must be a number >= 0: -1"),
        ({"network_bytes_per_s": -5}, r"network_bytes_per_s must be a number > 0: -5"),
        ({"throttle_bytes_per_s": -1}, r"throttle_bytes_per_s \(leader.replication.throttled"
                                       r".rate / follower.replication.throttled.rate\) must be "
                                       r"a number >= 0: -1"),
        ({"bytes_to_move": -1}, r"bytes_to_move must be a number >= 0: -1"),
        ({"brokers": 0}, r"brokers must be an integer >= 1: 0"),
        ({"replication_factor": 0}, r"replication_factor must be an integer >= 1: 0"),
        ({"target_completion_s": 0}, r"target_completion_s must be a number > 0: 0"),
        ({"target_completion_s": 1, "throttle_bytes_per_s": 1},
         r"give target_completion_s or throttle_bytes_per_s, not both"),
    ],
)
def test_bad_planner_arguments_are_rejected_naming_the_argument_and_the_rule(change, message):
    """Negative rates and sizes, fewer than one broker or replica, and contradictory requests."""
    args = CLUSTER | {"bytes_to_move": MB} | change
    with pytest.raises(ValueError, match=message):
        plan_throttle(**args)


# --- properties ----------------------------------------------------------------------------------


@given(**throttle_ranges)
def test_within_the_range_a_higher_throttle_never_gives_a_longer_move(
        inbound, extra, r, moved, a, b):
    """For IN < T1 <= T2 < N - IN/R, the move at T2 takes no longer than at T1, and both agree
    with ``quota.move_time_s`` on the cluster total."""
    network = inbound + inbound / r + extra + 2
    lo, hi = sorted((a, b))
    t1 = inbound + 1 + math.floor(lo * (extra - 0.5))
    t2 = inbound + 1 + math.floor(hi * (extra - 0.5))
    plans = [plan_throttle(brokers=3, network_bytes_per_s=network, bytes_in_per_s=inbound,
                           replication_factor=r, bytes_to_move=moved, throttle_bytes_per_s=t,
                           in_sync_followers=0)
             for t in (t1, t2)]
    assert all(isinstance(p, ThrottlePlan) and p.workable for p in plans)
    assert plans[1].move_time_s <= plans[0].move_time_s
    assert plans[0].move_time_s == move_time_s(1.0, moved, 1, t1, inbound)


def test_partition_sizes_load_from_kafka_log_dirs_output_or_a_flat_mapping():
    """kafka-log-dirs --describe output gives each partition its largest replica, futures aside."""
    sizes = load_partition_sizes(DATA / "log-dirs.json")
    assert sizes == {"orders-0": 40_000_000_000, "orders-1": 38_000_000_000,
                     "orders-2": 41_000_000_000, "payments-0": 12_000_000_000}
    future = {"brokers": [{"broker": 1, "logDirs": [{"partitions": [
        {"partition": "t-0", "size": 10, "isFuture": False},
        {"partition": "t-0", "size": 99, "isFuture": True}]}]}]}
    assert load_partition_sizes(future) == {"t-0": 10}
    assert load_partition_sizes({"t-0": 5}) == {"t-0": 5}
    plan = load_reassignment(DATA / "reassignment.json", current=DATA / "current-assignment.json")
    assert plan.bytes_per_broker(sizes) == {4: 40_000_000_000 + 38_000_000_000 + 12_000_000_000}
    with pytest.raises(ValueError, match="not kafka-log-dirs --describe output"):
        load_partition_sizes({"brokers": [{"logDirs": [{"partitions": [{"size": 1}]}]}]})
    with pytest.raises(ValueError, match=r"partition_sizes\['t-0'\] must be an integer >= 0: -1"):
        load_partition_sizes({"t-0": -1})


# --- files, topic names and shell quoting (what a user's own files and names bring) -----------


def test_saved_kafka_log_dirs_output_with_its_header_lines_reads(tmp_path):
    """``kafka-log-dirs --describe`` prints two status lines before its JSON: they are skipped."""
    saved = tmp_path / "log-dirs.txt"
    saved.write_text("Querying brokers for log directories information\n"
                     "Received log directory information from brokers 1,2\n"
                     + (DATA / "log-dirs.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert load_partition_sizes(saved) == load_partition_sizes(DATA / "log-dirs.json")


@pytest.mark.parametrize(("text", "message"), [
    ("", r"is not JSON: it is empty"),
    ("Querying brokers for log directories information\n", r"it holds no JSON object"),
    ('Querying brokers\n{"version": 1,\n "partitions": [}\n',
     r", line 3, column 17: not JSON: Expecting value"),
])
def test_unreadable_files_are_errors_naming_the_file_and_line(tmp_path, text, message):
    """Empty, malformed or header-only files: the error names the file and, for bad JSON, the
    line in the file (header lines counted)."""
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=rf"reassignment file '.*bad.json'.*{message}"):
        load_reassignment(bad)
    with pytest.raises(ValueError, match=r"partition sizes file '.*' cannot be read"):
        load_partition_sizes(tmp_path)  # a directory


@pytest.mark.parametrize(("topic", "message"), [
    ("x; rm -rf ~ #", r"topic name 'x; rm -rf ~ #' is illegal"),
    ("a" * 250, r"at most 249 characters long: 250 characters"),
    ("..", r"cannot be '.' or '..'"),
])
def test_topic_names_follow_kafkas_rules(topic, message):
    """``Topic.validate``: 1..249 characters of [a-zA-Z0-9._-], not '.' or '..'."""
    with pytest.raises(ValueError, match=message):
        load_reassignment(_entry(topic=topic))
    assert load_reassignment(_entry(topic="a" * 249)).partitions[0].topic == "a" * 249


def test_every_value_in_the_commands_is_shell_quoted():
    """A bootstrap server or file name with shell syntax comes out as one quoted word."""
    plan = plan_throttle(**CLUSTER, bytes_to_move=650 * MB, target_completion_s=20)
    text = plan.to_text(load_reassignment(SAMPLE, current=CURRENT),
                        bootstrap_server="h:9092; rm -rf ~", reassignment_json_file="a b.json")
    assert "--bootstrap-server 'h:9092; rm -rf ~' --entity-type" in text
    assert "--reassignment-json-file 'a b.json' --execute --throttle 42500000" in text
    assert ("--add-config 'leader.replication.throttled.replicas=[0:1,0:2],"
            "follower.replication.throttled.replicas=[0:4]'") in text


def test_additional_keeps_the_ongoing_moves_in_the_throttled_lists():
    """``--additional`` beside an ongoing move of payments-1 [2,3] -> [2,4]: its sources stay in
    the leader list and its new replica in the follower list (``calculateProposedMoveMap``)."""
    ongoing = load_reassignment(
        {"version": 1, "partitions": [{"topic": "payments", "partition": 1,
                                       "replicas": [2, 4]}]}, current=CURRENT)
    plan = load_reassignment(SAMPLE, current=CURRENT)
    assert plan.throttled_replicas(ongoing)["payments"] == ("0:1,0:2,1:2,1:3", "0:4,1:4")
    text = plan_throttle(**CLUSTER, bytes_to_move=650 * MB).to_text(plan, additional=True,
                                                                      ongoing=ongoing)
    assert "--execute --throttle 52500000 --additional" in text
    assert "add --preserve-throttles to keep them" in text


def test_kip_1023_leaves_only_the_local_log_to_copy_and_log_dir_moves_net_t_minus_in():
    """With ``follower.fetch.last.tiered.offset.enable`` (Kafka 4.3, default false) a new
    replica copies only the local part; a move between log dirs (no leader quota, no followers)
    nets ``replica.alter.log.dirs.io.max.bytes.per.second`` - IN."""
    assert log_bytes_to_copy(100 * MB, local_log_bytes=10 * MB) == 100 * MB
    assert log_bytes_to_copy(100 * MB, local_log_bytes=10 * MB,
                             follower_fetch_last_tiered_offset_enable=True) == 10 * MB
    with pytest.raises(ValueError, match=r"local_log_bytes must be <= log_bytes"):
        log_bytes_to_copy(MB, local_log_bytes=2 * MB)
    assert plan_log_dir_move(bytes_to_move=1000 * MB, throttle_bytes_per_s=60 * MB,
                             bytes_in_per_s=10 * MB) == 20
    assert plan_log_dir_move(bytes_to_move=MB, throttle_bytes_per_s=0, bytes_in_per_s=0) == math.inf
