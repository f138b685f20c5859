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
# # 8 · My consumer is slow reading old data: why, and what do the remote quotas do?
#
# **The question.** A consumer reading the tail of a topic keeps up easily. The same consumer, sent
# back to data from last month, crawls, and its *recent* partitions slow down with it. Why, and what
# do the tiered-storage quotas (`remote.log.manager.{copy,fetch}.max.bytes.per.second`) change?
#
# **The mechanism in a sentence.** With tiered storage
# ([KIP-405](https://cwiki.apache.org/confluence/display/KAFKA/KIP-405%3A+Kafka+Tiered+Storage)),
# a fetch below a partition's local log start is read from remote storage by one of
# `remote.log.reader.threads` (10), and the broker holds the whole answer, the *local* partitions'
# data included, in a `DelayedRemoteFetch` until the remote reads are done or
# `remote.fetch.max.wait.ms` (500) passes; before Kafka 4.2 a request reads only its *first* remote
# partition.
#
# The remote store's latency and the reader threads are yours to set: kipviz does not guess your
# object store. Everything else below is Kafka's code (`ReplicaManager`, `RemoteLogManager`,
# `RemoteLogReader`, `DelayedRemoteFetch`, `RLMQuotaManager`, `TokenBucket`).

# %% [markdown]
# **Course:** ← [7 · share groups](07_share_groups.ipynb) · [9 · other clients](09_other_clients.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
from dataclasses import replace

from kipviz.curves.tiered_fetch import tiered_curves
from kipviz.kafka.quotas import TokenBucket
from kipviz.plots.tiered_fetch import copy_quota_figure, three_rates_figure, tiered_figure
from kipviz.scenarios.tiered_fetch.quotas import (
    bursty_load,
    copy_under_quota,
    three_rates,
    throttle_summary,
)
from kipviz.scenarios.tiered_fetch.scenario import (
    reader_queue_table,
    simulate,
    simulate_versions,
    trace_summary,
)
from kipviz.widgets import TIERED_LESSON_SCENARIO, TieredStorageDashboard

MiB = 1024 * 1024


# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: one fetch request for A and D, in
# the local log, and B and C, below the local log start, 1 MiB per partition and a 3 MiB response
# limit, through Kafka's `readFromLog`. Kafka 4.1 reads only the first remote partition, B, and
# charges it nothing, so D still fits; 4.2 reads B and C in parallel, charges each its 1 MiB up
# front, and the limit leaves no room for D.)

# %%
from kipviz.plots.diagrams import diagram

diagram("08")

# %% [markdown]
# ## 1. The experiment: catching up beside the tail, Kafka 4.1 against 4.2
#
# One broker, two consumers. The **catch-up** consumer reads 4 partitions 2 GiB behind the local
# log start (their data is only in remote storage) and 4 partitions at the tail; the **tail**
# consumer reads 4 partitions at the tail. Producers add 256 KiB/s to each partition. A remote read
# takes 100 ms to its first byte and then 100 MiB/s; `max.partition.fetch.bytes` is 1 MiB,
# `fetch.max.bytes` 50 MiB. The same 10 s run under Kafka 4.1 and 4.2:

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
traces = simulate_versions(TIERED_LESSON_SCENARIO, ("4.1", "4.2"))
print("Kafka 4.1")
print(trace_summary(traces["4.1"]).to_string())
print("Kafka 4.2")
print(trace_summary(traces["4.2"]).to_string())

# %%
curves = tiered_curves(spark, traces)
tiered_figure(curves, title="Catching up from tiered storage, Kafka 4.1 vs 4.2")

# %% [markdown]
# **Why it is slow.** Each remote read costs 112 ms (100 ms to first byte, 10 ms for 1 MiB, the
# round trip), and on **4.1 a fetch request starts one remote read**: 1 MiB per 112 ms, about
# 9.4 MB/s, however many partitions are behind. On **4.2** the same request reads all four in
# parallel: 37.8 MB/s, four times as much, and the response grows to 4 MiB (memory: the consumer
# now holds `remote partitions x max.partition.fetch.bytes` per response, within `fetch.max.bytes`).
#
# **Why the recent partitions slow down too.** The catch-up consumer's tail partitions are local,
# but they ride in the same request: `DelayedRemoteFetch` holds their data until the remote read is
# done. Every one of its fetches takes 112 ms (p50 = max). The tail consumer's fetches wait too,
# but for data: a fetch that finds no whole batch is parked (`DelayedFetch`, `fetch.min.bytes` 1)
# until the next 16 KiB batch lands, about every 62.5 ms at 256 KiB/s, and is answered with it,
# so its p50 is 62.5 ms and none comes back empty. The figure's p99 latency (bottom left) counts
# the fetches that carried data of each class: the catch-up consumer's local partitions at 112 ms,
# the tail's at 62.5 ms, the pace of their producers. Both read the same 1.04-1.05 MB/s of local
# data: it is not lost, only late, and the lateness is the remote read's: that is the fairness
# cost of mixing remote and local partitions in one consumer.
#
# > **Kafka's code, not the KIP.** Reading one remote partition per request was a limit of
# > `ReplicaManager.fetchMessages` ("the 1st topic-partition that has to be read from remote
# > storage"), not a rule of KIP-405; KAFKA-14915 lifted it in 4.2. And until 4.2 a remote
# > partition was charged nothing against `fetch.max.bytes` when the request was read, so a
# > response could exceed it; KAFKA-19462 (4.2) charges each remote partition
# > min(`max.partition.fetch.bytes`, what is left) up front.
#
# ## 2. Reader threads and `remote.fetch.max.wait.ms`
#
# Three catch-up consumers now share **two** reader threads, and `remote.fetch.max.wait.ms` is
# 200 ms. Twelve reads of 110 ms queue for two threads; a read not started when its
# `DelayedRemoteFetch` expires is cancelled, and its partition comes back empty:

# %%
crowded = replace(TIERED_LESSON_SCENARIO, catch_up_consumers=3, remote_log_reader_threads=2,
                  remote_fetch_max_wait_ms=200)
print(trace_summary(simulate(crowded)).to_string())

# %% [markdown]
# Each catch-up fetch now waits the whole 200 ms and 500 reads are cancelled: the three consumers
# together read 10.5 MB/s from remote storage, less than a third of what one consumer read alone
# with ten threads (37.8 MB/s). The consumer sees no error, only empty partitions, and fetches the
# same offsets again.
#
# > **Kafka's code, not the KIP text.** KIP-1018 says that on a timeout "the client receives an
# > empty response"; in the code the *local* partitions' data is still returned, only the remote
# > partitions not read in time are empty. Before 3.8 (KIP-1018) the wait was the request's
# > `fetch.max.wait.ms`.
#
# The reads waiting for a thread sit in the reader pool's queue, `remote.log.reader.max.pending.tasks`
# (100) long (`RemoteStorageThreadPool`'s `LinkedBlockingQueue`; a cancelled read keeps its place
# until a thread takes it and finds it cancelled). A read that finds the queue full is refused at
# once (`RejectedExecutionException`, caught in `ReplicaManager.processRemoteFetch`): its partition
# comes back with an error, no data. The same three consumers with a queue of 4:

# %%
reader_queue_table(crowded, (100, 4))

# %% [markdown]
# With the default 100 nothing is refused (600 reads: the run above). With 4, 23,128 of 23,404
# reads are refused: each refused fetch is answered at once (p50 2 ms), the consumer asks again
# at once, 5,851 fetches instead of 150, and remote reads fall from 10.49 to 0.21 MB/s. A full queue turns
# slow catch-up into a busy loop of errors; size it for the reads your catch-up consumers queue.
#
# ## 3. The fetch quota (KIP-956)
#
# `remote.log.manager.fetch.max.bytes.per.second` bounds the bytes a broker reads from remote
# storage, over a `SimpleRate` of 11 windows of 1 s. While it is exceeded, `readFromLog` does not
# read a remote partition at all: it returns it **empty, with no error**, and the request waits for
# its other partitions as usual.

# %%
quota = replace(TIERED_LESSON_SCENARIO, remote_fetch_max_bytes_per_s=5 * MiB)
print(trace_summary(simulate(quota)).to_string())

# %% [markdown]
# The catch-up consumer reads 5.45 MB/s against a bound of 5.24 MB/s (5 MiB/s): the first burst
# passes (the rate is measured after the reads), then 92.4% of its requests come back with their
# remote partitions empty. Those are answered without a remote read, as the tail consumer's are:
# when a local batch lands (p50 62.5 ms, against 112 ms for a fetch that reads remote data).
#
# ## 4. The copy quota: bursts against `SimpleRate`'s windows
#
# The same quota manager bounds uploads (`remote.log.manager.copy.max.bytes.per.second`). Kafka's
# own test (`RLMQuotaManagerTest`): 50 B/s, 500 bytes recorded at once; the throttle time one
# second later, eight seconds after that, and one second after that:

# %%
rate = copy_under_quota(500, 1, 50, sample_ms=1_000)["rate"].set_index("time_ms")
print(rate.loc[[1_000.0, 9_000.0, 10_000.0], ["rate_bytes_per_s", "throttle_time_ms"]])

# %% [markdown]
# 9,000 ms, 1,000 ms, 0: Kafka's numbers. A copy thread records a **whole segment** when the
# throttle time is 0 and checks again every second while it is not. With 1 GiB segments and
# 100 MiB/s:

# %%
copy = copy_under_quota(1024**3, 5, 100 * MiB)
print(copy["segments"].to_string(index=False))
copy_quota_figure(copy, title="1 GiB segments under a 100 MiB/s copy quota")

# %% [markdown]
# One segment goes at once (the measured rate jumps to 10x the quota), then the thread waits 11 s
# for the next: the average is right (1 GiB per 11 s, 93 MiB/s), the traffic is bursts. The quota
# bounds the *average* over 11 s, not the peak.
#
# ## 5. Three meters on one bursty load: `Rate`, `SimpleRate`, `TokenBucket`
#
# Kafka meters bandwidth three ways: client quotas with `Rate`, replication and tiered-storage
# quotas with `SimpleRate`, controller mutations (KIP-599) with a `TokenBucket`. Kafka's own
# `TokenBucketTest`: 5 units/s, 10 samples of 2 s (a bucket of 100 credits):

# %%
t0 = 1_764_000_000_000  # a wall-clock time, as Kafka's MockTime: the bucket starts full
bucket = TokenBucket(quota=5, samples=10, window_s=2)
print(bucket.measure(t0))
bucket.record(60, t0)
print(bucket.measure(t0))
bucket.record(5, t0 + 2_000)
print(bucket.measure(t0 + 2_000))
bucket.record(60, t0 + 4_000)
print(bucket.measure(t0 + 4_000), bucket.throttle_time_ms(t0 + 4_000))

# %% [markdown]
# 100, 40, 45, -5 credits, and a 1,000 ms throttle (`-credits / quota * 1000`). Now one load in all
# three: 5,000 units every 3 s against a quota of 1,000 per s (11 windows of 1 s):

# %%
load = bursty_load(5_000, 3_000, 30_000)
meters = three_rates(load, 1_000, 30_000, sample_ms=250)
print(throttle_summary(meters).to_string())
three_rates_figure(meters, 1_000, load, title="One bursty load, three meters")

# %% [markdown]
# `SimpleRate` divides a fresh burst by one window and throttles at once (4 s for the first
# 5,000 units); `Rate` counts 10 windows from the start and first throttles at 6 s; the bucket
# absorbs 11,000 units of burst and throttles only at 12 s, when the credits run out, and then
# exactly for the time the refill needs. Same average load, three throttle patterns.
#
# ## 6. Try it
#
# Move the reader threads, the remote latency, `remote.fetch.max.wait.ms`, the fetch quota and the
# version; each move runs the chosen release beside 4.1 (or 4.2) and Spark redraws the curves.

# %% tags=["nbval-ignore-output"]
TieredStorageDashboard(spark=spark)

# %% [markdown]
# ## Conclusion
#
# Reading old data is slow because every remote read pays the store's latency and, before Kafka
# 4.2, a fetch request starts only one of them: throughput is one `max.partition.fetch.bytes` per
# remote round trip, per consumer and broker. From 4.2 a request reads all its remote partitions in
# parallel, charged to `fetch.max.bytes` up front. In both, `DelayedRemoteFetch` holds the local
# partitions of the same request until the remote reads finish: keep catch-up jobs on their own
# consumers. The remote quotas bound averages over 11 s windows: a throttled fetch returns empty
# partitions without an error, a throttled copy waits and then uploads a whole segment at once.
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models); each point names the release it came in.
#
# * **3.6**: tiered storage (KIP-405), early access; **production-ready in 3.9**.
# * **3.8**: `remote.fetch.max.wait.ms` (500, KIP-1018) for `DelayedRemoteFetch`;
#   `RLMQuotaManager` with the copy and fetch quotas (KIP-956), their throttle times and metrics
#   completed in **3.9** (KAFKA-15265). Defaults: no quota (`Long.MAX_VALUE`), 11 windows of 1 s.
#   The quotas' code is in 3.8.0, though Kafka's upgrade notes announce KIP-956 in 3.9.0.
# * **4.2**: several remote partitions per fetch request (KAFKA-14915) and each charged
#   min(`max.partition.fetch.bytes`, what is left) up front (KAFKA-19462).
# * **4.3**: KIP-1023, `follower.fetch.last.tiered.offset.enable` (default false): a new follower
#   of a tiered topic starts at the leader's earliest *pending-upload* offset, max(highest offset
#   in remote storage + 1, log start) (`RemoteLeaderEndPoint`, `ListOffsets`'
#   `EARLIEST_PENDING_UPLOAD_TIMESTAMP`), and copies only what is not yet uploaded; otherwise it
#   copies the whole local log, uploaded segments still kept locally included
#   (`kipviz.kafka.tiered.replica.follower_start_offset`).
# * `remote.log.reader.threads` (10) and `remote.log.reader.max.pending.tasks` (100, the queue in
#   front of them) bound the reads a broker runs and holds at once; the remote store's latency is
#   not Kafka's and sets the pace.
# * Controller mutations (KIP-599, 2.7): a `TokenBucket`, strict for new request versions (reject
#   when overdrawn), permissive for old ones (accept, report a throttle time).
#
# **Neighbours.** The response limits and the first-batch exception are lesson 1
# ([01_fetch_size_limit](01_fetch_size_limit.ipynb)); `SimpleRate` and its windows drive
# replication throttles in lesson 4 ([04_replication_quotas](04_replication_quotas.ipynb)); a
# consumer's memory per response is lesson 3 ([03_consumer_buffer_memory](03_consumer_buffer_memory.ipynb));
# the whole cluster is in the tour ([00_tour](00_tour.ipynb)).
#
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("08", 1, my_answer=None)

# %%
exercise("08", 2, my_answer=None)

# %%
exercise("08", 3, my_answer=None)

# %%
exercise("08", 4, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# Put in your `server.properties` and consumer settings (paths, or mappings of Kafka keys), your
# Kafka version, your store's first-byte latency (p50) and bandwidth, and how many remote
# partitions a catch-up job reads from one broker. The first cell gives the formula, the metrics
# to watch (what each one says) and the knobs; the second simulates the same catch-up.

# %%
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("08", consumer={"max.partition.fetch.bytes": 1048576},
                   broker={"remote.log.reader.threads": 10}, kafka_version="4.1", partitions=4,
                   remote_read_latency_ms=100.0, remote_read_bytes_per_s=100 * MiB))

# %%
mine = replace(TIERED_LESSON_SCENARIO, kafka_version="4.1", remote_log_reader_threads=10,
               remote_read_latency_ms=100.0, remote_read_bytes_per_s=100 * MiB,
               remote_partitions=4, catch_up_consumers=1)
print(trace_summary(simulate(mine)).to_string())

# %% [markdown]
# **Course:** ← [7 · share groups](07_share_groups.ipynb) · [9 · other clients](09_other_clients.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
