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
# # 7 · Share groups: more consumers than partitions
#
# [← 6 · Sweeps](06_sweeps.ipynb) · [the tour](00_tour.ipynb)
#
# **The question.** *I have more consumers than partitions: who gets what, and how much memory
# does each hold?* In a classic consumer group a partition belongs to one consumer, so consumers
# beyond the partition count sit idle. Share groups (KIP-932) let several consumers read the same
# partition.
#
# **The mechanism in a sentence.** The broker keeps, per partition, a window of records *in
# flight*; a share fetch *acquires* records for one consumer under a time-limited lock
# (`group.share.record.lock.duration.ms`), the consumer acknowledges them, and a record whose lock
# expires goes out again, until `group.share.delivery.count.limit` deliveries have failed and it
# is archived. The fetch's bytes are split evenly over the partitions it acquires
# (`PartitionMaxBytesStrategy.UNIFORM`), its records are capped by `max.poll.records`, and each
# partition by `group.share.partition.max.record.locks` records in flight.

# %% [markdown]
# **Course:** ← [6 · sweeps](06_sweeps.ipynb) · [8 · tiered storage](08_tiered_storage.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
# NBVAL_IGNORE_OUTPUT
# (starting Spark prints Java log lines that differ between runs)
from kipviz.curves import get_spark

spark = get_spark()

# %%
from dataclasses import replace

from kipviz.apps.exercises import check, question
from kipviz.apps.share_advice import share_group_advice
from kipviz.curves.share_group import share_group_curves, share_scaling
from kipviz.kafka.share import in_flight_bound_records, simple_assign, uniform_partition_max_bytes
from kipviz.plots.diagrams import diagram
from kipviz.plots.share_group import scaling_figure, share_group_figure
from kipviz.scenarios.share_group.scenario import (
    consumer_timeline,
    redelivery_summary,
    simulate,
    simulate_scaling,
)
from kipviz.scenarios.share_group.versions import fetch_nodes_table, release_table
from kipviz.widgets import SHARE_LESSON_SCENARIO, ShareGroupDashboard

# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: one partition of four 5-record batches
# shared by three consumers, in Kafka's `SharePartition` with locks of 100 ms. Each share fetch
# acquires the next available batch (colour: who holds it); when the locks expire the records are
# available again, and the next fetch delivers the first batch a second time (delivery count 2).)

# %%
diagram("07")

# %% [markdown]
# ## 1. How a share fetch's bytes are split
#
# A share fetch carries `MaxBytes` = `fetch.max.bytes` (capped like any fetch by the broker's
# `fetch.max.bytes` and a fetch quota). `PartitionMaxBytesStrategy.UNIFORM` gives each partition
# it acquires an equal part, the remainder to one partition chosen at random; with fewer bytes
# than acquired partitions, an equal part over the partitions asked; with fewer bytes than
# partitions, one byte each to a run of partitions from a random one.

# %%
print(uniform_partition_max_bytes(1_000_000, list(range(7)), 7))   # 7 acquired
print(uniform_partition_max_bytes(1_000_000, list(range(7)), 10))  # 10 acquired, 7 asked
print(uniform_partition_max_bytes(3, list(range(7)), 7))           # 3 bytes for 7 partitions

# %% [markdown]
# Six partitions get 142,857 bytes and one 142,858; with 10 partitions acquired but 7 in this
# request, each gets 1,000,000 / 10 = 100,000; a 3-byte budget gives exactly three partitions one
# byte, a run that starts at a random partition (5 here) and wraps around. Kafka draws the random partition from a `java.util.Random`; kipviz from a seeded generator.
#
# ## 2. Who shares which partition
#
# Share groups use `SimpleAssignor`: every partition is shared by ceil(members / partitions)
# members. Eight consumers on two partitions: four on each. (Kafka walks the partitions in the
# hash order of random topic ids; kipviz in index order: the counts are the same.)

# %%
print(simple_assign(8, 2))
print(simple_assign(3, 2))

# %% [markdown]
# ## 3. The experiment: 8 consumers in each group on 2 partitions
#
# Both groups read the same topic: 2 partitions, each 10,000 records of 1 KB behind while
# producers add 2,000 a second; every consumer processes 500 records a second and acknowledges
# each one as it goes (implicit acknowledgement). `max.poll.records` is 100. First no consumer
# stalls. *Jain's index* across a group's consumers, per window of 250 ms, is
# (sum x)² / (n · sum x²) with x the records each consumer processed: 1.0 when all work alike,
# 1/n when one does everything.

# %%
healthy = simulate(replace(SHARE_LESSON_SCENARIO, stalled_consumers=0))
curves = share_group_curves(spark, healthy)
print(curves.summary_table().to_string(index=False))

# %% [markdown]
# The classic group's Jain index is 0.25 = 2/8: two consumers work, six are idle (one consumer
# per partition), and the group reads 1,000 records a second. The share group's eight all work
# (Jain 1.0) and read four times as much. Adding consumers helps the share group until the
# records run out; the classic group stops at the partition count:

# %%
scaling = share_scaling(spark, simulate_scaling(SHARE_LESSON_SCENARIO, (1, 2, 4, 8, 16)))
print(scaling.round(3).to_string(index=False))

# %%
scaling_figure(scaling, partitions=2, title="Records/s against group size, 2 partitions")

# %% [markdown]
# ## 4. A stalled consumer: locks, redelivery, archiving
#
# Now consumer 0 stalls: it acquires records and never acknowledges them. To keep the run short,
# the lock is 1 s and the delivery limit 3 (Kafka's defaults: 30 s and 5).

# %%
stalled = simulate(SHARE_LESSON_SCENARIO)
print(redelivery_summary(stalled).to_string(index=False))
print(consumer_timeline(stalled, 0).to_string(index=False))

# %% [markdown]
# Consumer 0 takes offsets 0-99 at 0 ms. At 1,000 ms their locks expire and they are available
# again; consumer 0 is first in line and takes them back (their second delivery). At 2,000 ms they
# expire again, and now Kafka hands records near the delivery limit out in ever smaller parts
# (KAFKA-17541; Kafka's code, not the KIP's text): consumer 0 gets a single record, its third and
# last attempt, and the healthy consumers get the other 99. At 3,000 ms that record reaches the
# limit and is archived: only the record it held on its last attempt is given up, not the batch
# around it. Then consumer 0 takes 100 new records and the cycle starts again. Its holding costs
# the group its share of the work:

# %%
curves = share_group_curves(spark, stalled)
print(curves.summary_table().to_string(index=False))
share_group_figure(curves, title="8 share consumers (1 stalled) and 8 classic, 2 partitions")

# %% [markdown]
# **What the picture says.** Top left: Jain's index across consumers. The share group's falls
# to about 0.7 on average (0.5 at worst): one of eight processes nothing, and while its locks
# hold, the records it sits on are out of everyone's reach. The classic group stays at 0.25. Top right: the records in flight per
# partition, far below `group.share.partition.max.record.locks` (2,000) here. Bottom left: the age
# of the oldest record not yet acknowledged, which bounds every record's delivery latency: it
# climbs because the producers outrun the group. Bottom right: each consumer holds at most
# `max.poll.records` x the record size (100 KB), far below what `fetch.max.bytes` would allow.
#
# ## 5. The lock cap is soft by one batch
#
# `group.share.partition.max.record.locks` caps the records in flight on a partition, but Kafka's
# `SharePartition` takes new records up to the end of the log batch holding the last record the
# cap allows. So the bound is the cap plus the largest batch minus one: Kafka's own test
# `testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch` ends with 25 records in flight under a
# cap of 20. This is Kafka's code; the KIP's text reads as a hard cap.

# %%
tight = simulate(replace(SHARE_LESSON_SCENARIO, max_record_locks=20, batch_records=10))
print("in flight at most:", tight.partitions.in_flight_records.max(),
      "records; cap 20, bound", in_flight_bound_records(20, 10))

# %% [markdown]
# ## Conclusion
#
# More consumers than partitions: in a classic group the extra consumers idle; in a share group
# each partition is shared by ceil(consumers / partitions) of them and the work is spread evenly
# (Jain near 1). Each consumer holds what one share fetch per leader acquired: about
# `max.poll.records` x the record size, and never more than `fetch.max.bytes` per leader (plus a
# batch). A stalled consumer's records come back after the lock duration and are archived, one by
# one near the end, at the delivery limit. In flight per partition stays within
# `group.share.partition.max.record.locks` + one batch - 1.
#
# ## What Kafka does today
#
# This is Kafka 4.3, the newest release kipviz models.
# Share groups were early access in Kafka 4.0, a preview in 4.1 and are generally available from
# 4.2 (KIP-932); the next section runs this lesson's group on each of them. The
# split of a share fetch's bytes is `PartitionMaxBytesStrategy.UNIFORM`; `MaxRecords` is
# `max.poll.records`; `group.share.partition.max.record.locks` defaults to 2000,
# `group.share.record.lock.duration.ms` to 30000 and `group.share.delivery.count.limit` to 5.
# KIP-1206 added `share.acquire.mode` in 4.2 as well: `batch_optimized` (the default) may hand a
# poll more than `max.poll.records` to keep whole batches, `record_limit` never does. kipviz models
# implicit acknowledgement only (each record acknowledged ACCEPT as it is processed), and the
# assignor walks partitions in index order where Kafka uses the hash order of random topic ids.
#
# ## By Kafka version: 4.0, 4.1, 4.2, 4.3
#
# `ShareGroupScenario(kafka_version=...)` runs each release's rules, read on its branch:
#
# * **4.0** (early access): ShareFetch v0 asks each partition for `max.partition.fetch.bytes`
#   (1 MiB) and carries no `MaxRecords`, so the broker acquires all it read; the lock cap
#   `group.share.partition.max.record.locks` defaults to 200 (`ShareGroupConfig`).
# * **4.1** (preview): ShareFetch v1, `MaxRecords` = `max.poll.records`, `fetch.max.bytes` split
#   evenly (KAFKA-19018); locks default to 2000 (KAFKA-19245). The cap is still checked only
#   before a fetch, and not at all when the fetch starts among released records: nothing bounds
#   the records in flight.
# * **4.2** (generally available): the cap inside acquire (KAFKA-19555: at most cap + a batch - 1),
#   records near the delivery limit go out in halving parts, a record on its last attempt alone
#   (KAFKA-17541), and `share.acquire.mode` (KIP-1206).
# * **4.3**: a group may set its own `share.delivery.count.limit` and
#   `share.partition.max.record.locks`, clamped to the broker's new
#   `group.share.{min,max}.partition.max.record.locks` (100, 4000) (KIP-1240); the coordinator
#   recomputes an assignment at most once per `group.share.assignment.interval.ms` (1 s,
#   KIP-1263). Neither changes this run: its group sets nothing and its members join once.
#
# The lesson's group on each release, with the release's default lock cap and with a cap of 20:

# %%
release_table(SHARE_LESSON_SCENARIO, lock_caps=(None, 20))

# %% [markdown]
# On 4.0 a share consumer takes 1,040 records (a whole 1 MiB per partition) in one fetch and
# holds 1,015 KiB, ten times a later release's 97 KiB; with them in flight the cap of 200 stops
# the other members, so the group processes 4,605 records where 4.1 processes 13,780, and the
# stalled consumer's 1,040 are all archived. On 4.1 a cap of 20 lets 115 records in flight (no
# bound); from 4.2 the same cap holds them to 25, within cap + batch - 1 = 29, and the halving
# parts near the limit leave 1 record archived where 4.1 archives 100. 4.2 and 4.3 agree here.
#
# KAFKA-19767 (4.2): in `record_limit` mode a share consumer fetches records from one node at a
# time (`ShareConsumeRequestManager`), rotating its partitions, so "one share fetch per leader"
# over-states its memory there. On 3 brokers and 6 partitions each member's partitions have 2
# leaders: the bound is 100 MiB in `batch_optimized` mode and 50 MiB in `record_limit` mode.

# %%
fetch_nodes_table(replace(SHARE_LESSON_SCENARIO, brokers=3, partitions=6))

# %% [markdown]
# ## Move the sliders
#
# The dashboard re-runs both groups and has Spark recompute the curves. Try 16 consumers, a lock
# cap of 20 (the in-flight line crosses the cap by up to a batch), `record_limit`, and the Kafka
# version.

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget: its view differs between runs)
ShareGroupDashboard(spark=spark)

# %% [markdown]
# ## Exercises
#
# Answer each, then open the hidden cell below it: the package checks the answer.

# %%
print(question("07", 1))

# %% jupyter={"source_hidden": true}
print(check("07", 1, 333_334))

# %%
print(question("07", 2))

# %% jupyter={"source_hidden": true}
print(check("07", 2, 3))

# %%
print(question("07", 3))

# %% jupyter={"source_hidden": true}
print(check("07", 3, 2499))

# %% [markdown]
# ## Your cluster
#
# Put your consumer's and group's settings in (a mapping as here, or the path of a
# `.properties` file), with your partitions, consumers and brokers:

# %%
mine = {"fetch.max.bytes": "52428800", "max.poll.records": "500",
        "group.share.partition.max.record.locks": "2000",
        "group.share.record.lock.duration.ms": "30000"}
print(share_group_advice(mine, partitions=6, consumers=20, brokers=3, record_bytes=2000,
                         batch_records=50))

# %% [markdown]
# [← 6 · Sweeps](06_sweeps.ipynb) · [the tour](00_tour.ipynb)

# %% [markdown]
# **Course:** ← [6 · sweeps](06_sweeps.ipynb) · [8 · tiered storage](08_tiered_storage.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
