"""Lesson 4: replication throttles and the reassignment planner (KIP-73)."""

from __future__ import annotations

from lessons import code, md

CELLS = [
    md("""
# 4 · If I set this throttle, when does my reassignment finish? (KIP-73)

**The question.** Moving partitions to a new broker copies whole logs over the network, beside
the traffic of producers and consumers. A replication throttle protects the clients; set it too
low and the move never ends, too high and the clients starve. Which value, and what does each
choice cost?

**The mechanism in a sentence.** With [KIP-73](https://cwiki.apache.org/confluence/display/KAFKA/KIP-73+Replication+Quotas)
(Kafka 0.10.1) a broker measures the bytes it replicates for *throttled* partitions over a window
of `replication.quota.window.num` x `replication.quota.window.size.seconds` (11 x 1 s); while the
measured rate is above `leader.replication.throttled.rate` the leader leaves those partitions out
of its fetch responses, and while it is above `follower.replication.throttled.rate` the follower
leaves them out of its requests.

kipviz models Kafka's `ReplicationQuotaManager` on its windowed `SimpleRate` (as since Kafka 3.8),
the leader's omission, the follower's exclusion and KAFKA-4313 (in-sync replicas are counted but
never throttled); Spark turns the simulated traces into the curves.
"""),
    code("""
from dataclasses import replace

import pandas as pd

from kipviz import data_file
from kipviz.curves.reassignment import reassignment_curves
from kipviz.planner import load_partition_sizes, load_reassignment, plan_throttle
from kipviz.plots.reassignment import compare_throttles_figure, reassignment_figure
from kipviz.quota import max_replica_fetch_response_bytes, move_time_s, throttle_bounds
from kipviz.scenarios.reassignment import simulate
from kipviz.widgets import REASSIGNMENT_LESSON_SCENARIO, ReassignmentDashboard

MB = 1_000_000
"""),
    md("""
## 1. The KIP's arithmetic

Three answers from the KIP's Q&A, per broker, with IN the bytes producers write into it, N its
network, R the replication factor and T the throttle:

* **Q&A 4, the workable range:** `IN < T < N - IN/R`. At or below IN the followers never catch up
  (the log grows as fast as they copy); above `N - IN/R` replication eats the clients' share.
* **Q&A 1, the move time:** `MoveRatio x TotalLogSizePerBroker x #Brokers / (T - IN)`.
* **Q&A 5, the response size:** the first throttled responses must fit the quota window:
  `replica.fetch.response.max.bytes < min(T x window, window x N / #brokers)`.
"""),
    code("""
low, high = throttle_bounds(bytes_in_per_s=10 * MB, network_bytes_per_s=125 * MB, replication_factor=3)
print(f"1 Gbit/s brokers taking 10 MB/s, R = 3: {low / MB:g} MB/s < T < {high / MB:.2f} MB/s")
print(f"moving 20% of 1 TB per broker on 5 brokers at T = 50 MB/s: "
      f"{move_time_s(0.2, 1e12, 5, 50 * MB, 10 * MB) / 3600:.1f} h")
for brokers in (5, 500):
    size = max_replica_fetch_response_bytes(1 * MB, 10, 100 * MB, brokers)
    print(f"{brokers:3d} brokers, leader quota 1 MB/s, 10 s window, 100 MB/s network: "
          f"replica.fetch.response.max.bytes < {size / MB:g} MB")
"""),
    md("""
These are the KIP's own examples: 10 MB for 5 brokers (the leader's quota dominates) and 2 MB for
500 (the follower's network does).

## 2. Plan a real reassignment

`kafka-reassign-partitions --generate` prints the current and the proposed assignment;
`kafka-log-dirs --describe` gives the partition sizes. The planner reads both, finds the bytes each
new replica must copy, and picks the smallest throttle that finishes within a target (one hour
here), with the commands that set it:
"""),
    code("""
plan = load_reassignment(data_file("reassignment.json"), current=data_file("current-assignment.json"))
sizes = load_partition_sizes(data_file("log-dirs.json"))
print("bytes each destination broker copies:", plan.bytes_per_broker(sizes))
throttle = plan_throttle(brokers=len(plan.brokers()), network_bytes_per_s=125 * MB,
                         bytes_in_per_s=10 * MB, replication_factor=3,
                         bytes_to_move=plan.bytes_to_move(sizes), target_completion_s=3600)
print(throttle.to_text(plan))
"""),
    md("""
## 3. Watching a throttled move

The lesson cluster: 5 brokers on 1 Gbit/s (125 MB/s), producers writing IN = 10 MB/s into the
moving partitions, R = 3, ten partitions of 200 MB (2 GB) moving to a new broker, both throttles
at 30 MB/s. The formula says 2 GB / (30 - 10) MB/s = 100 s.
"""),
    code("""
# NBVAL_IGNORE_OUTPUT
# (starting Spark prints Java log lines that differ between runs)
from kipviz.spark import get_spark

spark = get_spark()
"""),
    code("""
lesson = reassignment_curves(spark, simulate(REASSIGNMENT_LESSON_SCENARIO))
print(f"simulated completion {lesson.completed_s:.1f} s, KIP-73 formula {lesson.kip_move_time_s:.1f} s")
print(f"first quota window: {lesson.first_window_overshoot:.3f} x the quota")
reassignment_figure(lesson, title="Ten partitions moving at a 30 MB/s throttle")
"""),
    md("""
The measured rate climbs to the quota and stays there: the throttled bytes sent per second
(green) run at T while SumReplicaLag falls, and the move ends within a few seconds of the
formula's 100 s (a bit sooner: each partition's last response may go a little over). Clients
keep `N - IN/R - T` while it runs and get everything back after it.

## 4. The trade-off, and a throttle that never finishes
"""),
    code("""
runs = {f"{t:g} MB/s": reassignment_curves(spark, simulate(replace(
            REASSIGNMENT_LESSON_SCENARIO, leader_throttle_bytes_per_s=t * MB,
            follower_throttle_bytes_per_s=t * MB)))
        for t in (8, 10, 15, 30, 60)}
print(pd.DataFrame({
    label: {"KIP-73 move time (s)": c.kip_move_time_s,
            "simulated (s)": c.completed_s if c.finished else float("nan"),
            "client MB/s left while moving": c.move["client_left_moving_mean_bytes_per_s"].iloc[0] / MB,
            "SumReplicaLag at 200 s (MB)": c.windows["replica_lag_end_bytes"].iloc[-1] / MB}
    for label, c in runs.items()}).T.round(1).to_string())
compare_throttles_figure(runs, title="Throttle against move time and client bandwidth")
"""),
    md("""
At 8 MB/s, below IN, SumReplicaLag *grows*: the followers copy slower than producers write. At
exactly IN (10 MB/s) it stays flat forever. The KIP's formula says so (`inf`) and the planner warns;
Kafka accepts either value without complaint. Above IN, every extra MB/s of throttle shortens the
move and takes the same MB/s from the clients: 15 MB/s would need 400 s, 60 MB/s takes 40 s and
leaves clients about 60 MB/s.

## 5. The mechanism is optimistic

The quota acts only *after* the measured rate has gone over it, so the first window can carry more
than T x window: up to one more fetch response. Bigger responses, bigger overshoot; Q&A 5's bound
on `replica.fetch.response.max.bytes` keeps it within the window. The rejected design (KIP-73's
first proposal) delayed responses instead of omitting partitions; it overshoots the same way and
its moves finish later:
"""),
    code("""
MiB = 1024 * 1024
rows = []
for response_mib in (10, 50):
    for mode in ("quota", "delay"):
        s = replace(REASSIGNMENT_LESSON_SCENARIO, replica_fetch_max_bytes=5 * MiB,
                    replica_fetch_response_max_bytes=response_mib * MiB, mode=mode)
        meta = simulate(s).meta
        rows.append({"replica.fetch.response.max.bytes": f"{response_mib} MiB", "design": mode,
                     "first window / (T x 1 s)": round(meta["first_window_throttled_bytes"] / 30e6, 3),
                     "completed (s)": meta["completed_ms"] / 1000})
print(pd.DataFrame(rows).to_string(index=False))
"""),
    md("""
## 6. Who else is counted: the existing followers

`kafka-reassign-partitions --throttle` lists the partitions' *current* replicas in
`leader.replication.throttled.replicas`. Their in-sync followers are never throttled (KAFKA-4313),
but their bytes are counted in the leader's quota. With R = 3 the two existing followers copy
2 x IN, which leaves the new replica only T - 2 x IN: the move then needs T > 3 x IN, not the
KIP's T > IN.
"""),
    code("""
for followers in (0, 2):
    for t in (30, 40):
        meta = simulate(replace(REASSIGNMENT_LESSON_SCENARIO, in_sync_followers=followers,
                                leader_throttle_bytes_per_s=t * MB,
                                follower_throttle_bytes_per_s=t * MB)).meta
        done = f"{meta['completed_ms'] / 1000:.1f} s" if meta["completed_ms"] is not None else "never"
        print(f"{followers} existing in-sync followers counted, T = {t} MB/s: move completes {done} "
              f"(KIP-73 formula {meta['kip_move_time_s']:.0f} s)")
"""),
    md("""
## 7. Try it

Move the throttles, IN, brokers and the quota window; each move re-runs the reassignment and Spark
redraws the curves. A throttle at or below IN runs, with a warning, as it would in Kafka.
"""),
    code("""
# NBVAL_IGNORE_OUTPUT
# (the widget's model ids change on every run)
ReassignmentDashboard(spark=spark)
"""),
    md("""
## Conclusion

* Pick T inside `IN < T < N - IN/R`; the move takes `bytes / (T - IN)`, and every MB/s above IN
  buys speed with client bandwidth. At or below IN it never finishes: watch SumReplicaLag.
* The throttle is optimistic: the first window can pass the quota by one response; keep
  `replica.fetch.response.max.bytes` within Q&A 5's bound.
* Count the existing followers: their keep-up traffic uses the leader's quota too.

## What Kafka does today

* KIP-73 shipped in Kafka 0.10.1. `kafka-reassign-partitions --execute --throttle <bytes/s>` sets
  both rates on the brokers involved and the throttled-replica lists on the topics;
  `--verify` removes them once the move is done (run it, or the throttle stays).
* `--replica-alter-log-dirs-throttle` (KIP-113) throttles moves between disks of one broker the
  same way.
* The rate behind the quota is Kafka's `SimpleRate` over 11 windows of 1 s by default; Kafka 3.8
  (apache/kafka#15889) changed when old samples are purged, which kipviz follows (`legacy=True`
  in `kipviz.quota` gives the earlier rule).
"""),
]
