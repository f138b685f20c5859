# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 4 · If I set this throttle, when does my reassignment finish? (KIP-73)
#
# **The question.** Moving partitions to a new broker copies whole logs over the network, beside
# the traffic of producers and consumers. A replication throttle protects the clients; set it too
# low and the move never ends, too high and the clients starve. Which value, and when is it done?
#
# **The mechanism in a sentence.** With [KIP-73](https://cwiki.apache.org/confluence/display/KAFKA/KIP-73+Replication+Quotas)
# (Kafka 0.10.1) a broker measures the bytes it replicates for *throttled* replicas over a window
# of `replication.quota.window.num` x `replication.quota.window.size.seconds` (11 x 1 s); while the
# measured rate is above `leader.replication.throttled.rate` the leader leaves those partitions out
# of its fetch responses, and while it is above `follower.replication.throttled.rate` the follower
# leaves them out of its requests.
#
# **What `--throttle` really throttles.** `kafka-reassign-partitions --execute --throttle T` lists
# every *current* replica of a moving partition in `leader.replication.throttled.replicas` and only
# the new ones in `follower.replication.throttled.replicas` (`ReassignPartitionsCommand`). The
# leader records the bytes of every throttled partition it sends (`KafkaApis`:
# `quotas.leader.record(sizeOfThrottledPartitions(...))`), so the R - 1 in-sync followers' keep-up
# fetches count against its quota, though they are never throttled (KAFKA-4313). With producers
# writing IN (the inbound rate, bytes per second into the moving partitions) and a replication
# factor R, the new replica nets **T - R x IN**, not the KIP's T - IN.
#
# kipviz models Kafka's `ReplicationQuotaManager` on its windowed `SimpleRate` (as since Kafka 3.8),
# the leader's omission, the follower's exclusion, KAFKA-4313 and the followers `--throttle` counts;
# Spark turns the simulated traces into the curves.

# %% [markdown]
# **Course:** ← [3 · consumer buffer memory](03_consumer_buffer_memory.ipynb) · [5 · streams input buffer](05_streams_input_buffer.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
from kipviz import data_file
from kipviz.apps import planner
from kipviz.curves.reassignment import reassignment_curves
from kipviz.curves.reassignment.compare import (
    followers_table,
    response_size_table,
    throttle_runs,
    throttle_table,
)
from kipviz.kafka.replication import (
    max_replica_fetch_response_bytes,
    move_time_s,
    throttle_bounds,
)
from kipviz.plots.reassignment import compare_throttles_figure, reassignment_figure
from kipviz.scenarios.reassignment import simulate
from kipviz.widgets import REASSIGNMENT_LESSON_SCENARIO, ReassignmentPlanDashboard
from kipviz.widgets.reassignment import METRICS_TEXT

MB = 1_000_000


# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: a 10 MB/s throttle in Kafka's
# `ReplicationQuotaManager`. The leader sends a 2 MB chunk of throttled partitions every 100 ms
# while the rate it measures over the quota window is within the throttle, and leaves them out of
# its responses while it is above. The rate climbs past the throttle by one chunk, then the sends
# space out and it settles just above 10 MB/s.)

# %%
from kipviz.plots.diagrams import diagram

diagram("04")

# %% [markdown]
# ## 1. Plan a real reassignment, per broker
#
# `kafka-reassign-partitions --generate` prints the current and the proposed assignment;
# `kafka-log-dirs --describe` gives the partition sizes (the planner skips the two status lines it
# prints before its JSON). In the sample plan orders-0 (40 GB) and payments-0 (12 GB) are led by
# broker 1, orders-1 (38 GB) by broker 2, and all three gain a replica on broker 4; orders-2 is
# listed unchanged. `--throttle T` sets **both rates on every broker** of the plan: each leader's
# quota counts the followers of the listed partitions it leads (orders-2 included: its current
# replicas are leader-listed too), each destination's quota the new replicas it receives, and
# moves between different brokers run in parallel.
#
# KIP-73's IN is per broker: the bytes producers write into it. A plan needs it per partition
# (IN_p), since each quota counts its own partitions; here producers write 10 MB/s into the three
# moving partitions, split by size (a rate given per topic is split over its partitions the same
# way), passed explicitly:

# %%
import kipviz

sample = {"reassignment": data_file("reassignment.json"),
          "current": data_file("current-assignment.json"),
          "partition_sizes": data_file("log-dirs.json")}
# 10 MB/s over the moving partitions by size (40, 38 and 12 of their 90 GB)
rates = {"orders-0": 10 * MB * 40 / 90, "orders-1": 10 * MB * 38 / 90,
         "payments-0": 10 * MB * 12 / 90}
at35 = kipviz.plan_reassignment(**sample, bytes_in_per_s=rates, throttle_bytes_per_s=35 * MB,
                                simulate=True)
print(at35.to_text())

# %% [markdown]
# **Which broker bounds the move, and why.** Broker 4 receives all three new replicas, 90 GB, and
# its follower quota records everything they append, their own keep-up included: they net
# T - 10 MB/s, so 90 GB / 25 MB/s = 3600 s, **1.0 h** at T = 35 MB/s. Broker 1 sends 52 GB and
# its leader quota also counts the keep-up of orders-0's two followers and new replica and of
# payments-0's follower and new replica: 3 x 4.44 + 2 x 1.33 = 16 MB/s, leaving 19 MB/s, 0.76 h
# alone. Each broker's time alone is a lower bound; the planner shares each binding quota
# equally among the replicas it holds back (a flow schedule), which adds 25 s here (broker 1's
# leader quota binds once orders-1 is in). The same by hand and planned at 55 MB/s, beside the
# cluster simulation (Kafka's quotas tick by tick, one fetcher per broker pair):

# %%
at55 = kipviz.plan_reassignment(**sample, bytes_in_per_s=rates, throttle_bytes_per_s=55 * MB,
                                simulate=True)
print(f"T = 35 MB/s: broker 4 by hand {90e9 / (25 * MB) / 3600:.2f} h, planned "
      f"{at35.move_time_s / 3600:.2f} h, simulated {at35.simulated_move_time_s / 3600:.2f} h")
print(f"T = 55 MB/s: broker 4 by hand {90e9 / (45 * MB) / 3600:.2f} h, planned "
      f"{at55.move_time_s / 3600:.2f} h, simulated {at55.simulated_move_time_s / 3600:.2f} h")

# %% [markdown]
# Kafka's quota is a gate, not a scheduler: while a broker is over its quota *all* its
# out-of-sync throttled replicas wait, so which replica gets a binding quota's bytes is left to
# fetch timing. The model pins that split: the planner and the simulation both share a binding
# quota **max-min fair**, equal shares among the replicas it holds back (each within
# `replica.fetch.max.bytes` per fetch), the simulation tick by tick within what the quota's
# 11 x 1 s window still allows. The move time does not hang on the pin (the binding broker moves
# T whatever the split); when brokers off the bottleneck (broker 2 here) finish does, so theirs
# are the model's. The lanes below are the simulation at 35 MB/s: broker 4's follower rate sits
# at T for the whole hour while its lag falls; broker 1's leader rate stays below T until
# orders-1 is in (at 58 minutes), then sits at T for the last two.

# %%
from kipviz.plots.reassignment import broker_lanes_figure
from kipviz.scenarios.reassignment.cluster import (
    ClusterReassignmentScenario,
    simulate_cluster,
)

lanes = simulate_cluster(ClusterReassignmentScenario(
    at35.moves, leader_throttle_bytes_per_s=35 * MB, follower_throttle_bytes_per_s=35 * MB,
    sample_ticks=1000, ticks=600_000), plan=False)
broker_lanes_figure(lanes.brokers, 35 * MB, title="The sample plan at 35 MB/s, one lane per broker")

# %% [markdown]
# **The KIP's formula beside what `--throttle` does.** `plan_throttle` is KIP-73's single-pair
# arithmetic: one leader sending all 90 GB to one destination, its quota counting R - 1 followers
# of *all* of IN. For this plan it says 35 MB/s takes five hours and a one-hour target needs
# 55 MB/s; per broker, 35 MB/s takes about an hour, and the smallest T that meets the hour is
# just above it (broker 1's leader quota binds for the last minutes):

# %%
single = planner.plan_throttle(brokers=4, network_bytes_per_s=125 * MB, bytes_in_per_s=10 * MB,
                               replication_factor=3, bytes_to_move=90e9,
                               throttle_bytes_per_s=35 * MB)
target = kipviz.plan_reassignment(**sample, bytes_in_per_s=rates, target_completion_s=3600)
print(f"single pair at 35 MB/s: {single.move_time_s / 3600:.1f} h; per broker: "
      f"{at35.move_time_s / 3600:.2f} h")
print(f"the smallest T for one hour, per broker: {target.throttle_bytes_per_s / MB:.1f} MB/s")

# %% [markdown]
# The same from a shell: `kipviz plan --reassignment reassignment.json --current current.json
# --log-dirs log-dirs.json --bytes-in orders=13.2MB/s,payments=1.33MB/s --target 1h` (IN per
# topic, a JSON file, or the JMX exporter's Prometheus scrapes of `BytesInPerSec`; `--json` for
# machines).

# %% [markdown]
# ## 2. The KIP's arithmetic, and the followers it leaves out
#
# The KIP's Q&A gives three answers per broker, with IN the bytes producers write into it, N its
# network, R the replication factor and T the throttle. Each is the special case F = 0 of the rule
# with the F in-sync followers the leader's quota counts (F = R - 1 under `--throttle`):
#
# * **Q&A 4, the workable range:** `(F + 1) x IN < T < N - IN/R` (the KIP: `IN < T`). At or below
#   the lower end the new replica never catches up; above `N - IN/R` replication eats the clients'
#   share (the followers' keep-up bytes are inside T, so the upper end does not move).
# * **Q&A 1, the move time:** `MoveRatio x TotalLogSizePerBroker x #Brokers / (T - (F + 1) x IN)`,
#   where MoveRatio is the share of each broker's log that the reassignment moves.
# * **Q&A 5, the response size:** the first throttled responses must fit the quota window:
#   `replica.fetch.response.max.bytes < min(T x window, window x N / #brokers)`.

# %%
low, high = throttle_bounds(bytes_in_per_s=10 * MB, network_bytes_per_s=125 * MB,
                            replication_factor=3, in_sync_followers=2)
print(f"1 Gbit/s brokers taking 10 MB/s, R = 3: {low / MB:g} MB/s < T < {high / MB:.2f} MB/s "
      f"(the KIP says {throttle_bounds(10 * MB, 125 * MB, 3)[0] / MB:g} MB/s < T)")
print(f"moving 20% of 1 TB per broker on 5 brokers at T = 50 MB/s: "
      f"{move_time_s(0.2, 1e12, 5, 50 * MB, 10 * MB, in_sync_followers=2) / 3600:.1f} h "
      f"(the KIP's formula: {move_time_s(0.2, 1e12, 5, 50 * MB, 10 * MB) / 3600:.1f} h)")
print(f"replica.fetch.response.max.bytes < "
      f"{max_replica_fetch_response_bytes(1 * MB, 10, 100 * MB, 5) / MB:g} MB (5 brokers), "
      f"{max_replica_fetch_response_bytes(1 * MB, 10, 100 * MB, 500) / MB:g} MB (500 brokers)")

# %% [markdown]
# The last line is the KIP's own example: 10 MB for 5 brokers (the leader's quota dominates) and
# 2 MB for 500 (the follower's network does).
#
# ## 3. Watching a throttled move
#
# The lesson cluster: 5 brokers on 1 Gbit/s (125 MB/s), producers writing IN = 10 MB/s into the
# moving partitions, R = 3, ten partitions of 200 MB (2 GB) moving to a new broker, both throttles
# at 50 MB/s. The plan: 2 GB / (50 - 3 x 10) MB/s = 100 s; the KIP's formula says 50 s.

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
lesson = reassignment_curves(spark, simulate(REASSIGNMENT_LESSON_SCENARIO))
print(f"simulated: {lesson.move_text}; "
      f"planned (followers counted) {lesson.planned_move_time_s:.1f} s; "
      f"KIP-73 formula {lesson.kip_move_time_s:.1f} s")
print(f"first quota window: {lesson.first_window_overshoot:.3f} x the quota")
reassignment_figure(lesson, title="Ten partitions moving at a 50 MB/s throttle, R = 3")

# %% [markdown]
# The leader's measured rate (blue) climbs to the quota and stays there: it counts the two in-sync
# followers' 20 MB/s and the new replica's 30 MB/s. The throttled bytes sent per second (green) run
# at T - 2 x IN while the replica lag falls, and the move ends within a second of the planned
# 100 s: twice as late as the KIP's formula. While it runs, clients keep on average
# `N - IN/R - (T - 2 x IN)`, not Q&A 4's `N - IN/R - T`: 20 MB/s of the quota is the in-sync
# followers' traffic, which the clients' own writes cause anyway (91.9 MB/s left at T = 50 MB/s in
# the table of section 4, against the Q&A's 71.7). Within a tick they can have much less (the
# "min tick" line, when a fetch response lands); after the move they get everything back.
#
# ## 4. The trade-off, and throttles that never finish

# %%
runs = throttle_runs(spark, REASSIGNMENT_LESSON_SCENARIO,
                     [20 * MB, 30 * MB, 40 * MB, 50 * MB, 80 * MB])
print(throttle_table(runs).to_string())
compare_throttles_figure(runs, title="Throttle against move time and client bandwidth")

# %% [markdown]
# At 20 MB/s, below R x IN, the replica lag *grows*: the move **never** finishes, although the
# KIP's formula promises 200 s. At exactly 30 MB/s = 3 x IN the rule says never too (the KIP: 100 s);
# the simulation shows the lag only creeping down, by the quota's optimism (about one response per
# quota window gets through above T, 0.6 MB/s here): most of an hour for these 2 GB, so do not
# count on it. Kafka accepts either value without complaint. At 40 MB/s the move takes about 200 s,
# just inside the run; in a shorter run it would read "not within this run (projected 200 s)",
# which is not "never". Above that every extra MB/s of throttle shortens the move and takes the
# same MB/s from the clients.
#
# ## 5. The KIP's formula is the case of no followers
#
# Set the followers the leader's quota counts to 0 and the simulation gives the KIP's numbers; set
# them to R - 1, as `--throttle` does, and it gives the planner's:

# %%
print(followers_table(REASSIGNMENT_LESSON_SCENARIO, [30 * MB, 50 * MB]).to_string(index=False))

# %% [markdown]
# ## 6. Changing the throttle mid-move
#
# Operators (and Cruise Control) change the rates while a move runs: `kafka-configs --alter`, or
# `kafka-reassign-partitions --execute --additional --throttle` with the same JSON. Kafka's
# `ReplicationQuotaManager.updateQuota` keeps the bytes already recorded. Start at 20 MB/s (which
# never finishes), raise it to 80 MB/s after a minute:

# %%
from dataclasses import replace

scheduled = simulate(replace(REASSIGNMENT_LESSON_SCENARIO, leader_throttle_bytes_per_s=20 * MB,
                             follower_throttle_bytes_per_s=20 * MB,
                             throttle_schedule=((60, 80 * MB),))).meta
print(f"planned {scheduled['planned_move_time_s']:.0f} s (2.6 GB left at 60 s, at 50 MB/s net), "
      f"simulated {scheduled['completed_ms'] / 1000:.1f} s")

# %% [markdown]
# ## 7. The mechanism is optimistic
#
# The quota acts only *after* the measured rate has gone over it, so the first window can carry more
# than T x window: up to one more fetch response, which Q&A 5's bound on
# `replica.fetch.response.max.bytes` keeps small. The rejected design (KIP-73's first proposal)
# delayed responses instead of omitting partitions. The table measures both at two response limits
# (each partition at most `replica.fetch.max.bytes` = 5 MiB): at 10 MiB both carry 1.049 x T in the
# first window; at 50 MiB the quota carries 1.000 x T and the delay design 1.250 x T, because it
# sends a whole large response before it waits:

# %%
print(response_size_table(REASSIGNMENT_LESSON_SCENARIO, [10 * 2**20, 50 * 2**20],
                          replica_fetch_max_bytes=5 * 2**20).to_string(index=False))

# %% [markdown]
# ## 8. Moves between disks, and tiered storage
#
# A move between log dirs of one broker (`kafka-reassign-partitions --replica-alter-log-dirs-throttle`,
# which sets `replica.alter.log.dirs.io.max.bytes.per.second`) is copied by the
# `ReplicaAlterLogDirsThread`: no leader quota and no followers, so it nets T - IN. With tiered
# storage and KIP-1023 (Kafka 4.3, opt-in `follower.fetch.last.tiered.offset.enable`, default
# false) a new replica starts at the last tiered offset and copies only the local part of the log:

# %%
disk_s = planner.plan_log_dir_move(bytes_to_move=1e9, throttle_bytes_per_s=60 * MB,
                                   bytes_in_per_s=10 * MB)
whole_log = planner.log_bytes_to_copy(500e9, local_log_bytes=20e9)
local_part = planner.log_bytes_to_copy(500e9, local_log_bytes=20e9,
                                       follower_fetch_last_tiered_offset_enable=True)
print(f"1 GB between two disks at 60 MB/s with 10 MB/s in: {disk_s:.0f} s")
print(f"a 500 GB tiered log with 20 GB local copies {whole_log / 1e9:g} GB by default, "
      f"{local_part / 1e9:g} GB with follower.fetch.last.tiered.offset.enable=true")

# %% [markdown]
# ## 9. What to watch in Kafka
#
# KIP-73 proposed a `SumReplicaLag` metric to follow a move; Kafka never shipped it (the lag the
# figures draw is what it would have shown). These are the metrics a broker really has:

# %%
print(METRICS_TEXT)

# %% [markdown]
# ## 10. Try it
#
# The sample plan of section 1 under the two numbers an operator has in hand: the throttle T that
# `--throttle` sets on every broker, and the IN of the hottest topic, orders (split over its
# partitions by size; payments stays at 1.33 MB/s). Each move runs the cluster simulation and one
# Spark job, and redraws when each broker's last move finishes, simulated beside planned, over
# one lane per broker. A throttle that never finishes runs, with the planner's reason, as Kafka
# would accept it. (The single pair of sections 3 to 7, with the throttle schedule, the followers
# counted and the quota window, is `kipviz.widgets.ReassignmentDashboard`.)

# %% tags=["nbval-ignore-output"]
ReassignmentPlanDashboard(spark=spark)

# %% [markdown]
# ## Conclusion
#
# * `--throttle` sets T on every broker of a plan: a destination needs bytes / (T - IN of its new
#   replicas), a leader bytes / (T - IN x its followers and new replicas); the move time is the
#   flow schedule over them (`kipviz.plan_reassignment`, `kipviz plan`), not the single-pair form.
# * Under `--throttle` the leader's quota counts the R - 1 in-sync followers: pick T inside
#   `R x IN < T < N - IN/R`; the move takes `bytes / (T - R x IN)`. The KIP's `bytes / (T - IN)`
#   is the case of no followers counted. At or below R x IN it never finishes.
# * "Not finished in this run" is not "never": the plan gives the projected time.
# * The throttle is optimistic: a window can pass the quota by one response; keep
#   `replica.fetch.response.max.bytes` within Q&A 5's bound.
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models); each point says from which release it holds.
#
# * KIP-73 shipped in Kafka 0.10.1. `kafka-reassign-partitions --execute --throttle <bytes/s>` sets
#   both rates on the brokers involved and the throttled-replica lists on the topics (current
#   replicas as leader-throttled, new ones as follower-throttled). `--additional` submits a move
#   beside one in progress (or re-submits one to change the throttle) and keeps the ongoing moves in
#   the lists; `--verify` removes every throttle once all moves are done, unless
#   `--preserve-throttles` is given (run it, or the throttle stays).
# * `--replica-alter-log-dirs-throttle` (KIP-113) throttles moves between disks of one broker.
# * KIP-1023 (4.3, tiered storage, opt-in) lets a new follower skip the tiered part of the log.
# * The rate behind the quota is Kafka's `SimpleRate` over 11 windows of 1 s by default; Kafka 3.8
#   (apache/kafka#15889) changed when old samples are purged, which kipviz follows (`legacy=True`
#   in `kipviz.kafka.quotas` gives the earlier rule).

# %% [markdown]
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("04", 1, my_answer=None)

# %%
exercise("04", 2, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# The lesson's formula with your own settings, the metric to watch and the knob to turn. Replace the sample files with your `consumer.properties` and `server.properties` (paths, or mappings of Kafka keys) and the numbers with your cluster's; settings Kafka would refuse are reported as notes.

# %%
from kipviz import data_file
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("04", data_file("consumer.properties"), data_file("server.properties"),
                   replication_factor=3, bytes_in_per_s=10e6, bytes_to_move=200e9))

# %% [markdown]
# **Course:** ← [3 · consumer buffer memory](03_consumer_buffer_memory.ipynb) · [5 · streams input buffer](05_streams_input_buffer.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
