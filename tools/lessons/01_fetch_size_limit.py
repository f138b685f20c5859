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
# # 1 · Which limit applies to a fetch? (KIP-74)
#
# **The question.** A consumer reads many partitions from a few brokers. How many bytes can one
# fetch bring back, how much memory can the consumer hold, and which partitions get the bandwidth
# when a limit bites?
#
# **The mechanism in a sentence.** Since Kafka 0.10.1 ([KIP-74](https://cwiki.apache.org/confluence/display/KAFKA/KIP-74%3A+Add+Fetch+Response+Size+Limit+in+Bytes))
# a fetch response has a size limit, `fetch.max.bytes`, beside the per-partition
# `max.partition.fetch.bytes`: the broker fills partitions *in request order* until the limit is
# reached, but always returns the first record batch so that the consumer makes progress.
#
# Everything below runs kipviz's model of Kafka's code (`ReplicaManager.readFromLog`, the consumer's
# `fetchablePartitions`); Spark turns the simulated traces into the curves.

# %% [markdown]
# **Course:** ← [the tour](00_tour.ipynb) · [2 · memory pool](02_memory_pool.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
from dataclasses import replace

from kipviz import curves, plots
from kipviz.curves.consumer.compare import (
    bounds_table,
    fill_cases_table,
    order_fairness_table,
    response_sizes,
    starvation_table,
    version_order_table,
)
from kipviz.kafka.fetch import Ordering, fill_response
from kipviz.scenarios import Workload
from kipviz.scenarios.consumer import ConsumerScenario, memory_by_version, simulate
from kipviz.widgets import LESSON_SCENARIO, FetchDashboard

MiB = 1024 * 1024


# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: a 1 MiB response (`fetch.max.bytes`) with
# 512 KiB per partition (`max.partition.fetch.bytes`), filled by `fill_response`. A and B each fill
# their 512 KiB, ending in a partial batch that the consumer drops and fetches again; the response
# is then full, and C, last in the request, gets nothing.)

# %%
from kipviz.plots.diagrams import diagram

diagram("01")

# %% [markdown]
# ## 1. The response rules, on numbers
#
# `fill_response` takes, per partition in request order, the sizes of the record batches from the
# fetch offset, and returns the raw bytes the broker sends and the whole batches inside them:
#
# * a budget per partition of `min(max.partition.fetch.bytes, what is left of the response limit)`;
# * the **first-batch exception**: until some partition has returned bytes, the budget is raised
#   to the size of the batch at the fetch offset (only the first *non-empty* partition benefits);
# * raw bytes may end in a **partial batch**, which the consumer drops and fetches again;
# * a partition whose budget cannot hold its whole first batch is **emptied** and uses no budget.
#
# > **Kafka's code, not the KIP text.** KIP-74 says the broker returns the first message of *the
# > first partition* even when it is larger than the limits. `ReplicaManager.readFromLog` keeps its
# > `minOneMessage` flag until some partition has returned bytes, so the exception goes to the
# > first *non-empty* partition: an empty partition at the front does not use it up. kipviz models
# > the code.

# %%
cases = [
    ("a 2 MiB batch, 1 MiB partition limit", [[2 * MiB]], 50 * MiB, MiB),
    ("exception for the first non-empty partition only", [[], [2 * MiB], [2 * MiB]], 50 * MiB, MiB),
    ("partial tail batch", [[400, 400, 400]], 10_000, 1000),
    ("oversized batch later: emptied, budget kept", [[100], [5000], [100]], 1000, 1000),
    ("response limit reached", [[600], [600], [600]], 1000, 1000),
]
fill_cases_table(cases)

# %% [markdown]
# Before KIP-74 (fetch version 2 and older) there was no exception: the broker cut the batch at
# `max.partition.fetch.bytes`, and a consumer that got only part of a batch was stuck with
# `RecordTooLargeException` until someone raised the limit.

# %%
(v2,) = fill_response([[2 * MiB]], response_max_bytes=50 * MiB, partition_max_bytes=MiB, version=2)
(v3,) = fill_response([[2 * MiB]], response_max_bytes=50 * MiB, partition_max_bytes=MiB, version=3)
print(f"version 2: {v2.raw_bytes:,} bytes, whole batches {v2.complete_batches}, "
      f"RecordTooLargeException: {v2.record_too_large}")
print(f"version 3: {v3.raw_bytes:,} bytes, whole batches {v3.complete_batches}")

# %% [markdown]
# ## 2. The KIP's example: A and B fast, C and D slow
#
# KIP-74 warns: *"if client is always fetching partitions in order A,B,C,D then it is possible
# that response limit is hit before any messages were fetched from C and D."* Here A and B produce
# 50 times faster than C and D, `fetch.max.bytes` is 64 KiB and `max.partition.fetch.bytes`
# 32 KiB, and the application keeps up, so the consumer asks again as soon as a response is
# handled. We run the same workload with a fixed order and with KIP-74's round-robin (partitions
# that returned data move to the end).
#
# A run advances in *ticks*, the simulation's time step (10 ms here: 300 ticks are 3 s), and the
# curves aggregate the ticks into *windows* (here 10 windows of 30 ticks, 0.3 s each).

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()  # embedded local[*]; set SPARK_REMOTE or KIPVIZ_SPARK_MASTER for a cluster
spark.version

# %%
abcd = ConsumerScenario(
    partitions=4, brokers=1, fetch_max_bytes=64 * 1024, max_partition_fetch_bytes=32 * 1024,
    consume_bytes_per_s=1e9, ticks=300, windows=10,
    workload=Workload(profile="fast_slow", produce_bytes_per_s=20e6, fast_to_slow_ratio=50),
)
runs = {"fixed": simulate(replace(abcd, ordering=Ordering.FIXED), seed=1),
        "round robin": simulate(replace(abcd, ordering=Ordering.ROUND_ROBIN), seed=1)}
abcd_curves = {"fixed": curves.consumer_curves(spark, runs["fixed"]),
               "round robin": curves.consumer_curves(spark, runs["round robin"])}
starvation_table(spark, runs, names=["A", "B", "C", "D"])

# %%
plots.compare_fairness_figure(abcd_curves, title="A, B fast; C, D slow; 64 KiB responses")

# %% [markdown]
# With a fixed order, C and D starve in **every** fetch of the run: A and B always fill the
# response.
# Round-robin serves each partition within P = 4 fetches, and Jain's index stays near 1.
#
# *Jain's index* measures the fairness of one window: (Σx)² / (n · Σx²) over the n partitions
# that had data, where x is the bytes a partition got divided by its *max-min fair share*, what
# it would get if the window's bytes were shared by water-filling (nobody gets more than it asked
# for, the rest is split evenly among those that want more). 1 is perfectly fair; 1/n means one
# partition took everything.
#
# The same happens at scale. The default scenario of this lesson: 100 partitions on 3 brokers,
# each with an 8 MiB backlog, Zipf-skewed producers, `fetch.max.bytes` = 2 MiB, and every order
# kipviz models:

# %%
order_fairness_table(spark, LESSON_SCENARIO)

# %% [markdown]
# Fixed and hash orders are static, so the partitions at the front win; round-robin and
# fetch-session rotation share the bandwidth best (lowest Jain 0.984 and 0.983, no partition left
# out for more than 16 and 17 fetches). A random shuffle is better than a static order (its
# longest starvation is well short of fixed's 230 fetches and hash's 208) but far less even than
# the rotations: in its worst window Jain's index stays below 0.8, against their 0.98. Which
# order does your consumer
# use? Its requests are in assignment order with KIP-74's move-to-end, except Kafka 3.7 to 4.1,
# which send them in Java hash order (see "What Kafka does today" below). But since Kafka 1.1 the
# broker does not read an incremental fetch in request order: it reads the consumer's *fetch
# session* (KIP-227), in which every partition that returned records moves to the end. The
# request order decides only full fetches (the first one, or every one when the broker keeps no
# session: `max.incremental.fetch.session.cache.slots=0` or an evicted session) and where
# partitions the consumer left out and re-adds go. Each release with `ordering=None`, with sessions
# and with every fetch full (`incremental_fetch_sessions=False`), for this application (it keeps
# up) and for one that lags at 50 MB/s:

# %%
version_order_table(spark, LESSON_SCENARIO, ("3.6", "3.9", "4.1", "4.3"),
                    consume_bytes_per_s=(50e6,))

# %% [markdown]
# With sessions every release gets the session's rotation while its application keeps up: the
# hash order's starvation (208 fetches) shows only when every fetch is full. A lagging 1.1-3.9
# consumer leaves the partitions that still have buffered data out of its request; they are
# forgotten by the session and re-added at its end in request order, so the request order partly
# matters again (4.1's hash order: lowest Jain 0.423 with sessions, 0.066 without). From 4.0
# (KAFKA-17182, below) the consumer sends nothing to a broker that still has buffered data, so its
# session stays whole, except that a paused partition is forgotten and re-added at the end when it
# resumes.
#

# %% [markdown]
# **Measured on a real Kafka: the order, fetch after fetch.** `kipviz reality` (experiment
# `partition_order`) gives one Java consumer 16 partitions on two real brokers of each release:
# broker 1 keeps fetch sessions, broker 2 runs with `max.incremental.fetch.session.cache.slots=0`,
# so every fetch to it is full. At `fetch.max.bytes` 50,000 and `max.partition.fetch.bytes` 20,000
# a response carries two of a broker's eight partitions. The consumer keeps up, and each broker
# logs every fetch with its response (`kafka.request.logger` at DEBUG): which partitions, in which
# order, how many bytes. kipviz's simulation over the batches the brokers stored predicted every
# response of the four runs exactly, partition by partition and byte by byte (the table leaves
# out the rows with the whole sequences; they are in `data/reality/results.md`):

# %%
from IPython.display import Markdown

from kipviz.reality.results import measured_table

Markdown(measured_table("partition_order", leave_out="every response"))

# %% [markdown]
# Without sessions the 3.9 consumer's hash order puts partitions 11 and 13 first in every
# request, so they come back in every response until they run dry, and partition 1 gets its
# first records in response 30. The 4.4 consumer (KIP-74's move-to-end again since 4.2) reaches
# all eight partitions within four responses. With sessions the two releases rotate alike. Two
# details came from the measurement, not from reading the code. The second response repeats the
# first one's partitions: a full fetch moves nothing, and the broker creates the session in
# request order. And a consumer given its partitions with `assign()` does not start in the order
# it was given: `KafkaConsumer.assign` copies them into a `HashSet`, so they start in Java hash
# order (12, 14, 4, ... here), while a group member starts in partition order
# (`ConsumerCoordinator.onJoinComplete` sorts them in a `TreeSet`). kipviz models both:
# `ConsumerScenario(assignment="assign")` or `"group"`, the default.
#
# ## 3. Memory: the bound before and after KIP-74
#
# Before KIP-74 a consumer could hold `partitions x max.partition.fetch.bytes` of responses: with
# thousands of partitions, gigabytes. With one fetch in flight per broker, KIP-74 bounds a round of
# responses by `brokers x fetch.max.bytes`, so the bound becomes the smaller of the two.

# %%
bounds_table([(3, 10), (3, 100), (3, 1000), (3, 5000)])

# %% [markdown]
# What does the simulated consumer actually hold? Three runs at Kafka's defaults
# (`fetch.max.bytes` 50 MiB, `max.partition.fetch.bytes` 1 MiB): two where the application keeps up,
# and one where it handles only 50 MB/s. Each runs on the same record batches under Kafka 3.9's
# rules and under 4.3's (`memory_by_version`).

# %%
defaults = replace(LESSON_SCENARIO, fetch_max_bytes=52428800, ordering=None)
memory = memory_by_version({
    "100 partitions": defaults,
    "1000 partitions": replace(defaults, partitions=1000),
    "1000 partitions, app at 50 MB/s": replace(defaults, partitions=1000, consume_bytes_per_s=50e6),
}, versions=("3.9", "4.3"))
memory[["label", "rule", "peak_held_mib", "bound_mib", "kip74_bound_mib", "pre_kip74_bound_mib"]]

# %%
plots.memory_bounds_figure(memory, title="Peak consumer memory against the bounds (MiB, log scale)")

# %%
print(memory.sentence.iloc[4])
print(memory.sentence.iloc[5])

# %% [markdown]
# While the application keeps up, both releases stay near KIP-74's figure. The bounds differ: 3.9's
# has to allow every partition a completed fetch (1,000 x 1 MiB and the 50 MiB response being
# drained: 1,062.5 MiB), 4.3's only one response per broker and one more (200 MiB).
#
# * **Kafka 4.0 and later** ([KAFKA-17182](https://issues.apache.org/jira/browse/KAFKA-17182),
#   apache/kafka#18795) send no fetch to a broker while any fetchable partition it serves still has
#   buffered data, so a lagging consumer holds one response per broker, here 3 x 50 MiB = 150 MiB,
#   and for a moment one more: a drained `CompletedFetch` stays `FetchBuffer.nextInLineFetch` until
#   the next poll replaces it, while the next response to its broker lands beside it. Kafka did not
#   do this to save memory: a request that left out the buffered partitions dropped them from the
#   broker's incremental fetch session (KIP-227), and in some cases the whole session was evicted.
#   (This is the KAFKA-17182 story the other lessons link to.)
# * **Kafka 3.9 and earlier** may fetch every partition that has nothing buffered
#   (`AbstractFetch.fetchablePartitions`), which is why their bound is `partitions x
#   max.partition.fetch.bytes`. But the simulated lagging consumer holds about 153 MiB, not 1 GiB:
#   its classic consumer hands the responses it read to the fetch buffer only in a poll that
#   found nothing buffered (`ClassicKafkaConsumer.pollForFetches`; KAFKA-8677, 2.4), and every
#   partition a response lists without records is a completed fetch too, waiting behind the
#   others. Both were found by measuring a real consumer (below), not by reading the code.
#
# **Measured on a real Kafka.** `kipviz reality` runs Apache Kafka 4.4.0 and 3.9.2 brokers and Java
# consumers on this machine (2 cores) and counts the response buffers each consumer keeps
# reachable, every 5 ms. A lagging 4.4 consumer of 3 partitions of 256 KiB on one broker reached
# 1,573,168 bytes: two 768 KiB responses (the drained one and the next) and their own fields,
# exactly kipviz's bound; the 3.9 consumer of 12 partitions on one broker held 1.3 MB where its
# bound is 4 MiB. The whole table is in `data/reality/results.md`.
#
# The heap holds *whole responses*: each partition's records are a slice of its response's one
# receive buffer (`Readable.readRecords` -> `ByteBufferAccessor.readByteBuffer` -> `buf.slice()`,
# kept by `CompletedFetch`), so a response stays until its last buffered partition is consumed,
# and on any release a paused partition with data pins one whole response. Each response also
# carries its own fields (113 bytes for one topic and two partitions at fetch v17, measured).
#
# For sizing a heap: on 4.x, budget `(brokers + 1) x fetch.max.bytes` (capped by `partitions x
# max.partition.fetch.bytes` plus one response) plus one record batch per broker, whatever the
# lag, plus one whole response per partition you pause while it holds data; on 3.9 and earlier
# the bound is `partitions x max.partition.fetch.bytes` plus one response, though a real lagging
# consumer stays far below it. `consumer_memory_bounds(scenario)` gives the figure and the rule
# for any scenario, and the dashboards, the tour and `kipviz run` print the same sentence.
#
# ## 4. The response-size guarantee
#
# KIP-74 promises a response is never bigger than `max(fetch.max.bytes, size of the first batch)`.
# Here one partition writes 5 MiB records while `fetch.max.bytes` is 1 MiB: the responses that
# carry one of them exceed the limit, by exactly that one batch.

# %%
big = replace(LESSON_SCENARIO, fetch_max_bytes=MiB, ordering=Ordering.ROUND_ROBIN, ticks=500,
              windows=5,
              workload=replace(LESSON_SCENARIO.workload, large_record_bytes=5 * MiB))
print(response_sizes(big, simulate(big)))

# %% [markdown]
# ## 5. Try it
#
# Move the sliders: each change re-runs the simulation and has Spark recompute the curves (with a
# warm session this takes well under a second). Things to try:
#
# * switch the order from *fixed* to *round-robin* or *session*: the fairness dips disappear;
# * set the Kafka version to 3.7 and the order to *as this Kafka version does*: hash order;
# * raise `fetch.max.bytes` to 50 MiB: the limit stops binding and the order no longer matters;
# * set `max.partition.fetch.bytes` above `fetch.max.bytes`: the response limit applies first;
# * raise the skew: the hot partitions at the front of a fixed order take even more.

# %%
FetchDashboard(spark=spark)

# %% [markdown]
# ## Conclusion
#
# * A fetch response holds at most `min(consumer fetch.max.bytes, broker fetch.max.bytes)`, except
#   for the first record batch, which always comes back whole (so a large record never blocks a
#   consumer since Kafka 0.10.1; it is not skipped either).
# * Because partitions are filled in request order, a fixed order starves partitions at the back;
#   rotating the order restores fairness.
# * Consumer memory is bounded per round by `min(brokers x fetch.max.bytes, partitions x
#   max.partition.fetch.bytes)`. When the application lags, Kafka 4.0 and later still hold one
#   response per broker (KAFKA-17182); 3.9 and earlier grow towards `partitions x
#   max.partition.fetch.bytes` plus the response being drained. Responses are held whole, so each
#   paused partition with data adds one.
# * Since Kafka 1.1 the fetch session, not the request, orders incremental fetches: a consumer
#   that keeps up (and any 4.x consumer) sees the session's rotation, whatever its request order.
#   Measured on real brokers without sessions, 3.9.2's hash order kept one partition waiting for 30
#   responses where 4.4.0 served all eight within four.
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models, `kipviz.kafka.config.NEWEST_KAFKA_VERSION`);
# each point says from which release it holds.
#
# * **Request order, by version** (read on each release branch): the consumer keeps its assignment
#   in `PartitionStates` and `CompletedFetch.drain` moves a partition that returned bytes to the
#   end (KIP-74's round-robin). Kafka 0.10.1 to 3.6 list partitions in that order. Kafka 3.7 to
#   4.1 copy the list into a `HashSet` in `AbstractFetch.fetchablePartitions` (KAFKA-14274,
#   apache/kafka#14359), so requests go in Java's hash order: static, like *hash* above. Kafka 4.2
#   went back to the list (KAFKA-19820, apache/kafka#20745). `ConsumerCoordinator` assigns in sorted
#   order; `KafkaConsumer.assign` starts in Java hash order (`new HashSet<>(partitions)`,
#   measured). (0.10.0, before KIP-74, wrote requests grouped by topic in `HashMap`s,
#   `CollectionUtils.groupDataByTopic`: topics in `String` hash order, partitions in `Integer` hash
#   order.)
# * **Fetch sessions** (KIP-227, Kafka 1.1, fetch request v7): the broker reads an incremental
#   fetch in the session's order (`IncrementalFetchContext.foreachPartition` walks
#   `session.partitionMap()`; `FetchSession.scala` to 4.2, `server/.../FetchContext.java` from
#   4.3) and moves each partition that returned records to its end (*session* above); before 3.0
#   (KAFKA-12330) a partition moved whenever it was in the response at all, a new high watermark
#   enough. Partitions a request leaves out are forgotten; re-added ones go to the end in request
#   order. The broker keeps `max.incremental.fetch.session.cache.slots` (1000) sessions, evicts
#   one only after 120 s (hard-coded), and from 3.8 shards the cache eight ways (KAFKA-9401).
#   kipviz's `ordering=None` follows all this; `incremental_fetch_sessions=False` makes every
#   fetch full.
# * **Kafka 4.0** (KAFKA-17182): no fetch to a broker while any fetchable partition it serves has
#   buffered data; paused partitions keep their data without blocking their broker. The classic
#   consumer (`Fetcher`) and the new one (KIP-848's `AsyncKafkaConsumer`) share this code. When a
#   partition's leader or preferred read replica changes, a fetch can go to the new broker while
#   the old one's response is still buffered: two responses of one node for a moment.
# * **Broker caps**: the broker's own `fetch.max.bytes` (KIP-541, Kafka 2.5) and, for a consumer
#   with a fetch quota, `quota x (quota.window.num - 1) x quota.window.size.seconds` per response
#   (KAFKA-9677, first released in Kafka 2.5.0); a fetch over its quota comes back empty with a
#   throttle time (KIP-219, Kafka 2.0). `ConsumerScenario(fetch_quota_bytes_per_s=...)` models both.
# * Defaults: consumer `fetch.max.bytes` 52428800 (50 MiB), `max.partition.fetch.bytes` 1048576,
#   broker `fetch.max.bytes` 57671680 (55 MiB), `replica.fetch.response.max.bytes` 10485760 for
#   followers, which use the same response limit.

# %% [markdown]
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("01", 1, my_answer=None)

# %%
exercise("01", 2, my_answer=None)

# %%
exercise("01", 3, my_answer=None)

# %%
exercise("01", 4, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# The lesson's formula with your own settings, the metric to watch and the knob to turn. Replace the sample files with your `consumer.properties` and `server.properties` (paths, or mappings of Kafka keys) and the numbers with your cluster's; settings Kafka would refuse are reported as notes.

# %%
from kipviz import data_file
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("01", data_file("consumer.properties"), data_file("server.properties"),
                   brokers=6, partitions=120))

# %% [markdown]
# **Course:** ← [the tour](00_tour.ipynb) · [2 · memory pool](02_memory_pool.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
