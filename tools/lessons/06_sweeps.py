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
# # 6 · Which fetch settings are safe at once? Both limits, every value, two versions
#
# **The question.** You must pick `fetch.max.bytes` and `max.partition.fetch.bytes` for a
# consumer that may fall behind. Over every sensible value of both, on your Kafka version, where
# does it stay under its heap, and where is it still fair between partitions?
#
# **The mechanism in a sentence.** Why a lagging consumer holds more than either setting, and
# how Kafka 4.0 changed that ([KAFKA-17182](https://issues.apache.org/jira/browse/KAFKA-17182)),
# is [lesson 3](03_consumer_buffer_memory.ipynb): from 4.0 it holds one response per broker (and
# the drained one still next in line), so `fetch.max.bytes` is the memory knob; up to 3.9 its
# bound allows a completed fetch of every partition, so `max.partition.fetch.bytes` bounds it,
# though a real 3.9 consumer stays far below that bound. This lesson simulates the whole grid of both settings, one
# simulation per cell (how the grid runs, on Spark with a cache, is the closing section).

# %% [markdown]
# **Course:** ← [5 · streams input buffer](05_streams_input_buffer.ipynb) · [7 · share groups](07_share_groups.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
import tempfile
from dataclasses import replace

from kipviz.curves.summary import metric_table, select_rows
from kipviz.curves.sweep import grid, sweep
from kipviz.kafka.consumer import consumer_memory_bounds
from kipviz.plots.sweep import safe_region_figure
from kipviz.widgets import GRID_LESSON_SCENARIO, GridDashboard

MiB = 1024 * 1024
cache = tempfile.mkdtemp(prefix="kipviz-sweep-")  # a fresh cache, so the counts below are stable

# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: the bound of a lagging Kafka 4.3
# consumer from `kipviz.kafka.consumer.memory`, over `fetch.max.bytes` and the number of partitions, 3
# brokers, `max.partition.fetch.bytes` 1 MiB. It grows with `fetch.max.bytes` until every broker's
# response carries all its partitions' 1 MiB, and no further. The simulated grid below has the
# same shape.)

# %%
from kipviz.plots.diagrams import diagram

diagram("06")

# %% [markdown]
# ## 1. Peak memory over both fetch settings, on Kafka 4.3 and 3.9
#
# Lesson 3's lagging consumer (120 partitions on 10 brokers, 12 each, the application slower than
# the network), without a pool, over 7 values of `fetch.max.bytes` and 7 of
# `max.partition.fetch.bytes`, on the newest Kafka (4.3) and on 3.9: 98 simulations. Memory is
# what the consumer retains: fetch responses read and not yet wholly handed to the application.
# The tables give the settings in bytes, the peaks in MiB.

# %%
base = GRID_LESSON_SCENARIO  # lesson 3's consumer without a pool, 5 s of fetching, Kafka 4.3
sizes = [256 * 1024, 512 * 1024, MiB, 2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB]
configs = grid(base, kafka_version=["3.9", "4.3"], fetch_max_bytes=sizes,
               max_partition_fetch_bytes=[64 * 1024, 128 * 1024, 256 * 1024, 512 * 1024, MiB,
                                          2 * MiB, 4 * MiB])  # a quarter of each
region = sweep(spark, configs, cache_dir=cache)
table = region.with_params("kafka_version", "fetch_max_bytes", "max_partition_fetch_bytes")
print(f"{len(configs)} configurations, {region.computed} simulated")
print("Kafka 4.3: peak memory (MiB)")
print(metric_table(table, "peak_memory_bytes", "max_partition_fetch_bytes", "fetch_max_bytes",
                   scale=MiB, digits=0, kafka_version="4.3")
      .rename_axis(index="max.partition.fetch.bytes (bytes)", columns="fetch.max.bytes (bytes)")
      .to_string())
print("Kafka 3.9: peak memory (MiB)")
print(metric_table(table, "peak_memory_bytes", "max_partition_fetch_bytes", "fetch_max_bytes",
                   scale=MiB, digits=0, kafka_version="3.9")
      .rename_axis(index="max.partition.fetch.bytes (bytes)", columns="fetch.max.bytes (bytes)")
      .to_string())

# %%
safe_region_figure(select_rows(table, kafka_version="4.3"), "fetch_max_bytes",
                   "max_partition_fetch_bytes", "peak_memory_bytes",
                   floor="min_jain_index", floor_value=0.3, limit=128 * MiB,
                   title="Kafka 4.3: peak memory (MiB); red: above a 128 MiB heap; "
                         "white: Jain floor 0.3",
                   ).update_layout(xaxis_title="fetch.max.bytes",
                                   yaxis_title="max.partition.fetch.bytes")

# %% [markdown]
# **What the picture says.** On Kafka 4.3 the peak is one response per broker: about brokers x
# min(`fetch.max.bytes`, the broker's 12 partitions x `max.partition.fetch.bytes`), because a
# broker is not asked again until its whole response has been consumed
# ([KAFKA-17182](https://issues.apache.org/jira/browse/KAFKA-17182), Kafka 4.0). On 3.9 the same
# grid peaks at the same figures, although 3.9's bound allows a completed fetch of every partition
# and the response being drained (240 + 16 = 256 MiB at 16 MiB / 2 MiB, against 160 MiB on 4.3):
# its classic consumer hands the responses it read to the fetch buffer only in a poll that found
# nothing buffered (KAFKA-8677, 2.4), so a lagging one stays near one round, as a real 3.9.2
# consumer did (lesson 1). The red cells do not fit a 128 MiB
# heap. The white contour is the fairness floor (lowest per-window Jain's index 0.3, lesson 1):
# below it, some windows see a few partitions take most of the bytes (the picture is 4.3's). A
# `max.partition.fetch.bytes` of 512 KiB or less fits a 128 MiB heap on both versions (at most
# 60 MiB on each, the two tables above); on 4.x `fetch.max.bytes` is the memory knob, and on 3.9
# `max.partition.fetch.bytes` is what bounds it.
#
# The one memory answer at the grid's starting point (4 MiB / 1 MiB), on each version:

# %%
print(consumer_memory_bounds(base).sentence())
print(consumer_memory_bounds(replace(base, kafka_version="3.9")).sentence())

# %% [markdown]
# ## Conclusion
#
# * A lagging consumer's memory is set by `fetch.max.bytes` per broker on Kafka 4.x and by
#   `max.partition.fetch.bytes` per partition on 3.9 and earlier; the grid shows both shapes.
# * Small `max.partition.fetch.bytes` values keep a consumer both under its heap and fair: on the
#   lesson's consumer every cell at 512 KiB or less fits a 128 MiB heap on both versions (at most
#   60 MiB on 4.3, 66 MiB on 3.9), whatever `fetch.max.bytes` is.
# * What KIP-81's `buffer.memory` and the rejected in-flight cap would buy for their memory is
#   lesson 3's sweep.
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models): a lagging consumer holds one response per
# broker (since 4.0, KAFKA-17182), there is no consumer `buffer.memory` (KIP-81 was never merged),
# and Kafka has no sweep tool: operators change one setting, watch the heap and the lag, and change
# it again. The numbers here come from the same models the lessons use, so a safe region drawn
# here is a starting point for a load test, not a replacement for one.
#
# ## Under the hood: Spark sweeps, the cache and instant sliders
#
# `kipviz.curves.sweep` puts every configuration in a row of a Spark DataFrame and runs them as one job
# (`mapInPandas`): each task simulates its configurations and reduces them to summary metrics
# (peak and p99 memory, the bounds, lowest and mean Jain's index, longest starvation, throughput,
# move time) and downsampled curves. Each configuration is cached once, as Parquet keyed by its
# parameters, the seed and the kipviz version, so running the grid again simulates nothing:

# %%
again = sweep(spark, configs, cache_dir=cache)
print(f"second run: {again.computed} simulated, {len(configs) - again.computed} from the cache")

# %% [markdown]
# `GridDashboard` stands on such a grid: it sweeps its grid once (here the 4.3 half above, from
# the cache), then answers each slider position on the grid from memory, with no Spark job. A
# position off the grid (a value set from code) is computed on demand by one Spark job and joins
# the grid and the cache.

# %%
instant = GridDashboard(spark=spark, cache_dir=cache)  # the same 7 x 7 grid, read from the cache
print(f"{len(instant.grid)} configurations held, {instant.simulated} simulated now")
instant.update(fetch_max_bytes=MiB, max_partition_fetch_bytes=256 * 1024)
on_grid_s = instant.answer_s
print(f"on the grid  ({instant.source}):  peak "
      f"{instant.curves.metrics['peak_memory_bytes'] / MiB:.1f} MiB")
instant.update(fetch_max_bytes=3 * MiB)
off_grid_s = instant.answer_s
print(f"off the grid ({instant.source}): peak "
      f"{instant.curves.metrics['peak_memory_bytes'] / MiB:.1f} MiB; "
      f"now {len(instant.grid)} configurations held")

# %% tags=["nbval-ignore-output"]
print(f"answer on the grid: {1000 * on_grid_s:.1f} ms; off the grid: {off_grid_s:.2f} s")

# %% [markdown]
# **Try it.** Move the sliders: every position answers in milliseconds, the red cross shows where
# you are on the memory map (Kafka 4.3), and the memory curve is drawn against KIP-74's bound. The
# off-grid value set above sits on the `fetch.max.bytes` slider too, labelled "(off grid)".
# `GridDashboard(..., slider_values={"fetch_max_bytes": [...]})` puts more off-grid positions on a
# slider; each is computed by Spark the first time it is chosen. The same `sweep(...)` runs on a
# cluster if `KIPVIZ_SPARK_MASTER` (`spark://...`, `yarn`, `k8s://...`) or `SPARK_REMOTE` (Spark
# Connect) is set before Spark starts; the workers need the same Python with kipviz installed.

# %% tags=["nbval-ignore-output"]
instant

# %% [markdown]
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("06", 1, my_answer=None)

# %%
exercise("06", 2, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# The lesson's formula with your own settings, the metric to watch and the knob to turn. Replace the sample files with your `consumer.properties` and `server.properties` (paths, or mappings of Kafka keys) and the numbers with your cluster's; settings Kafka would refuse are reported as notes.

# %%
from kipviz import data_file
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("06", data_file("consumer.properties"), data_file("server.properties"),
                   brokers=6, partitions=120))

# %% [markdown]
# **Course:** ← [5 · streams input buffer](05_streams_input_buffer.ipynb) · [7 · share groups](07_share_groups.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
