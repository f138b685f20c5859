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
# # 5 · How much memory will my Kafka Streams app use for its input?
#
# **The question.** A Kafka Streams thread polls records faster than its tasks process them and
# keeps the surplus in per-partition queues. How much heap can a lagging app take for its input
# with N partitions?
#
# **The mechanism in a sentence.** Streams pauses a partition whose queue holds more than
# `buffered.records.per.partition` (1000) records and resumes it when processing brings the queue
# back to 1000 (`StreamTask.addRecords` / `StreamTask.process`); a paused partition keeps what its
# consumer already fetched, and those records pin their whole fetch response (see
# [lesson 1](01_fetch_size_limit.ipynb) for the consumer's fetches since Kafka 4.0 and
# [lesson 3](03_consumer_buffer_memory.ipynb) for what a response pins). Records live in two
# places: the input buffer and each stream thread's consumer.

# %% [markdown]
# **Course:** ← [4 · replication quotas](04_replication_quotas.ipynb) · [6 · sweeps](06_sweeps.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
from dataclasses import replace

from kipviz.curves.streams.compare import policies_table, policy_curves, record_size_sweep
from kipviz.kafka.streams import record_size_bytes
from kipviz.kafka.streams.memory import StreamsInstance, streams_memory, streams_memory_table
from kipviz.plots.streams import bound_sweep_figure, compare_policies_figure
from kipviz.widgets import STREAMS_LESSON_SCENARIO, StreamsDashboard

MiB = 1024 * 1024


# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: `buffered.records.per.partition` at
# 5 instead of 1000 so that it fits a picture, a poll bringing 4 records and each processing
# round taking 1. The partition pauses once its queue holds more than 5 records (red) and resumes
# when processing brings it back to exactly 5; meanwhile its queue holds up to 8.)

# %%
from kipviz.plots.diagrams import diagram

diagram("05")

# %% [markdown]
# ## 1. What a record costs
#
# Streams counts a buffered record as its key and value, 8 bytes of timestamp, 8 of offset, the
# topic name, 4 bytes of partition and its headers (`ClientUtils.consumerRecordSizeInBytes`, which
# `RecordQueue` adds up).

# %%
print("record: key 'key', value 'value', topic 'topic', two 12-byte headers ->",
      record_size_bytes(3, 5, "topic", [("h1", b"headerVal1"), ("h2", b"headerVal2")]), "bytes")
print("a 1 KB value with a 16-byte key on 'orders' ->", record_size_bytes(16, 1000, "orders"),
      "bytes")

# %% [markdown]
# ## 2. An app with 2,000 partitions: one answer
#
# One instance reads **2,000 input partitions** of records with a 16-byte key and a **1 KB** or
# **10 KB** value on topic `orders`; 4 stream threads (`num.stream.threads`; Kafka's default is
# 1), 500 partitions each; 3 brokers lead the partitions evenly; Streams' consumer defaults
# (`max.partition.fetch.bytes` 1 MiB, `fetch.max.bytes` 50 MiB, `max.poll.records` 1000). The app
# lags (it processes more slowly than its input arrives, or starts behind), so every partition
# may be full and paused. All of it is in `StreamsInstance`: change any field.
#
# * **Input buffer:** per partition 1000 records plus one more fetch (a partition is paused only
#   once it holds more than 1000).
# * **Each thread's consumer:** a poll hands over at most `max.poll.records` records, so when
#   Streams pauses a partition the rest of its fetch stays in the consumer, and pins its whole
#   response; with every partition paused, up to one response per partition (on 3.9 and on 4.x
#   alike: `kipviz.kafka.consumer.memory`, the one consumer answer).

# %%
app = StreamsInstance(partitions=2000, threads=4, brokers=3, key_bytes=16, topic="orders")
print(streams_memory_table(app, value_bytes=(1000, 10000), kafka_versions=("3.9", "4.3"))
      .round(1).to_string())
print(streams_memory(app, "4.3").sentence())

# %% [markdown]
# **Reading the table.** With 1 KB records the input buffer may reach 3,986.8 MiB (21,145.6 MiB
# with 10 KB records), and the four consumers may pin 100,000 MiB of responses: 2,000 partitions,
# each pinning a 50 MiB response in the worst case, where every paused partition came in a
# different response. The one answer is their sum, 103,986.8 MiB with 1 KB records. The response
# term is the one to cut: each paused partition pins at most one response, so `fetch.max.bytes`
# sets it. The same app with `fetch.max.bytes` at 1 MiB (a named case; each fetch then brings
# about one partition's worth):

# %%
print(streams_memory(replace(app, fetch_max_bytes=MiB), "4.3").sentence())

# %% [markdown]
# That is 5,986.8 MiB: the consumers' term falls from 100,000 MiB to 2,000 MiB, the input buffer
# stays at 3,986.8 MiB. With KIP-1071's `group.protocol=streams` (generally available in 4.2) each stream thread runs an
# `AsyncKafkaConsumer`, which fetches through the same `AbstractFetch`: the answer holds for it
# unchanged. Not counted: the restore consumer, a global thread's consumer, the record caches
# (`statestore.cache.max.bytes`) and the state stores.
#
# ## 3. The input buffer as records grow, simulated
#
# A smaller instance (4 threads, 8 tasks joining two co-partitioned topics: 16 partitions, each
# starting 20,000 records behind), every record the same size, from 100 bytes to 20 KB of value;
# Spark turns the simulated traces into the peaks:

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
sizes = record_size_sweep(spark, replace(STREAMS_LESSON_SCENARIO, ticks=200),
                          ("records_per_partition",), (100, 1000, 5000, 20000))
print(sizes[["value_bytes", "peak (MiB)", "records bound (MiB)"]].round(1).to_string(index=False))
bound_sweep_figure(sizes, title="Peak input buffer against record size")

# %% [markdown]
# The peak grows with the record size, from 18.1 MiB with 100-byte values to 137.6 MiB with 20 KB
# ones, and stays under its bound (18.2 to 321.7 MiB): the bound is records, so the heap it needs
# is set by the largest records and the partitions assigned.
#
# ## 4. Try it
#
# Move the sliders: each move re-runs the instance under `buffered.records.per.partition` and
# Spark redraws the curves (the policy menu also holds the reverted designs below).

# %% tags=["nbval-ignore-output"]
StreamsDashboard(spark=spark, policy="records_per_partition")

# %% [markdown]
# ## Conclusion
#
# * Input memory is about `partitions x (1000 records + one fetch)`: it grows with the partitions
#   assigned and the record size.
# * Streams' back-pressure pauses full partitions, and each paused partition may pin a whole
#   fetch response in its thread's consumer: size the heap for the input buffer *plus*
#   partitions x the largest response, and lower `fetch.max.bytes` to lower the second.
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models). Streams bounds its input with
# `buffered.records.per.partition` (default 1000 records, not deprecated) in every release; each
# stream thread's consumer follows the consumer's rule of its release, for the classic consumer
# and for KIP-1071's `AsyncKafkaConsumer`. The half of KIP-770 that shipped, in 3.4, is
# `statestore.cache.max.bytes` (default 10485760), split evenly between the stream threads.
#
# ## Reverted designs: KIP-770's byte bound
#
# [KIP-770](https://cwiki.apache.org/confluence/pages/viewpage.action?pageId=186878390) proposed
# `input.buffer.max.bytes` (512 MiB), split per thread: a thread over its share pauses every
# partition holding records and resumes them all once back within it. It was merged twice
# (apache/kafka#11424 and #11796, 2022) and reverted before each release (#12383), so no
# release has it. As merged, the resume rule can stall a join for good: processing empties one
# side while the other is paused and waits on it. apache/kafka#13283 (closed unmerged) proposed
# resuming emptied partitions too; kipviz's `thread_bytes` policy is the KIP plus that rule, which
# is neither the KIP as proposed nor any code Kafka shipped. The same 16-partition instance
# catching up under the three rules (`input.buffer.max.bytes` 32 MiB):

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
# As merged, 3 threads have stalled by the end: 20,000 records/s in the last second against
# 80,000 under `buffered.records.per.partition`, whose peak (49.9 MiB) stays under its bound
# (54.1 MiB).

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

# %%
exercise("05", 4, my_answer=None)

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
