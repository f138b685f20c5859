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
# # 0 · A tour of kipviz: which limit applies?
#
# Kafka bounds memory and shares bandwidth with a handful of settings that live in different
# places: the consumer's `fetch.max.bytes` and `max.partition.fetch.bytes` (KIP-74), the broker's
# `queued.max.request.bytes` (KIP-72), the replication throttles (KIP-73), and two proposals that
# never shipped: the consumer's `buffer.memory` (KIP-81) and Kafka Streams' `input.buffer.max.bytes`
# (KIP-770). This tour puts one cluster on one dashboard; each lesson then takes one limit apart:
#
# | lesson | question |
# |---|---|
# | [1 · fetch size limit](01_fetch_size_limit.ipynb) | Who gets the bandwidth when a fetch response is full? (KIP-74) |
# | [2 · memory pool](02_memory_pool.ipynb) | How does a broker bound the memory of requests it has not handled yet? (KIP-72) |
# | [3 · consumer buffer.memory](03_consumer_buffer_memory.ipynb) | What would a consumer `buffer.memory` buy, and why not cap the fetches instead? (KIP-81) |
# | [4 · replication quotas](04_replication_quotas.ipynb) | How fast can a reassignment go without starving clients? (KIP-73) |
# | [5 · Streams input buffer](05_streams_input_buffer.ipynb) | How much memory will my Streams app use? (KIP-770) |
# | [6 · sweeps](06_sweeps.ipynb) | Which fetch settings are safe at once? Both limits over every value, by Kafka version (a Spark sweep) |
# | [7 · share groups](07_share_groups.ipynb) | I have more consumers than partitions: who gets what, and how much memory does each hold? (KIP-932) |
# | [8 · tiered storage](08_tiered_storage.ipynb) | My consumer is slow reading old data: why, and what do the remote quotas do? (KIP-405, KIP-956) |
# | [9 · other clients](09_other_clients.ipynb) | My consumer isn't Java: how much memory do librdkafka, franz-go and kafka-python hold, and what do I set for a container's limit? (issue 31) |
#
# The [cheat sheet](cheatsheet.ipynb) has the formulas, defaults and version rules on one page, and
# the [glossary](glossary.ipynb) the terms. Sizes are in MiB (1,048,576 bytes), with the byte value
# where Kafka's setting is in bytes; rates are in MB/s (1,000,000 bytes per second), and so are the
# amounts a rate moves and the sizes measured that way (a reassignment's 200 MB partitions, a
# published 120 MB heap, a 1 KB record value), in decimal KB, MB and GB.
#
# **The cluster.** Six brokers. A consumer catches up on 120 skewed partitions (16 MiB behind
# each) while its application processes 50 MB/s; one broker takes a spike of 4 MiB produce
# requests from 100 clients; ten partitions of 200 MB are being reassigned with producers writing
# 10 MB/s into them. Every curve below is computed by Spark from simulated traces.

# %% [markdown]
# **Course:** [1 · fetch size limit](01_fetch_size_limit.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
from kipviz import data_file
from kipviz.widgets import TourDashboard

MiB = 1024 * 1024
tour = TourDashboard(spark=spark, heap_bytes=128 * MiB)
c = tour.curves
print(c.consumer.summary_table().to_string(index=False))
print(f"broker: requests held at peak {c.broker.memory['pool_used_max_bytes'].max() / MiB:.1f} MiB "
      f"(queued.max.request.bytes {c.broker.queued_max_request_bytes / MiB:.0f} MiB)")
print(f"reassignment: {c.reassignment.move_text} "
      f"(planned, followers counted: {c.reassignment.planned_move_time_s:.1f} s; "
      f"KIP-73's formula: {c.reassignment.kip_move_time_s:.1f} s)")

# %% [markdown]
# The dashboard below starts from this cluster. Its figure, drawn from the same curves as a static
# picture (the one a notebook viewer or `kipviz report` shows without a kernel):

# %%
from kipviz.plots.tour import tour_figure, update_tour_figure

picture = tour_figure(title="The cluster at the dashboard's start (consumer on Kafka 4.3)")
update_tour_figure(picture, c.consumer, c.broker, c.reassignment)
picture

# %% [markdown]
# The consumer table's columns: the peak and 99th percentile of fetched bytes the consumer
# retains (MiB), what its application processed (MB/s), *pool dry %* (the share of *ticks*, the
# simulation's 10 ms steps, in which KIP-81's pool had no memory left), the longest delay of a
# heartbeat response, and *min Jain*, the lowest Jain's index over the run's *windows* (1 when
# every partition got its max-min fair share of the bytes, 1/n when one took all; lesson 1 and the
# glossary define them).
#
# **Read it like this.** The consumer's memory is not `max.partition.fetch.bytes`. Its
# application lags, so what it holds depends on its Kafka version (the dashboard's first control):
# from Kafka 4.0 one response per broker (KAFKA-17182) and, for a moment, the drained one still
# next in line; before that a bound of a completed fetch of every partition and the whole
# response being drained. Here the term that binds on 4.3 is one response per broker, 6 x 16 MiB
# = 96 MiB (below partitions x `max.partition.fetch.bytes`, 120 x 1 MiB), plus the drained 16 MiB:
# the picture's top right shows today's consumer holding about one response per broker, under
# that bound (both measured on a real Kafka 4.4 consumer, lesson 1). KIP-81's
# proposed `buffer.memory` of 32 MiB would hold 32 MiB plus at most one response; the pool's
# consumer holds 32 MiB. The one answer for this consumer, on the newest release and on 3.9:

# %%
from dataclasses import replace

from kipviz.kafka.consumer import consumer_memory_bounds

consumer = replace(tour.scenario.consumer, buffer_memory_bytes=None)
print(consumer_memory_bounds(consumer).sentence())
print(consumer_memory_bounds(replace(consumer, kafka_version="3.9")).sentence())

# %% [markdown]
# The broker's pool holds requests at `queued.max.request.bytes` plus at most one request (bottom
# left: 40.9 MiB at peak against 40 MiB). The reassignment moves at the throttle T minus R x IN, R being the replication factor and
# IN the inbound rate producers write into the moving partitions: `--throttle` puts the two in-sync
# followers under the leader's quota too, so 50 MB/s nets 20 MB/s, not KIP-73's 40 (bottom right;
# KIP-73's own formula, in the warnings below, scales by MoveRatio, the share of each broker's log
# that moves). Move any knob: only the part it belongs to is simulated again, and Spark redraws its
# curves.

# %% tags=["nbval-ignore-output"]
tour

# %% [markdown]
# ## Your own config
#
# Paste a `consumer.properties` and a `server.properties` into the boxes above the figure and press
# the button, or load files. The sample files in `data/` are a production consumer and a broker
# set up for tonight's reassignment: `queued.max.request.bytes` 200 MiB (at least
# `socket.request.max.bytes`, 100 MiB, as Kafka requires) and both throttles at 50 MB/s, above
# R x IN = 30 MB/s. Kafka accepts both files, and with a 128 MiB consumer heap kipviz has nothing
# to warn about. (The memory check uses the consumer's Kafka version: on 4.3 its 6 x 16 MiB fit;
# on 3.9 a lagging application could reach 120 x 2 MiB = 240 MiB, and the same files would warn.)

# %%
tour.load(data_file("consumer.properties"), data_file("server.properties"))
print("\n".join(tour.config_notes) or "no warnings")
print()
print(tour.curves.consumer.summary_table().to_string(index=False))
print(f"reassignment finished: {tour.curves.reassignment.finished}")

# %% [markdown]
# Now break it, as a tired operator might: a broker config with `queued.max.request.bytes` at
# 64 MiB, below `socket.request.max.bytes`, and both throttles at 8 MB/s, below R x IN (a mapping
# of Kafka keys works as well as a file):

# %%
broken = {"queued.max.request.bytes": 67108864, "leader.replication.throttled.rate": 8000000,
          "follower.replication.throttled.rate": 8000000}
tour.load(data_file("consumer.properties"), broken)
print("\n".join(tour.config_notes))
print(f"reassignment finished: {tour.curves.reassignment.finished}")

# %% [markdown]
# Each warning names the Kafka setting, the rule and the numbers, most important first (the
# dashboard shows each in one line, the detail a click away). A setting Kafka itself would refuse
# (here `queued.max.request.bytes` below `socket.request.max.bytes`) is reported, and the curves
# use the rest of the config with Kafka's default for that one setting; throttles at or below
# R x IN leave the reassignment unfinished.
#
# ## Which KIP shipped where
#
# | KIP | what it bounds | in Apache Kafka |
# |---|---|---|
# | KIP-74 | fetch response size: `fetch.max.bytes`, round-robin partition order | 0.10.1.0 (fetch v3); requests in hash order 3.7 to 4.1 (KAFKA-14274, undone by KAFKA-19820 in 4.2) |
# | KIP-541 | the broker's own `fetch.max.bytes` caps every response | 2.5.0 |
# | KAFKA-17182 | a lagging consumer holds one response per broker (no fetch to a broker with buffered data) | 4.0.0 |
# | KIP-405 | tiered storage: a fetch below the local log start is read from remote storage on `remote.log.reader.threads` and waits in `DelayedRemoteFetch` with the request's local data ([lesson 8](08_tiered_storage.ipynb)) | 3.6.0 (early access), production-ready 3.9.0; one remote partition per fetch request until 4.2 (KAFKA-14915), charged to `fetch.max.bytes` up front from 4.2 (KAFKA-19462) |
# | KIP-1018 | `remote.fetch.max.wait.ms` (500) for `DelayedRemoteFetch` | 3.8.0 (before: the request's `fetch.max.wait.ms`) |
# | KIP-956 | tiered-storage bandwidth: `remote.log.manager.{copy,fetch}.max.bytes.per.second` | 3.8.0 (throttle times and metrics 3.9.0) |
# | KIP-599 | controller mutations: `controller_mutation_rate`, a token bucket (strict / permissive) | 2.7.0 |
# | KIP-932 | share groups: consumers share a partition's records; `group.share.partition.max.record.locks` caps records in flight (soft by one log batch), `max.poll.records` caps a share fetch, `fetch.max.bytes` is split evenly over the partitions acquired ([lesson 7](07_share_groups.ipynb)) | early access in 4.0, preview in 4.1, generally available in 4.2 (KIP-1206's `share.acquire.mode` in 4.2) |
# | KIP-73 | replication throttles: `leader/follower.replication.throttled.rate` | 0.10.1.0 |
# | KIP-72 | broker request memory: `queued.max.request.bytes` | 1.0.0 |
# | KIP-81 | consumer `buffer.memory` | **never merged** (accepted; pull requests closed) |
# | KIP-770 | Streams `statestore.cache.max.bytes` | 3.4.0 |
# | KIP-770 | Streams `input.buffer.max.bytes` | **reverted**: merged twice (apache/kafka#11424, #11796) and reverted twice (67cf187603, 38b08dfd33) |
#
# kipviz models KIP-81 and the input-buffer half of KIP-770 *as proposed* and says so wherever
# they appear.
#
# ## Myths the lessons correct
#
# | myth | what Kafka does | lesson |
# |---|---|---|
# | A record larger than `max.partition.fetch.bytes` is skipped silently. | Since KIP-74 the first record batch is returned whole even above the limits; before it the consumer failed with `RecordTooLargeException`. Nothing is skipped. | 1 |
# | `max.partition.fetch.bytes` bounds a consumer's memory. | It bounds one partition in one response. From Kafka 4.0 a consumer holds at most one response per broker, min(brokers x `fetch.max.bytes`, partitions x `max.partition.fetch.bytes`) (KAFKA-17182), and the drained one still next in line; before 4.0 its bound is partitions x `max.partition.fetch.bytes`, though a real lagging consumer stays far below it. Both measured on real Kafka consumers (`kipviz reality`). | 1, 3 |
# | `fetch.max.bytes` is an absolute maximum. | It is a target: one whole batch above it is returned so the consumer can make progress. | 1 |
# | `queued.max.request.bytes` is a hard cap. | The pool is non-strict: up to `queued.max.request.bytes + socket.request.max.bytes - 1` bytes. | 2 |
# | Kafka has a consumer `buffer.memory`. | The producer has one; the consumer's (KIP-81) was never merged. | 3 |
# | Any throttle only slows a reassignment down; above the inbound rate it finishes. | `--throttle` counts the in-sync followers against the leader's quota: at or below R x the inbound rate it never finishes. | 4 |
# | Streams bounds its input buffer in bytes. | Today it bounds records per partition (`buffered.records.per.partition`); the byte bound was reverted. | 5 |

# %% [markdown]
# **Course:** [1 · fetch size limit](01_fetch_size_limit.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
