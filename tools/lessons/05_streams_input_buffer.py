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
# # 5 · How much memory will my Kafka Streams app use for its input? (KIP-770)
#
# **The question.** A Kafka Streams thread polls records faster than its tasks process them and
# keeps the surplus in per-partition queues. How much memory can those queues take with N input
# partitions, and what happens to throughput and fairness when a bound kicks in?
#
# **The mechanism in a sentence.** Kafka bounds each partition's queue in *records*
# (`buffered.records.per.partition`, 1000: pause a partition above 1000 records, resume it at 1000);
# [KIP-770](https://cwiki.apache.org/confluence/pages/viewpage.action?pageId=186878390) proposed a
# bound in *bytes* for the whole instance, `input.buffer.max.bytes`, split evenly between the stream
# threads: a thread over its share pauses every partition that has records buffered, and resumes
# them all after a processing round that brought it back within its share.
#
# KIP-770's byte bound was **merged twice and reverted twice** (each time before a release); it is
# not in Kafka. kipviz models it beside the record bound that Kafka uses today, with two resume
# rules: the KIP's own (which is what was merged, and which can stall) and the KIP plus the fix
# proposed afterwards in apache/kafka#13283 (never merged). Spark turns the simulated traces into
# the curves. Part 3 adds what users ask first: an app with 2,000 partitions, and what its
# embedded consumers hold on top, by Kafka version.

# %% [markdown]
# **Course:** ← [4 · replication quotas](04_replication_quotas.ipynb) · [6 · sweeps](06_sweeps.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
from dataclasses import replace

from kipviz.curves.streams_compare import (
    policies_table,
    policy_curves,
    record_size_sweep,
    skewed_value_bytes,
    thread_fairness_table,
)
from kipviz.kafka.streams import record_size_bytes
from kipviz.kafka.streams.memory import (
    StreamsInstance,
    input_bounds_table,
    streams_memory,
    streams_memory_table,
    thread_shares_table,
)
from kipviz.plots.streams import bound_sweep_figure, compare_policies_figure, streams_figure
from kipviz.widgets import STREAMS_LESSON_SCENARIO, StreamsDashboard

MiB = 1024 * 1024


# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: Kafka's record bound with
# `buffered.records.per.partition` at 5 instead of 1000 so that it fits a picture, a poll bringing
# 4 records and each processing round taking 1. The partition pauses once its queue holds more
# than 5 records (red) and resumes when processing brings it back to exactly 5, as `RecordQueue`
# and `StreamTask.process` do; meanwhile its queue holds up to 8.)

# %%
from kipviz.plots.diagrams import diagram

diagram("05")

# %% [markdown]
# ## 1. What a record costs, and each thread's share
#
# Streams counts a buffered record as its key and value, 8 bytes of timestamp, 8 of offset, the
# topic name, 4 bytes of partition and its headers (Kafka's `ClientUtils.recordSizeInBytes`, which
# `RecordQueue` adds up). The budget is split like the record cache (`statestore.cache.max.bytes`,
# the half of KIP-770 that shipped in 3.4): evenly between the stream threads, one more share for
# the global thread if the topology has global tables.

# %%
print("record: key 'key', value 'value', topic 'topic', two 12-byte headers ->",
      record_size_bytes(3, 5, "topic", [("h1", b"headerVal1"), ("h2", b"headerVal2")]), "bytes")
print("a 1 KB value with a 16-byte key on 'orders' ->", record_size_bytes(16, 1000, "orders"),
      "bytes")
print(thread_shares_table(((1, False), (4, False), (4, True))).round(2).to_string(index=False))

# %% [markdown]
# ## 2. How much memory will my Streams app use with N partitions?
#
# **Record bound (Kafka today).** A partition fetches while it holds at most 1000 records, and one
# fetch brings up to `max.partition.fetch.bytes` (1 MiB) more: per partition, `1000 x record +
# one fetch`. It grows with the number of partitions *and* with the record size.
#
# **Byte bound (KIP-770).** A thread fetches while it is within its share; the poll that
# takes it over can bring one fetch per partition, and after that only empty partitions fetch, each
# paused as soon as it holds records. So the instance holds at most `input.buffer.max.bytes` plus
# one fetch per partition, whatever the record size.

# %%
print(input_bounds_table(partitions=(8, 32, 128, 512), value_bytes=(100, 1000, 10000))
      .round(1).to_string(index=False))

# %% [markdown]
# With small records the record bound is the smaller one (512 partitions of 142-byte records: 581
# MiB, most of it the last fetch of each partition); with 10 KB records the same app may buffer over
# 5 GiB. The byte bound stays at the budget plus one fetch per partition. That is KIP-770's
# motivation: the record bound depends on "the dynamic number of partitions assigned" and on record
# sizes, so it is hard to size a heap for.
#
# ## 3. An app with 2,000 partitions: the input buffer, and what the consumers hold on top
#
# The size users ask about: one instance reading **2,000 input partitions**, records of about
# **1 KB** or **10 KB**. Assumptions (all in `StreamsInstance`, change any of them):
#
# * 4 stream threads (`num.stream.threads`; Kafka's default is 1), 500 partitions each, no global
#   thread; 3 brokers lead the input partitions evenly.
# * A record has a 16-byte key and a 1,000- or 10,000-byte value on topic `orders`, and costs what
#   Streams counts for it (`ClientUtils.recordSizeInBytes`: key + value + 8 + 8 + topic + 4 =
#   1,042 or 10,042 bytes).
# * Streams' consumer settings: `max.partition.fetch.bytes` 1 MiB and `fetch.max.bytes` 50 MiB
#   (defaults; `StreamsConfig` overrides only `max.poll.records` to 1000, `auto.offset.reset`,
#   `enable.auto.commit`, `group.protocol` and `allow.auto.create.topics`). `max.poll.records`
#   only slows how fast records move from the consumer into the input buffer; no bound uses it.
# * The app lags (it processes more slowly than its input arrives, or starts behind).
#
# Records live in two places. The **input buffer** (`RecordQueue`s, bounded by
# `buffered.records.per.partition` today, or by KIP-770's `input.buffer.max.bytes`), and before
# that each stream thread's **embedded consumer**, whose completed fetches follow the consumer's
# rule of the Kafka release (`kipviz.kafka.consumer.memory`, the one consumer-memory answer): before 4.0
# one completed fetch per partition and the response being drained; from 4.0 (KAFKA-17182) one
# response per broker, plus one *whole response* for each paused partition that still holds a
# completed fetch (its records are a slice of that response's buffer: see
# [lesson 1](01_fetch_size_limit.ipynb)). Streams pauses partitions as its own back-pressure
# (above 1000 records), and a paused partition keeps its completed fetch without blocking its
# broker, so on 4.x the second figure is the bound when every partition is paused with data left
# in the consumer.

# %%
app = StreamsInstance(partitions=2000, threads=4, brokers=3, key_bytes=16, topic="orders")
print(streams_memory_table(app, value_bytes=(1000, 10000), kafka_versions=("3.9", "4.3"))
      .round(1).to_string())

# %%
print(streams_memory(app, "3.9").consumer.sentence())
print(streams_memory(app, "4.3").consumer.sentence())

# %% [markdown]
# **Reading the table.** With 1 KB records, `buffered.records.per.partition` lets the input buffer
# reach about 3.9 GiB, and 20.6 GiB with 10 KB records: 1,000 records per partition times 2,000
# partitions, plus one fetch each. KIP-770's byte bound would not save much *here*: its 512 MiB
# budget is small next to the one fetch per partition (2,000 x 1 MiB) that may still come in once
# a thread is over its share (only partitions holding records are paused; each empty one can
# still receive a fetch, and one poll hands over at most `max.poll.records`, 1,000 records). On
# top, the four embedded consumers may hold 2,200 MiB of fetch responses on Kafka 3.9 (per thread
# 500 x 1 MiB and the 50 MiB response being drained); on 4.x, 600 MiB (3 brokers x 50 MiB per
# thread) while no partition is paused, and when Streams has paused every partition while it still
# holds data, up to one whole 50 MiB response per paused partition: 100,000 MiB, the worst case in
# which each paused partition came in a different response. So for a lagging app of this size,
# size the heap for the input bound *plus* the consumers' bound; lowering
# `max.partition.fetch.bytes` (or `buffered.records.per.partition`) lowers the first, and on 4.x
# `fetch.max.bytes` the responses paused partitions pin.
#
# **KIP-1071 (`group.protocol=streams`).** With the Streams rebalance protocol (early access in
# 4.1, generally available in 4.2) each stream thread runs an `AsyncKafkaConsumer` instead of the
# classic consumer. It fetches through the same `AbstractFetch.prepareFetchRequests`
# (`FetchRequestManager`), so the 4.x rule and the figures above hold for it unchanged. Not counted
# here: the restore consumer (reading changelogs while restoring state), a global thread's
# consumer, the record caches (`statestore.cache.max.bytes`) and the state stores.
#
# ## 4. The same instance under both bounds, and KIP-770's resume rule
#
# The lesson instance: 4 stream threads run 8 tasks, each joining two co-partitioned topics (16
# partitions) whose record sizes differ up to tenfold either way around 1 KB. Every partition starts
# 20,000 records behind and gets 2,000 more a second; a thread processes 20,000 records a second.
# `input.buffer.max.bytes` is 32 MiB. Three runs: the record bound; KIP-770 as written and as it was
# merged (`thread_bytes_as_merged`); KIP-770 plus apache/kafka#13283's resume rule
# (`thread_bytes`, kipviz's default byte policy).

# %% [markdown]
# > **Kafka's code, not the KIP text:** for KIP-770 the two agree, and that is the problem. The
# > KIP says a thread over its share pauses its non-empty partitions and resumes them "after the
# > buffered size for all tasks in the thread are lesser than the bytes allocated"; the code merged
# > twice (apache/kafka#11424, #11796; both reverted before any release) did exactly that, in
# > `StreamThread.runOnce` after a round that processed records. That rule can stall for good (the
# > runs below show it), and kipviz runs it as `thread_bytes_as_merged`. apache/kafka#13283 (2023, closed
# > unmerged) proposed also resuming, in `StreamTask`, the partitions that became empty after a
# > processing round: a task-level rule beyond the KIP. kipviz's `thread_bytes` policy is the KIP
# > *plus* that rule, so it is neither the KIP as proposed nor any code Kafka shipped.

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
runs = {
    "buffered.records.per.partition (Kafka)": replace(STREAMS_LESSON_SCENARIO,
                                                      policy="records_per_partition"),
    "KIP-770 + #13283's resume rule": STREAMS_LESSON_SCENARIO,
    "KIP-770 as written and merged": replace(STREAMS_LESSON_SCENARIO,
                                             policy="thread_bytes_as_merged"),
}
curves = policy_curves(spark, runs, seed=0)
print(policies_table(curves).round(1).to_string())
compare_policies_figure(curves, title="One instance, three ways to bound its input")

# %% [markdown]
# **What the picture says.**
#
# * Both bounds hold the instance under their bounds here. The byte bound passes
#   `input.buffer.max.bytes` (32 MiB) by up to one fetch per partition, as the arithmetic above
#   says. The record bound processes the backlog at the full 80,000 records a second; the byte
#   bound loses a little (about 2% here): pausing *every* partition that holds records leaves some
#   tasks waiting for a fetch that a per-partition rule would have let through.
# * **KIP-770's resume rule, as written and merged, stalls.** A thread over its share pauses every
#   partition that holds records. Processing then empties the join's large-record partition first
#   while the small-record one still holds plenty: the task must wait for the empty side, whose
#   records sit on the broker, but that partition is paused and is resumed only when the *thread*
#   is back within its share, which needs processing, which waits on the partition. Throughput
#   falls to zero on those threads for good. apache/kafka#13283 (after the revert) described this
#   and proposed to resume a paused partition once processing has emptied it; kipviz's
#   `thread_bytes` policy adds that rule.

# %%
merged = curves["KIP-770 as written and merged"]
print("threads that processed nothing in the last window:", merged.stalled_threads)
streams_figure(merged, title="KIP-770 as written and merged: paused partitions and throughput")

# %% [markdown]
# ## 5. Why a share per thread: fairness
#
# KIP-770 rejected one bound for the whole instance because threads would pay for each other's
# bytes. Here thread 0's tasks read 20 KB records and the other threads' 500-byte ones, with an
# 8 MiB budget. Jain's index across threads compares what each thread processed with its max-min
# fair share of what the instance processed (1 = fair):

# %%
skewed = replace(STREAMS_LESSON_SCENARIO, record_size_spread=1.0, input_buffer_max_bytes=8 * MiB)
values = skewed_value_bytes(skewed, thread=0, heavy_bytes=20000, light_bytes=500)
print(thread_fairness_table(spark, skewed, ("thread_bytes", "instance_bytes"), values)
      .to_string(index=False))

# %% [markdown]
# With one bound for the instance, thread 0 is paused whenever the *other* threads' many small
# records fill the budget, and processes about a third of what it could; per-thread shares keep
# every thread busy. (Within a thread, fairness between partitions is left to the consumer's
# round-robin fetching, as the KIP says.)
#
# ## 6. Memory of the record bound as records grow
#
# The same instance with every record the same size, from 100 bytes to 20 KB of value, under
# both bounds (a shorter run):

# %%
sizes = record_size_sweep(spark, replace(STREAMS_LESSON_SCENARIO, ticks=200),
                          ("records_per_partition", "thread_bytes"), (100, 1000, 5000, 20000))
print(sizes[["policy", "value_bytes", "peak (MiB)", "records bound (MiB)", "byte bound (MiB)"]]
      .round(1).to_string(index=False))
bound_sweep_figure(sizes, title="Peak input buffer against record size")

# %% [markdown]
# Under `buffered.records.per.partition` the peak grows with the record size (here from 18 MiB to
# 138 MiB for the same 16 partitions, with a bound of 322 MiB); under the byte bound it stays near
# `input.buffer.max.bytes` plus one fetch per partition (48 MiB). With small records the byte
# bound lets the instance hold *more* than the record bound would: the budget is a ceiling, not a
# saving.
#
# ## 7. Try it
#
# Move the sliders: the policy menu has the record bound, KIP-770 with and without #13283's resume
# rule and the KIP's three rejected alternatives (one bound for the instance, a byte bound per
# partition, pausing only the biggest partitions: that one lets the partitions it leaves running
# keep fetching, and passes the KIP-770 bound). Each move re-runs the instance and Spark redraws
# the curves.

# %% tags=["nbval-ignore-output"]
StreamsDashboard(spark=spark)

# %% [markdown]
# ## Conclusion
#
# * With `buffered.records.per.partition`, input memory is about `partitions x (1000 records +
#   one fetch)`: it grows with the partitions assigned and the record size (2,000 partitions of
#   1 KB records: about 3.9 GiB; of 10 KB: about 20.6 GiB).
# * The embedded consumers hold completed fetches on top: up to one per partition before Kafka
#   4.0 (and the response being drained); from 4.0 one response per broker per thread, plus one
#   whole response per paused partition that still holds data.
# * KIP-770's `input.buffer.max.bytes` bounds the input buffer at the budget plus one fetch per
#   partition, whatever the records, and splits it per thread so that one thread's bytes do not
#   pause others; with thousands of partitions the "one fetch per partition" dominates.
# * Pausing every non-empty partition needs a resume path that cannot wait on itself: KIP-770's
#   rule as written and merged could leave a task waiting for ever on a partition it had paused.
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models); each point says from which release it holds.
#
# * **The byte bound is not in Kafka.** `input.buffer.max.bytes` was merged twice
#   (apache/kafka#11424 in January 2022, reverted days later, before the 3.2 release;
#   apache/kafka#11796 in March 2022, reverted by apache/kafka#12383 before 3.3), so no release
#   has it; the fix for the stall (apache/kafka#13283) was never merged, and a third attempt
#   (apache/kafka#22458, 2026) was still open when this lesson was written. Kafka Streams today bounds its input with
#   `buffered.records.per.partition` (default 1000 records; not deprecated).
# * The other half of KIP-770 **shipped in 3.4**: `statestore.cache.max.bytes` (default 10485760)
#   replaces `cache.max.bytes.buffering` and is split between the threads as shown in part 1.
# * Each stream thread's consumer follows the consumer's rule of its release: from 4.0
#   (KAFKA-17182) at most one response per broker for the partitions it is not pausing, for the
#   classic consumer and for KIP-1071's `AsyncKafkaConsumer` (`group.protocol=streams`, GA in 4.2).

# %% [markdown]
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("05", 1, my_answer=None)

# %%
exercise("05", 2, my_answer=None)

# %%
exercise("05", 3, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# The lesson's formula with your own settings, the metric to watch and the knob to turn. Replace the sample files with your `consumer.properties` and `server.properties` (paths, or mappings of Kafka keys) and the numbers with your cluster's; settings Kafka would refuse are reported as notes.

# %%
from kipviz import data_file
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("05", data_file("consumer.properties"), data_file("server.properties"),
                   partitions=2000, threads=4, brokers=3))

# %% [markdown]
# **Course:** ← [4 · replication quotas](04_replication_quotas.ipynb) · [6 · sweeps](06_sweeps.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
