"""Lesson 5: how Kafka Streams bounds the memory of its input buffers (KIP-770)."""

from __future__ import annotations

from lessons import code, md

CELLS = [
    md("""
# 5 · How much memory will my Kafka Streams app use for its input? (KIP-770)

**The question.** A Kafka Streams thread polls records faster than its tasks process them and
keeps the surplus in per-partition queues. How much memory can those queues take with N input
partitions, and what happens to throughput and fairness when a bound kicks in?

**The mechanism in a sentence.** Kafka bounds each partition's queue in *records*
(`buffered.records.per.partition`, 1000: pause a partition above 1000 records, resume it at 1000);
[KIP-770](https://cwiki.apache.org/confluence/pages/viewpage.action?pageId=186878390) proposed a
bound in *bytes* for the whole instance, `input.buffer.max.bytes`, split evenly between the stream
threads: a thread over its share pauses every partition that has records buffered, and resumes
them all after a processing round that brought it back within its share.

KIP-770's byte bound was **merged twice and reverted twice** for a performance regression; it is
not in Kafka. kipviz models it *as proposed* (and as merged, bug included) beside the record bound
that Kafka uses today. Spark turns the simulated traces into the curves.
"""),
    code("""
from dataclasses import replace

import pandas as pd

from kipviz.buffer import (fetch_bytes, record_size_bytes, records_bound_bytes,
                           thread_cache_bytes, thread_share_bytes)
from kipviz.curves.streams import bound_sweep, streams_curves
from kipviz.plots.streams import bound_sweep_figure, compare_policies_figure, streams_figure
from kipviz.scenarios.streams import simulate
from kipviz.widgets import STREAMS_LESSON_SCENARIO, StreamsDashboard

MiB = 1024 * 1024
"""),
    md("""
## 1. What a record costs, and each thread's share

Streams counts a buffered record as its key and value, 8 bytes of timestamp, 8 of offset, the
topic name, 4 bytes of partition and its headers (Kafka's `ClientUtils.recordSizeInBytes`, which
`RecordQueue` adds up). The budget is split like the record cache (`statestore.cache.max.bytes`,
the half of KIP-770 that shipped in 3.4): evenly between the stream threads, one more share for
the global thread if the topology has global tables.
"""),
    code("""
print("record: key 'key', value 'value', topic 'topic', two 12-byte headers ->",
      record_size_bytes(3, 5, "topic", [("h1", b"headerVal1"), ("h2", b"headerVal2")]), "bytes")
print("a 1 KB value with a 16-byte key on 'orders' ->", record_size_bytes(16, 1000, "orders"), "bytes")
for threads, global_thread in ((1, False), (4, False), (4, True)):
    print(f"{threads} thread(s){' + global' if global_thread else ''}: input buffer share "
          f"{thread_share_bytes(536870912, threads, global_thread) / MiB:.1f} MiB, cache share "
          f"{thread_cache_bytes(10485760, threads, global_thread) / MiB:.2f} MiB")
"""),
    md("""
## 2. How much memory will my Streams app use with N partitions?

**Record bound (Kafka today).** A partition fetches while it holds at most 1000 records, and one
fetch brings up to `max.partition.fetch.bytes` (1 MiB) more: per partition, `1000 x record +
one fetch`. It grows with the number of partitions *and* with the record size.

**Byte bound (KIP-770 as proposed).** A thread fetches while it is within its share; the poll that
takes it over can bring one fetch per partition, and after that only empty partitions fetch, each
paused as soon as it holds records. So the instance holds at most `input.buffer.max.bytes` plus
one fetch per partition, whatever the record size.
"""),
    code("""
rows = []
for partitions in (8, 32, 128, 512):
    for value in (100, 1000, 10000):
        record = record_size_bytes(16, value, "orders")
        rows.append({"partitions": partitions, "record (bytes)": record,
                     "records bound (MiB)": records_bound_bytes([record] * partitions) / MiB,
                     "byte bound, 512 MiB (MiB)":
                         (536870912 + partitions * fetch_bytes(record)) / MiB})
print(pd.DataFrame(rows).round(1).to_string(index=False))
"""),
    md("""
With small records the record bound is the smaller one (512 partitions of 142-byte records: 581
MiB, most of it the last fetch of each partition); with 10 KB records the same app may buffer over
5 GiB. The byte bound stays at
the budget plus one fetch per partition. That is KIP-770's motivation: the record bound depends on
"the dynamic number of partitions assigned" and on record sizes, so it is hard to size a heap for.

## 3. The same instance under both bounds, and the code Kafka merged

The lesson instance: 4 stream threads run 8 tasks, each joining two co-partitioned topics (16
partitions) whose record sizes differ up to tenfold either way around 1 KB. Every partition starts
20,000 records behind and gets 2,000 more a second; a thread processes 20,000 records a second.
`input.buffer.max.bytes` is 32 MiB.
"""),
    code("""
# NBVAL_IGNORE_OUTPUT
# (starting Spark prints Java log lines that differ between runs)
from kipviz.spark import get_spark

spark = get_spark()
"""),
    code("""
runs = {
    "buffered.records.per.partition (Kafka)": replace(STREAMS_LESSON_SCENARIO, policy="records_per_partition"),
    "KIP-770 per thread (with the fix)": STREAMS_LESSON_SCENARIO,
    "KIP-770 as merged in 3.2": replace(STREAMS_LESSON_SCENARIO, policy="thread_bytes_as_merged"),
}
curves = {label: streams_curves(spark, simulate(s, seed=0)) for label, s in runs.items()}
table = pd.DataFrame({
    label: {"peak buffered (MiB)": c.peak_bytes / MiB,
            "its bound (MiB)": (c.records_bound_bytes if c.policy == "records_per_partition"
                                else c.bytes_bound_bytes) / MiB,
            "records/s": c.instance_memory["processed_records_per_s"].mean(),
            "records/s, last second": c.instance_memory["processed_records_per_s"].iloc[-10:].mean(),
            "stalled threads at the end": c.stalled_threads,
            "most partitions paused": int(c.instance_memory["paused_max"].max())}
    for label, c in curves.items()}).T
print(table.round(1).to_string())
compare_policies_figure(curves, title="One instance, three ways to bound its input")
"""),
    md("""
**What the picture says.**

* Both bounds hold the instance under their bounds here. The byte bound passes
  `input.buffer.max.bytes` (32 MiB) by up to one fetch per partition, as the arithmetic above
  says. The record bound processes the backlog at the full 80,000 records a second; the byte
  bound loses a little (about 2% here): pausing *every* partition that holds records leaves some
  tasks waiting for a fetch that a per-partition rule would have let through.
* **The code merged in Kafka 3.2 stalls.** A thread over its share pauses every partition that
  holds records. Processing then empties the join's large-record partition first while the
  small-record one still holds plenty: the task must wait for the empty side, whose records sit on
  the broker, but that partition is paused and is resumed only when the *thread* is back within
  its share, which needs processing, which waits on the partition. Throughput falls to zero on
  those threads for good. apache/kafka#13283 (after the revert) found this and proposed to resume
  a paused partition once processing has emptied it; kipviz's `thread_bytes` policy includes
  that fix.
"""),
    code("""
merged = curves["KIP-770 as merged in 3.2"]
print("threads that processed nothing in the last window:", merged.stalled_threads)
streams_figure(merged, title="KIP-770 as merged in 3.2: paused partitions and throughput")
"""),
    md("""
## 4. Why a share per thread: fairness

KIP-770 rejected one bound for the whole instance because threads would pay for each other's
bytes. Here thread 0's tasks read 20 KB records and the other threads' 500-byte ones, with an
8 MiB budget. Jain's index across threads compares what each thread processed with its max-min
fair share of what the instance processed (1 = fair):
"""),
    code("""
skewed = replace(STREAMS_LESSON_SCENARIO, record_size_spread=1.0, input_buffer_max_bytes=8 * MiB)
values = [20000 if (p // 2) % 4 == 0 else 500 for p in range(skewed.partitions)]
rows = []
for policy in ("thread_bytes", "instance_bytes"):
    trace = simulate(replace(skewed, policy=policy), seed=0, value_bytes=values)
    c = streams_curves(spark, trace)
    done = trace.threads.groupby("thread")["processed_records"].sum()
    rows.append({"policy": policy, "Jain across threads (mean)": round(c.mean_jain_index, 3),
                 "records processed by thread 0..3": done.tolist()})
print(pd.DataFrame(rows).to_string(index=False))
"""),
    md("""
With one bound for the instance, thread 0 is paused whenever the *other* threads' many small
records fill the budget, and processes about a third of what it could; per-thread shares keep
every thread busy. (Within a thread, fairness between partitions is left to the consumer's
round-robin fetching, as the KIP says.)

## 5. Memory of the record bound as records grow

The same instance with every record the same size, from 100 bytes to 20 KB of value, under
both bounds (a shorter run):
"""),
    code("""
sweep = replace(STREAMS_LESSON_SCENARIO, record_size_spread=1.0, ticks=200)
traces = {(policy, value): simulate(replace(sweep, policy=policy, value_bytes=value), seed=0)
          for policy in ("records_per_partition", "thread_bytes")
          for value in (100, 1000, 5000, 20000)}
sizes = bound_sweep(spark, traces)
sizes["peak (MiB)"] = sizes["peak_bytes"] / MiB
sizes["records bound (MiB)"] = sizes["records_bound_bytes"] / MiB
sizes["byte bound (MiB)"] = sizes["bytes_bound_bytes"] / MiB
print(sizes[["policy", "value_bytes", "peak (MiB)", "records bound (MiB)", "byte bound (MiB)"]]
      .round(1).to_string(index=False))
bound_sweep_figure(sizes, title="Peak input buffer against record size")
"""),
    md("""
Under `buffered.records.per.partition` the peak grows with the record size (here from 18 MiB to
138 MiB for the same 16 partitions, with a bound of 322 MiB); under the byte bound it stays near
`input.buffer.max.bytes` plus one fetch per partition (48 MiB). With small records the byte
bound lets the instance hold *more* than the record bound would: the budget is a ceiling, not a
saving.

## 6. Try it

Move the sliders: the policy menu has both bounds, the merged code and the KIP's three rejected
alternatives (one bound for the instance, a byte bound per partition, pausing only the biggest
partitions: that one lets the partitions it leaves running keep fetching, and passes the KIP-770
bound). Each move re-runs the instance and Spark redraws the curves.
"""),
    code("""
# NBVAL_IGNORE_OUTPUT
# (the widget's model ids change on every run)
StreamsDashboard(spark=spark)
"""),
    md("""
## Conclusion

* With `buffered.records.per.partition`, input memory is about `partitions x (1000 records +
  one fetch)`: it grows with the partitions assigned and the record size.
* KIP-770's `input.buffer.max.bytes` bounds it at the budget plus one fetch per partition,
  whatever the records, and splits it per thread so that one thread's bytes do not pause others.
* Pausing every non-empty partition needs a resume path that cannot wait on itself: the code
  merged in 3.2 could leave a task waiting for ever on a partition it had paused.

## What Kafka does today

* **The byte bound is not in Kafka.** `input.buffer.max.bytes` was merged twice and reverted
  twice for a performance regression (the first merge, apache/kafka#11424, went into 3.2; the
  revert is apache/kafka#12383); the fix for the stall (apache/kafka#13283) was never merged. Kafka Streams today bounds its input with
  `buffered.records.per.partition` (default 1000 records).
* The other half of KIP-770 **shipped in 3.4**: `statestore.cache.max.bytes` (default 10485760)
  replaces `cache.max.bytes.buffering` and is split between the threads as shown in part 1.
"""),
]
