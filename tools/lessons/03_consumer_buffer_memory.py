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
# # 3 · What would a consumer `buffer.memory` buy, and why not cap the fetches instead? (KIP-81)
#
# **The question.** `max.partition.fetch.bytes` is 1 MiB, yet a lagging consumer's heap holds a
# hundred times that, and no consumer setting names the number. KIP-81 proposed one,
# `buffer.memory`. What would it have bought, at what cost, why did the KIP reject capping the
# fetches in flight instead, and what bounds the memory today? (Which values of the fetch
# settings are safe, over all of them at once, is [lesson 6](06_sweeps.ipynb).)
#
# **The mechanism in a sentence.** [KIP-81](https://cwiki.apache.org/confluence/display/KAFKA/KIP-81%3A+Bound+Fetch+memory+usage+in+the+consumer)
# proposed a consumer setting `buffer.memory` (default 100 MiB): every fetch response is read from
# the socket into one memory pool (KIP-72's `SimpleMemoryPool`), a socket is read only while the pool
# has memory, heartbeats from the group coordinator bypass the pool, and the memory goes back once
# the records are handed to the application.
#
# > **Status: accepted, never merged.** Its pull requests (apache/kafka #3684, #4934, #6193) were
# > closed unmerged; Apache Kafka has no consumer `buffer.memory` today. kipviz models KIP-81
# > *as proposed*, beside today's consumer and the alternative the KIP rejected.

# %% [markdown]
# **Course:** ← [2 · memory pool](02_memory_pool.ipynb) · [4 · replication quotas](04_replication_quotas.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
from dataclasses import replace

from kipviz.curves.consumer.buffer import buffer_curves
from kipviz.curves.consumer.compare import bounds_table, heap_table
from kipviz.curves.sweep import grid, pareto_front, sweep
from kipviz.kafka.consumer import consumer_memory_bounds, poll_heap_sentence
from kipviz.plots.consumer_buffer import MODE_NAMES, buffer_figure, heap_figure
from kipviz.plots.sweep import pareto_figure
from kipviz.scenarios.consumer import memory_by_version, simulate, simulate_modes
from kipviz.widgets import BUFFER_LESSON_SCENARIO, BufferDashboard

MiB = 1024 * 1024


# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: what bounds a lagging consumer of 100
# partitions on 3 brokers with `fetch.max.bytes` 10 MiB, from `kipviz.kafka.consumer.memory`. On 3.9 a
# completed fetch of every partition (100 x 1 MiB) and the 10 MiB response being drained, held
# whole: 110 MiB; with KIP-81's proposed 16 MiB `buffer.memory`
# the pool plus one response, less 1 byte; on 4.3 one response per broker and the drained one
# still next in line, 4 x 10 MiB.)

# %%
from kipviz.plots.diagrams import diagram

diagram("03")

# %% [markdown]
# ## 1. The bound today, on numbers
#
# A consumer sends one fetch request to every broker that leads a partition it reads, in parallel.
# Each response is limited by `fetch.max.bytes` (50 MiB) and each partition in it by
# `max.partition.fetch.bytes` (1 MiB). So the worst case is not 1 MiB but, as KIP-74 and KIP-81 put
# it, **min(brokers x `fetch.max.bytes`, partitions x `max.partition.fetch.bytes`)**:

# %%
print(bounds_table([(3, 10), (3, 100), (10, 120), (3, 1000), (30, 1000)]).to_string(index=False))

# %% [markdown]
# With the defaults, a consumer of 1,000 partitions on 3 brokers may hold 150 MiB of fetched data,
# and on 30 brokers 1,000 MiB. Nothing in the consumer's settings names that number. And it is the
# figure for *one round* of fetches: whether it also bounds a consumer whose application falls
# behind depends on the Kafka version (section 3).
#
# ## 2. One lagging consumer, three ways
#
# The lesson consumer reads 120 partitions led by 10 brokers. Each partition has a 64 MiB backlog
# and producers keep adding 20 MB/s; the application processes 50 MB/s, slower than the network, so
# fetched data piles up. `fetch.max.bytes` is 20 MiB (each broker's response holds its 12
# partitions, 12 MiB), `max.partition.fetch.bytes` its 1 MiB default. The same record batches go to:
#
# * **the consumer as KIP-81 knew it**: Kafka 2.3's rules, no pool, the last release that handed
#   each response to its fetch buffer as soon as it read it (from 2.4 a classic consumer hands
#   them over only in a poll that found nothing buffered, KAFKA-8677, measured on a real 3.9.2
#   consumer; 3.9 and 4.x follow in section 3);
# * **KIP-81**: a pool of `buffer.memory` = 30,000,000 bytes (30 MB, 28.6 MiB; it must be at
#   least `fetch.max.bytes`);
# * **the rejected alternative**: no more fetch requests in flight, or not yet consumed, than whole
#   responses fit in the same 30 MB (two).

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
traces = simulate_modes(BUFFER_LESSON_SCENARIO, seed=0)
curves = buffer_curves(spark, traces)
print(curves.summary_table().to_string(index=False))
print("KIP-74 bound:", curves.bounds["today"]["kip74_bound_bytes"] / MiB, "MiB; pool bound "
      "buffer.memory + largest response - 1:",
      round(curves.bounds["kip81_pool"]["pooled_bound_bytes"] / MiB, 1), "MiB")

# %%
buffer_figure(curves, title="The same lagging consumer: today, KIP-81's pool, the in-flight cap")

# %% [markdown]
# Columns: the peak and 99th percentile of fetched bytes retained, what the application
# processed, *pool dry %* (the share of ticks, the simulation's 10 ms steps, in which the pool had
# no memory left), the longest delay of a heartbeat response, and *min Jain*, the lowest per-window
# Jain's index over the partitions (lesson 1: 1 is fair, 1/n one partition took all).
#
# **What the picture says.**
#
# * **Today's consumer** keeps 120 completed fetches of 1 MiB waiting for the application, the
#   KIP-74 bound, and a little more (131 MiB): each partition's records are a slice of its
#   response's one receive buffer (`Readable.readRecords` -> `ByteBufferAccessor.readByteBuffer` ->
#   `buf.slice()`, kept by `CompletedFetch`), so a response stays on the heap until the *last* of
#   its partitions has been consumed, while partitions already consumed are fetched again. `max.partition.fetch.bytes` bounds one partition in one response, nothing more.
# * **KIP-81's pool** holds 39 MiB at peak: `buffer.memory` (30 MB, 28.6 MiB) plus most of one
#   12 MiB response (12 partitions x 1 MiB), under its bound of 40.6 MiB. Like the broker's pool
#   (lesson 2) it is non-strict, reading a whole response while a single byte is free, so its
#   bound is `buffer.memory + largest response - 1`. Responses that do not fit stay in the
#   sockets; the application gets the same 50 MB/s, because it was the bottleneck all along.
# * **The cap** holds two responses (24 MiB, 2 x 12 MiB) and loses nothing *here*: the
#   application is slow.
# * **Fairness** (bottom right, Jain's index per 1 s window). Today's consumer and the cap sit
#   flat at 0.40 because the application is the bottleneck: at 50 MB/s it drains about 48
#   completed fetches of 1 MiB a second, so in every window 48 of the 120 partitions advance,
#   and k equal shares among n partitions give Jain's index k/n = 48/120. The pool dips below
#   that, to 0.033 (its "min Jain", as if 4 of the 120 partitions advanced): responses are read
#   in bursts as memory frees, so in some seconds only a few brokers' partitions advance. Over
#   the whole run every partition advances alike: each response has room for all 12 of its
#   broker's partitions, so no partition order can starve one (KIP-81 relies on KIP-74's
#   partition order, lesson 1, instead of a fairness rule of its own).
#
# ## 3. The same workload on Kafka 4.x
#
# Kafka 4.0 changed the consumer itself ([KAFKA-17182](https://issues.apache.org/jira/browse/KAFKA-17182),
# apache/kafka#18795; the story is in [lesson 1](01_fetch_size_limit.ipynb)):
# `AbstractFetch.prepareFetchRequests` sends no fetch to a broker while any fetchable partition it
# serves still has buffered data, which bounds a lagging consumer at one response per broker.
# Without a pool, on the same record batches, under 3.9's rules and 4.3's, and once more with
# `fetch.max.bytes` at 4 MiB:

# %%
versions = memory_by_version({
    "fetch.max.bytes 20 MiB": replace(BUFFER_LESSON_SCENARIO, buffer_memory_bytes=None),
    "fetch.max.bytes 4 MiB": replace(BUFFER_LESSON_SCENARIO, buffer_memory_bytes=None,
                                     fetch_max_bytes=4 * MiB),
}, versions=("3.9", "4.3"))
print(versions[["label", "rule", "peak_held_mib", "bound_mib", "kip74_bound_mib"]]
      .to_string(index=False))
print(versions.sentence.iloc[2])
print(versions.sentence.iloc[3])

# %% [markdown]
# With 20 MiB responses 4.3 holds 120 MiB and 3.9 121 MiB: one response per broker already carries
# all 12 of its partitions' 1 MiB, so KIP-74's figure is about what each holds. Their bounds differ: 3.9's
# allows every partition's 1 MiB and the 12 MiB response being drained, 4.3's one response per
# broker and the drained one still next in line (both 132 MiB here, with each response's own
# fields). With 4 MiB responses 4.3 holds 10 x 4 MiB = 40 MiB (bound 44 MiB), and 3.9 holds
# 50 MiB, far below its 124 MiB bound: its classic consumer hands the responses it read
# to the fetch buffer only in a poll that found nothing buffered (KAFKA-8677), and the partitions a
# response lists without records wait in the buffer too, as real 3.9.2 consumers showed
# (`kipviz reality`). On 4.x, `fetch.max.bytes` *is* the knob KIP-81 wanted, per broker: size the
# heap for `(brokers + 1) x fetch.max.bytes` (at most `partitions x max.partition.fetch.bytes` and
# one response) plus one record batch per broker, however far the application falls behind.
#
# **Paused partitions** change that: a paused partition keeps its buffered data without blocking
# its broker, and its records pin their whole response. On 4.3, with 4 MiB responses and 6
# partitions (on 6 brokers) paused after 3 s, while they hold data, the answer adds one whole
# response per paused partition, not one partition's 1 MiB. Beside the responses the heap also
# holds what one `poll()` handed over and the batch being decompressed (1 KB records compressed
# 4:1):

# %%
paused = replace(BUFFER_LESSON_SCENARIO, buffer_memory_bytes=None, fetch_max_bytes=4 * MiB,
                 kafka_version="4.3", paused_partitions=(0, 1, 2, 3, 4, 5), pause_at_ms=3000)
print(simulate(paused, record_fetches=False).memory.held_bytes.max() / MiB, "MiB simulated")
print(consumer_memory_bounds(paused).sentence())
print(poll_heap_sentence("4.3", record_bytes=1000, compression_ratio=4.0))

# %% [markdown]
# The simulated consumer holds 64 MiB, above the old answer "one response per broker plus paused x
# `max.partition.fetch.bytes`" (40 + 6 = 46 MiB) and within the one answer, 40 + 4 (the drained
# response still next in line) + 6 x 4 = 68 MiB. It stays 4 MiB under it because a paused
# partition's completed fetch passes through `nextInLineFetch` at every poll and leaves it empty
# (`FetchCollector.java:125-130`), so the drained response is let go before that poll reads the
# network; only a response read between two polls by the heartbeat thread can land beside it. A
# real 4.4.0 consumer with one of 6 partitions paused showed exactly that (`kipviz reality`:
# 2,097,608 bytes at most, two 1 MiB responses, under a 3 MiB bound).
#
# ## 4. Why capping in-flight requests was rejected
#
# KIP-81 explains that a cap "will result in a loss of performance": when memory frees up, the
# consumer must first send a fetch and wait for its response, while a pool's next response is
# already waiting in the socket. Give the application 300 MB/s and put the brokers 50 ms away:

# %%
fast = replace(BUFFER_LESSON_SCENARIO, consume_bytes_per_s=300e6, rtt_ms=50)
fast_curves = buffer_curves(spark, simulate_modes(fast, seed=0))
print(fast_curves.summary_table().to_string(index=False))

# %% [markdown]
# Within the same 30 MB budget (plus one response of overshoot) the pool keeps the application fed
# at the pace it can process; the cap leaves it idle for a round trip after every pair of responses
# it finishes, and delivers less than half as much. That is the throughput
# the KIP refused to give up.
#
# One size of each proves little, so here are five of each on the same fast application (5 s of
# fetching, Kafka 2.3's consumer, as KIP-81 knew it): `buffer.memory` from 20 to
# 128 MiB, and caps of 1 to 6 fetches. Each point is one configuration, simulated in one Spark
# job (`kipviz.curves.sweep`, lesson 6); the front joins those no other beats on both memory and
# throughput.

# %%
fast_short = replace(BUFFER_LESSON_SCENARIO, buffer_memory_bytes=None, consume_bytes_per_s=300e6,
                     rtt_ms=50, ticks=600, windows=10)
designs = [fast_short,  # today's consumer, five pools, five caps
           *grid(fast_short, buffer_memory_bytes=[20 * MiB, 32 * MiB, 48 * MiB, 64 * MiB,
                                                  128 * MiB]),
           *grid(fast_short, max_in_flight_fetches=[1, 2, 3, 4, 6])]
pareto = sweep(spark, designs).with_params("mode", "buffer_memory_bytes", "max_in_flight_fetches")
front = pareto_front(pareto, minimize="peak_memory_bytes", maximize="throughput_bytes_per_s")
shown = front[["mode", "buffer_memory_bytes", "max_in_flight_fetches"]].copy()
shown["peak MiB"] = (front["peak_memory_bytes"] / MiB).round(1)
shown["MB/s"] = (front["throughput_bytes_per_s"] / 1e6).round(1)
print(shown.to_string(index=False))

# %%
pareto_figure(pareto, front, x="peak_memory_bytes", y="throughput_bytes_per_s", label="mode",
              title="Memory against throughput: today's consumer, KIP-81's pool, the cap")

# %% [markdown]
# Both designs are on the front, at opposite ends. The cap holds the least, 12 MiB with one fetch
# in flight and 24 MiB with two, but delivers only 64.2 and 128.5 MB/s of the 300 the application
# could take: each freed slot waits a 50 ms round trip before its response arrives. The pool
# delivers 290.7 MB/s with 30 MiB (`buffer.memory` 20 MiB) and 292.5 MB/s, as much as today's
# consumer, with 42 MiB (32 MiB), where today's consumer holds 120 MiB. Caps of 3, 4 and 6 fetches
# are off the front: each holds more than the 20 MiB pool (36, 48 and 72 MiB) and only the largest
# matches its throughput.
#
# ## 5. Why coordinator traffic bypasses the pool
#
# With the pool full, nothing is read from the sockets, including the coordinator's heartbeat
# responses. The consumer then stops sending heartbeats (one is in flight at a time), and after
# `session.timeout.ms` the group evicts it. KIP-81 therefore reads coordinator responses even when
# the pool is dry and allocates them outside it. Without that bypass (a what-if):

# %%
no_bypass = replace(BUFFER_LESSON_SCENARIO, coordinator_bypass=False)
bypass = simulate_modes(BUFFER_LESSON_SCENARIO, seed=0)["kip81_pool"].meta
starved = simulate_modes(no_bypass, seed=0)["kip81_pool"].meta
print(f"with the bypass (KIP-81)   longest heartbeat delay "
      f"{bypass['max_heartbeat_delay_ms']:>5,} ms, "
      f"longest gap between heartbeats {bypass['max_heartbeat_gap_ms']:,} ms")
print(f"without the bypass         longest heartbeat delay "
      f"{starved['max_heartbeat_delay_ms']:>5,} ms, "
      f"longest gap between heartbeats {starved['max_heartbeat_gap_ms']:,} ms")
slow = replace(no_bypass, consume_bytes_per_s=5e6, session_timeout_ms=10_000)
late = simulate_modes(slow, seed=0)["kip81_pool"].meta
print(f"without it, app at 5 MB/s  longest heartbeat delay "
      f"{late['max_heartbeat_delay_ms']:>5,} ms, "
      f"longest gap between heartbeats {late['max_heartbeat_gap_ms']:,} ms; "
      f"session.timeout.ms 10 s expired: {late['session_expired']}")

# %% [markdown]
# At the lesson's pace the missing bypass costs little: the application frees a 12 MiB response
# about every quarter second, so a heartbeat response waits at most 1.6 s and the coordinator still
# hears from the consumer every 3 s (`heartbeat.interval.ms`). The harm grows with the time the
# application takes to free memory. At 5 MB/s the response to the heartbeat sent at 3 s finds no
# room in the pool for the rest of the 20 s run, so the coordinator hears nothing for 17 s, and with
# `session.timeout.ms` at 10 s (its default before Kafka 3.0, KIP-735) the group evicts a consumer
# that is working, only slowly. Today's 45 s default takes a slower application or a longer
# `poll()` gap to reach the same end. With the bypass the heartbeat is never delayed.
#
# ## 6. Calibration: the measurement published with the pull request
#
# The KIP-81 pull request reported a consumer that needed about a **200 MB heap without the pool**
# and ran in **120 MB with `buffer.memory` = 30 MB**. A heap is more than fetch buffers, so kipviz
# estimates it as a baseline plus the peak bytes of fetch responses retained. Assumptions that give
# the published shape: the lesson workload above (120 partitions with a backlog on 10 brokers,
# responses of 12 MiB, an application slower than the network) and an **80 MB baseline** for the
# JVM, the client's other objects and the application.

# %%
baseline = 80_000_000
heaps = heap_table(traces, baseline, {"today": 200e6, "kip81_pool": 120e6}, MODE_NAMES)
print(heaps[["consumer", "simulated heap (MB)", "published (MB)"]].to_string(index=False))
heap_figure(["no pool", "buffer.memory = 30 MB"], heaps.heap_bytes.tolist(),
            heaps.published_bytes.tolist(),
            title="Heap needed: kipviz estimate against the KIP-81 measurement")

# %% [markdown]
# The two rows land near the published 200 and 120 MB, but that is by construction: the 80 MB
# baseline is the one number chosen to fit these two points, so their agreement checks nothing. What
# the model predicts on its own is the difference between the rows, the fetch buffers the pool
# removes from the heap: 96.5 MB simulated (217.4 - 120.9) against 80 MB measured. The shape holds:
# the pool caps the fetch buffers' share of the heap at `buffer.memory` plus one response.
#
# ## 7. Try it
#
# Move `buffer.memory`, `fetch.max.bytes`, `max.partition.fetch.bytes`, brokers, partitions and the
# processing rate; each move runs all three consumers and Spark redraws their curves. Put
# `fetch.max.bytes` above `buffer.memory` to see KIP-81's rule, and turn the bypass off. Switch the
# Kafka version to 4.3 and lower `fetch.max.bytes`: today's consumer (red) drops to one response per
# broker.

# %% tags=["nbval-ignore-output"]
BufferDashboard(spark=spark)

# %% [markdown]
# ## Conclusion
#
# Up to Kafka 3.9 a consumer's fetch memory is bounded per round by **min(brokers x
# `fetch.max.bytes`, partitions x `max.partition.fetch.bytes`)**, and its bound for a lagging
# application is `partitions x max.partition.fetch.bytes` (a real 3.9 consumer stays far below
# it: it hands responses over only when nothing is buffered); whole responses stay on the heap
# until their last partition is consumed. KIP-81's `buffer.memory` would have made it one number, at the
# price of one response of overshoot and a rule (`buffer.memory >= fetch.max.bytes`), with no
# throughput lost (290.7 against 292.5 MB/s at its smallest size), which a cap on in-flight
# requests could not do. Kafka 4.0 bounded it another way: one response per broker (KAFKA-17182),
# and one more for a moment, the drained response still next in line (measured on a real 4.4
# consumer, `kipviz reality`).
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models); each point says from which release it holds.
#
# * There is **no consumer `buffer.memory`**: KIP-81 was accepted in 2016 and its pull requests were
#   closed unmerged (the consumer reads into `MemoryPool.NONE`). Later work (KAFKA-13188) added
#   reference counting so a pool could be plugged in; it is not in Apache Kafka either.
# * **Kafka 4.0 and later** hold at most one response per broker (KAFKA-17182; the classic
#   and the new consumer alike) and the drained one still next in line: size the heap for
#   min(brokers x `fetch.max.bytes`, partitions x `max.partition.fetch.bytes`) plus one response
#   and each response's own fields, plus one record batch per broker, one whole response per partition
#   you pause while it holds data, and the `max.poll.records` records one `poll()` hands over
#   (decompression works one batch at a time since 0.11), and lower `fetch.max.bytes` to bound it.
#   A leader or preferred-read-replica change can let two responses of one broker overlap for a
#   moment.
# * **Kafka 3.9 and earlier**: about KIP-74's figure while the application keeps up; the bound
#   for a lagging one is `partitions x max.partition.fetch.bytes` plus the whole response it is
#   draining (and one whole response per paused partition), though since 2.4 (KAFKA-8677) a real
#   consumer hands responses over only when nothing is buffered and stays far below it (1.3 MB
#   against a 4 MiB bound, measured on 3.9.2); lower `max.partition.fetch.bytes` to bound that.
# * `consumer_memory_bounds(scenario)` prints the figure for your version, as every kipviz
#   dashboard, the tour and `kipviz run` do.
# * Fairness between partitions, which KIP-81 relied on instead of a rule of its own, is KIP-74's
#   round-robin partition order (lesson 1).

# %% [markdown]
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("03", 1, my_answer=None)

# %%
exercise("03", 2, my_answer=None)

# %%
exercise("03", 3, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# The lesson's formula with your own settings, the metric to watch and the knob to turn. Replace the sample files with your `consumer.properties` and `server.properties` (paths, or mappings of Kafka keys) and the numbers with your cluster's; settings Kafka would refuse are reported as notes.

# %%
from kipviz import data_file
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("03", data_file("consumer.properties"), data_file("server.properties"),
                   brokers=6, partitions=120, kafka_version="4.3"))

# %% [markdown]
# **Course:** ← [2 · memory pool](02_memory_pool.ipynb) · [4 · replication quotas](04_replication_quotas.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
