"""Lesson 1: which limit applies to a fetch? (KIP-74)"""

from __future__ import annotations

from lessons import code, md

CELLS = [
    md("""
# 1 · Which limit applies to a fetch? (KIP-74)

**The question.** A consumer reads many partitions from a few brokers. How many bytes can one
fetch bring back, how much memory can the consumer hold, and which partitions get the bandwidth
when a limit bites?

**The mechanism in a sentence.** Since Kafka 0.10.1 ([KIP-74](https://cwiki.apache.org/confluence/display/KAFKA/KIP-74%3A+Add+Fetch+Response+Size+Limit+in+Bytes))
a fetch response has a size limit, `fetch.max.bytes`, beside the per-partition
`max.partition.fetch.bytes`: the broker fills partitions *in request order* until the limit is
reached, but always returns the first record batch so that the consumer makes progress.

Everything below runs kipviz's model of Kafka's code (`ReplicaManager.readFromLog`, the consumer's
`fetchablePartitions`); Spark turns the simulated traces into the curves.
"""),
    code("""
from dataclasses import replace

import pandas as pd

from kipviz import curves, plots
from kipviz.fetch import Ordering, consumer_memory_bound_bytes, fill_response
from kipviz.scenarios.consumer import ConsumerScenario, simulate
from kipviz.widgets import LESSON_SCENARIO, FetchDashboard
from kipviz.workload import Workload

MiB = 1024 * 1024
"""),
    md("""
## 1. The response rules, on numbers

`fill_response` takes, per partition in request order, the sizes of the record batches from the
fetch offset, and returns the raw bytes the broker sends and the whole batches inside them:

* a budget per partition of `min(max.partition.fetch.bytes, what is left of the response limit)`;
* the **first-batch exception**: until some partition has returned bytes, the budget is raised
  to the size of the batch at the fetch offset (only the first *non-empty* partition benefits);
* raw bytes may end in a **partial batch**, which the consumer drops and fetches again;
* a partition whose budget cannot hold its whole first batch is **emptied** and uses no budget.
"""),
    code("""
cases = [
    ("a 2 MiB batch, 1 MiB partition limit", [[2 * MiB]], 50 * MiB, MiB),
    ("exception for the first non-empty partition only", [[], [2 * MiB], [2 * MiB]], 50 * MiB, MiB),
    ("partial tail batch", [[400, 400, 400]], 10_000, 1000),
    ("oversized batch later: emptied, budget kept", [[100], [5000], [100]], 1000, 1000),
    ("response limit reached", [[600], [600], [600]], 1000, 1000),
]
pd.DataFrame(
    [(name, [(p.raw_bytes, p.complete_batches)
             for p in fill_response(b, response_max_bytes=r, partition_max_bytes=m)])
     for name, b, r, m in cases],
    columns=["case", "(raw bytes, whole batches) per partition"],
)
"""),
    md("""
Before KIP-74 (fetch version 2 and older) there was no exception: the broker cut the batch at
`max.partition.fetch.bytes`, and a consumer that got only part of a batch was stuck with
`RecordTooLargeException` until someone raised the limit.
"""),
    code("""
(v2,) = fill_response([[2 * MiB]], response_max_bytes=50 * MiB, partition_max_bytes=MiB, version=2)
(v3,) = fill_response([[2 * MiB]], response_max_bytes=50 * MiB, partition_max_bytes=MiB, version=3)
print(f"version 2: {v2.raw_bytes:,} bytes, whole batches {v2.complete_batches}, "
      f"RecordTooLargeException: {v2.record_too_large}")
print(f"version 3: {v3.raw_bytes:,} bytes, whole batches {v3.complete_batches}")
"""),
    md("""
## 2. The KIP's example: A and B fast, C and D slow

KIP-74 warns: *"if client is always fetching partitions in order A,B,C,D then it is possible
that response limit is hit before any messages were fetched from C and D."* Here A and B produce
50 times faster than C and D, `fetch.max.bytes` is 64 KiB and `max.partition.fetch.bytes`
32 KiB, and the application keeps up, so the consumer asks again as soon as a response is
handled. We run the same workload with a fixed order and with KIP-74's round-robin (partitions
that returned data move to the end).
"""),
    code("""
# NBVAL_IGNORE_OUTPUT
from kipviz.spark import get_spark

spark = get_spark()  # embedded local[*]; set SPARK_REMOTE or KIPVIZ_SPARK_MASTER for a cluster
spark.version
"""),
    code("""
abcd = ConsumerScenario(
    partitions=4, brokers=1, fetch_max_bytes=64 * 1024, max_partition_fetch_bytes=32 * 1024,
    consume_bytes_per_s=1e9, ticks=300, windows=10, workload=Workload(profile="fast_slow", produce_bytes_per_s=20e6, fast_to_slow_ratio=50),
)
runs = {o.name.lower(): simulate(replace(abcd, ordering=o), seed=1)
        for o in (Ordering.FIXED, Ordering.ROUND_ROBIN)}
abcd_curves = {name: curves.consumer_curves(spark, trace) for name, trace in runs.items()}
streaks = {name: curves.starvation_streaks(curves.to_spark(spark, trace.fetches)).toPandas()
           for name, trace in runs.items()}
table = pd.concat({name: s.sort_values("partition").set_index("partition")
                   [["fetches", "starved_fetches", "longest_starvation_fetches"]]
                   for name, s in streaks.items()}, axis=1)
table.index = ["A", "B", "C", "D"]
table
"""),
    code("""
plots.compare_fairness_figure(abcd_curves, title="A, B fast; C, D slow; 64 KiB responses")
"""),
    md("""
With a fixed order, C and D starve in **every** fetch of the run: A and B always fill the
response.
Round-robin serves each partition within P = 4 fetches, and Jain's index (over each
partition's max-min fair share of the bytes delivered) stays near 1.

The same happens at scale. The default scenario of this lesson: 100 partitions on 3 brokers,
each with an 8 MiB backlog, Zipf-skewed producers, `fetch.max.bytes` = 2 MiB, and every order
kipviz models:
"""),
    code("""
orders = {o.name.lower(): curves.consumer_curves(spark, simulate(replace(LESSON_SCENARIO, ordering=o)))
          for o in Ordering}
pd.DataFrame({name: {"min Jain": round(c.fairness.jain_index.min(), 3),
                     "mean Jain": round(c.fairness.jain_index.mean(), 3),
                     "longest starvation (fetches)": int(c.fairness.max_starvation_streak.max())}
              for name, c in orders.items()}).T
"""),
    md("""
Fixed and hash orders are static, so the partitions at the front win; round-robin, fetch-session
rotation and random shuffles share the bandwidth.

## 3. Memory: the bound before and after KIP-74

Before KIP-74 a consumer could hold `partitions x max.partition.fetch.bytes` of responses: with
thousands of partitions, gigabytes. With one fetch in flight per broker, KIP-74 bounds a round of
responses by `brokers x fetch.max.bytes`, so the bound becomes the smaller of the two.
"""),
    code("""
pd.DataFrame([
    {"partitions": p, "brokers": 3,
     "pre-KIP-74 bound (MiB)": p * 1,
     "KIP-74 bound (MiB)": consumer_memory_bound_bytes(3, 50 * MiB, MiB, p) / MiB}
    for p in (10, 100, 1000, 5000)
])
"""),
    md("""
What does the simulated consumer actually hold? Three runs at Kafka's defaults
(`fetch.max.bytes` 50 MiB, `max.partition.fetch.bytes` 1 MiB): two where the application keeps up,
and one where it handles only 50 MB/s.
"""),
    code("""
defaults = replace(LESSON_SCENARIO, fetch_max_bytes=52428800, ordering=Ordering.ROUND_ROBIN)
memory_runs = {
    "100 partitions": defaults,
    "1000 partitions": replace(defaults, partitions=1000),
    "1000 partitions, app at 50 MB/s": replace(defaults, partitions=1000, consume_bytes_per_s=50e6),
}
memory_curves = {label: curves.consumer_curves(spark, simulate(s, record_fetches=False))
                 for label, s in memory_runs.items()}
memory = pd.DataFrame([
    {"label": label, "peak_held_bytes": int(c.memory.held_max_bytes.max()),
     "kip74_bound_bytes": c.kip74_bound_bytes, "pre_kip74_bound_bytes": c.pre_kip74_bound_bytes}
    for label, c in memory_curves.items()
])
memory.assign(**{col: memory[col] / MiB for col in memory.columns[1:]}).round(1)
"""),
    code("""
plots.memory_bounds_figure(memory, title="Peak consumer memory against the bounds (MiB, log scale)")
"""),
    md("""
While the application keeps up, memory stays under KIP-74's figure. When it falls behind, the
consumer keeps fetching the partitions that have nothing buffered, so completed fetches pile up
towards `partitions x max.partition.fetch.bytes` again: KIP-74's bound is per round of fetches,
not for the consumer as a whole. That gap is what KIP-81's `buffer.memory` set out to close
(lesson 3).

## 4. The response-size guarantee

KIP-74 promises a response is never bigger than `max(fetch.max.bytes, size of the first batch)`.
Here one partition writes 5 MiB records while `fetch.max.bytes` is 1 MiB: the responses that
carry one of them exceed the limit, by exactly that one batch.
"""),
    code("""
big = replace(LESSON_SCENARIO, fetch_max_bytes=MiB, ordering=Ordering.ROUND_ROBIN, ticks=500, windows=5,
              workload=replace(LESSON_SCENARIO.workload, large_record_bytes=5 * MiB))
big_trace = simulate(big)
sizes = big_trace.fetches.groupby("fetch_id").raw_bytes.sum()
guarantee = max(big.response_max_bytes, big_trace.meta["max_batch_bytes"])
print(f"response limit {big.response_max_bytes:,} bytes, largest batch {big_trace.meta['max_batch_bytes']:,} bytes")
print(f"{len(sizes)} responses, {(sizes > big.response_max_bytes).sum()} above the limit (first-batch exceptions); "
      f"largest {sizes.max():,} bytes <= max(limit, batch) = {guarantee:,}: {sizes.max() <= guarantee}")
"""),
    md("""
## 5. Try it

Move the sliders: each change re-runs the simulation and has Spark recompute the curves (with a
warm session this takes well under a second). Things to try:

* switch the order from *fixed* to *round-robin* or *session*: the fairness dips disappear;
* raise `fetch.max.bytes` to 50 MiB: the limit stops binding and the order no longer matters;
* set `max.partition.fetch.bytes` above `fetch.max.bytes`: the response limit applies first;
* raise the skew: the hot partitions at the front of a fixed order take even more.
"""),
    code("""
FetchDashboard(spark=spark)
"""),
    md("""
## Conclusion

* A fetch response holds at most `min(consumer fetch.max.bytes, broker fetch.max.bytes)`, except
  for the first record batch, which always comes back whole (so a large record never blocks a
  consumer since Kafka 0.10.1; it is not skipped either).
* Because partitions are filled in request order, a fixed order starves partitions at the back;
  rotating the order restores fairness.
* Consumer memory is bounded per round by `min(brokers x fetch.max.bytes, partitions x
  max.partition.fetch.bytes)`, but not overall when the application lags.

## What Kafka does today

* The consumer's assignment is kept in `PartitionStates`, and KIP-74 moved partitions that returned
  data to the end (round-robin). Since 2023 the consumer builds full fetch requests from a hash
  set, so their order is Java's hash order: static, like *hash* above.
* Fairness now comes from incremental fetch sessions (KIP-227, Kafka 1.1): the broker moves each
  partition that returned records to the end of the session order (*session* above), and the
  consumer never re-requests a partition that still has buffered data.
* Defaults: consumer `fetch.max.bytes` 52428800 (50 MiB), `max.partition.fetch.bytes` 1048576,
  broker `fetch.max.bytes` 57671680 (55 MiB), `replica.fetch.response.max.bytes` 10485760 for
  followers, which use the same response limit.
"""),
]
