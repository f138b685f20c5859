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
# # 9 · My consumer isn't Java: librdkafka, franz-go and kafka-python
#
# **The question.** Lessons 1 to 8 answer for Java's consumer. In a notebook you are more likely
# running confluent-kafka (librdkafka), kafka-python or aiokafka, and in Go franz-go. How much
# memory does *your* client hold while it catches up, which setting bounds it, and what do you set
# for a Kubernetes memory limit?
#
# **The mechanism in a sentence.** Every client sends the same FetchRequest limits and the broker
# fills every response by KIP-74's rules; what differs is how each client *buffers*: how many
# fetches it keeps per broker, what a buffered record keeps alive (the whole response, a
# decompressed batch, a copy), and what stops it from fetching more.
#
# The rules were read in each client's source (librdkafka v2.15.0, franz-go v1.21.5, kafka-python
# 3.0.11), cited file and line in `kipviz.kafka.clients`, and held against the real clients
# (librdkafka 2.16.0, franz-go v1.21.5, kafka-python 3.0.12) on a real 3-broker Kafka 4.4 and 3.9
# cluster (`kipviz reality`, experiment `client_memory`): no measured peak passed its bound. The
# simulation is lesson 1's consumer scenario with `client=...`: the same brokers, workload and
# KIP-74 fill.

# %% [markdown]
# **Course:** ← [8 · tiered storage](08_tiered_storage.ipynb) · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %%
from dataclasses import replace

from kipviz.apps.cheatsheet import client_table
from kipviz.kafka.clients import client_memory_bounds, read_client_config
from kipviz.plots.clients import clients_figure
from kipviz.scenarios.consumer.clients import (
    catching_up,
    memory_by_client,
    setting_for_memory,
    settings_for_memory_table,
)

MiB = 1024 * 1024

# %% [markdown]
# What each client's bound adds up for 1,000 partitions on 3 brokers at defaults, data compressed
# 4:1, records of 1,024 bytes: librdkafka's queue, each broker's response with its decompressed
# batches, and an op for each message and a buffer for each batch (at worst: every record a batch
# of its own, in the codec whose guess allocates most); franz-go's buffered fetches
# and the ones the application holds from its last poll, with their wire buffers; kafka-python's
# responses held about three times while read (compressed).

# %%
from kipviz.plots.diagrams import diagram

diagram("09")

# %% [markdown]
# ## Each client's rule
#
# One row per client: the rule in words (from each client's module), the settings that move it by
# the client's own names, and the bound for issue 31's case, 1,000 partitions on 3 brokers, lagging,
# at defaults.

# %%
client_table()[["client", "read at", "rule", "bound at defaults (MiB)"]]

# %% [markdown]
# ## The same catch-up on four clients
#
# 1,000 partitions on 3 brokers, 2 GB behind, an application that handles 200 MB/s while the three
# brokers' links could deliver 375 MB/s: the consumer lags for the whole 6 s run. The same record
# batches go through each client at its defaults. `peak_held_mib` is what the client holds once
# responses are read (whole responses, or parts, decompressed where the client decompresses);
# `jain_index` is how evenly the bytes were shared among partitions (1 = equally).

# %%
base = replace(catching_up(ticks=600, lag_bytes=2_000_000_000), consume_bytes_per_s=200e6)
plain = memory_by_client(base)
plain.drop(columns=["client", "peak_held_bytes", "bound_bytes", "max_batch_bytes", "sentence"])

# %% [markdown]
# Uncompressed, all four hold 150 MiB: three responses of 50 MiB, one per broker. Their bounds
# differ, each counting what its client keeps beside the responses: librdkafka's 334.4 MiB adds
# the messages below its queue's gates (65,536,000 value bytes), a response pinned at the queue's
# head and a 320-byte op for every message; franz-go's 364.6 MiB counts the three fetches the
# application still holds from its last poll beside three new ones, and a 220-byte `kgo.Record`
# for every record; kafka-python's 403.8 MiB counts each response about three times (its read
# buffer or its per-partition copies, the connection's last read kept until the next, and a
# read's 4 KiB chunks beside their join). Fairness differs more than memory: franz-go and Java use
# KIP-227 fetch sessions, so the broker moves partitions that returned data to the end (Jain
# 0.804, no partition starved); librdkafka has no sessions and starts each request only one
# partition later, so the partitions at the front of its list keep winning (Jain 0.160, 824 of
# 1,000 partitions got nothing); kafka-python sends a new round only when every completed fetch is
# drained, so it fetched 675.2 MiB where the others fetched about 1,100.
#
# Now the same data compressed 4 to 1 (snappy or lz4 on text often does that): librdkafka and
# franz-go decompress eagerly and hold the decompressed batches, Java's consumer and kafka-python
# keep the compressed batches as they came.

# %%
packed = memory_by_client(replace(base, compression_ratio=4.0))
clients_figure(packed, title="1,000 partitions on 3 brokers, catching up, compressed 4:1")

# %%
packed[["label", "peak_held_mib", "bound_mib", "jain_index", "sentence"]]

# %% [markdown]
# librdkafka and franz-go now hold 600 MiB, four times Java's 150 MiB, under bounds of 4,523.2
# and 1,907.9 MiB; Java and kafka-python still hold 150 MiB. librdkafka's bound holds whatever
# the codec and however few records a batch holds: each decompressed batch is a buffer of its own
# (640 bytes beside the data), sized by the codec's guess (zstd without a content size guesses
# twice the input and grows three times, by 4,000 bytes at least), and every message is an op.
# Told the codec and the batches, it shrinks: for lz4 batches of 256 records or more (batches of
# up to the topic's 1 MiB), 1,528.1 MiB.

# %%
print(round(client_memory_bounds("librdkafka", 1000, 3, compression_ratio=4.0, codec="lz4",
                                 batch_records=256).bound_bytes / MiB, 1))

# %% [markdown]
# ## The questions, answered with numbers
#
# **franz-go #532: how do `MaxConcurrentFetches`, brokers and partitions drive RAM?** Only a broker
# that leads one of your partitions gets a fetch, one buffered or in flight at a time
# (`MaxConcurrentFetches` -1 means one per such broker), and a poll frees that broker for the
# next fetch while the records it returned still hold theirs. Three consumers each given one
# partition of a 3-broker topic hold one fetch of about 1 MiB each, two while the application is
# still busy with the one it polled:

# %%
print(client_memory_bounds("franz-go", 1, 3).sentence)

# %% [markdown]
# **franz-go #701: "raising `FetchMaxPartitionBytes` to 10 MB took the app from 231 MB to 1.91
# GB"** (snappy data). A fetch holds up to `min(FetchMaxBytes, partitions on the broker x
# FetchMaxPartitionBytes)`, decompressed. With 5 partitions per broker (15 on 3 brokers) and data
# that decompresses 4 times the bound goes from 190.8 to 1,907.8 MiB, ten times, close to the
# thread's 8.3; with 1,000 partitions the 50 MiB `FetchMaxBytes` already binds and the setting changes
# nothing (the simulation below holds 600 MiB either way).

# %%
print(client_memory_bounds("franz-go", 15, 3, compression_ratio=4.0).bound_bytes / MiB,
      client_memory_bounds("franz-go", 15, 3, {"FetchMaxPartitionBytes": 10 * MiB},
                           compression_ratio=4.0).bound_bytes / MiB)

# %% [markdown]
# **librdkafka #4137: is `queued.max.messages.kbytes` per partition or per queue?** Per queue: the
# high-level consumer forwards every partition's fetch queue to its one consumer queue, and the
# gate is checked there. At 10,000 kbytes the bound is nearly the same for 100 and for 1,000
# partitions (only the responses' own fields grow with the partitions they list):

# %%
gate = {"queued.max.messages.kbytes": 10000}
print(client_memory_bounds("librdkafka", 100, 3, gate).bound_bytes,
      client_memory_bounds("librdkafka", 1000, 3, gate).bound_bytes)

# %% [markdown]
# **librdkafka #5140: a paused consumer's fetch-queue statistics grow past 64 MB as partitions
# increase.** Each partition's `fetchq_size` in the statistics JSON reports the one shared queue
# (rdkafka.c:1724-1725), so adding them up counts it once per partition: 9 partitions x a 64 MB
# queue read as 576 MB while the queue itself stays under the gate. Pausing purges only the paused
# partition's messages at the head of the queue; the rest stay counted until the next poll.
#
# **kafka-python #2437: "a 128 MB consumer dies when it lags".** One broker, 50 or more lagging
# partitions: one response of up to `fetch_max_bytes` (50 MiB) is held about three times while it
# is read and decoded, about 206 MiB. The maintainer's advice, lower `fetch_max_bytes`, is the
# knob; for 64 MiB of fetched data it is about 14.5 MiB:

# %%
print(client_memory_bounds("kafka-python", 50, 1).sentence)
print(setting_for_memory("kafka-python", 64 * MiB, 50, 1))

# %% [markdown]
# The threads' settings on the catch-up above, compressed 4:1: librdkafka's gate at 10,000 kbytes
# holds 117.2 MiB (it also clamps `fetch.max.bytes` to 10,240,000 bytes), franz-go's 10 MiB
# `FetchMaxPartitionBytes` still holds 600 MiB, and kafka-python at `fetch_max_bytes` 10 MiB holds
# 30 MiB.

# %%
threads = memory_by_client(replace(base, compression_ratio=4.0), {
    "librdkafka, queued.max.messages.kbytes=10000": (
        "librdkafka", {"queued.max.messages.kbytes": 10000}),
    "franz-go, FetchMaxPartitionBytes=10 MiB": ("franz-go", {"FetchMaxPartitionBytes": 10 * MiB}),
    "kafka-python, fetch_max_bytes=10 MiB": ("kafka-python", {"fetch_max_bytes": 10 * MiB})})
threads[["label", "peak_held_mib", "bound_mib", "jain_index"]]

# %% [markdown]
# ## What to set for a container's memory limit (librdkafka #5141)
#
# No client has one max-memory setting (librdkafka's proposed `queued.max.messages.total.kbytes`,
# PR #5076, is not merged). Give fetched data half of the container's limit and turn each client's
# one knob until its bound fits: for a 512 MiB container and 1,000 partitions on 3 brokers,
# uncompressed and compressed 4:1. On franz-go also set `GOMEMLIMIT` below the limit: Go's garbage
# collector lets the heap reach about twice what is live at `GOGC=100`.
#
# Java's consumer keeps its defaults (a bound of 200.0 MiB: it holds compressed batches).
# librdkafka needs `queued.max.messages.kbytes` 41,567 uncompressed and 2,876 compressed 4:1 (its
# bound for any codec and batches of one record); franz-go needs `FetchMaxBytes` 36,808,703
# uncompressed and 7,033,402 compressed (the fetches a poll handed over count twice); kafka-python
# needs `fetch_max_bytes` 32,692,113 and 31,906,204 (each response held about three times).

# %%
settings_for_memory_table(512 * MiB, 1000, 3)

# %% [markdown]
# ## Try it
#
# Pick the client you run, set its two fetch limits (by its own names: the sliders relabel), the
# partitions, the brokers and how well your data compresses. Spark redraws fairness and memory, and
# the summary puts the peak held beside that client's own bound, with the sentence naming the term
# that binds. Try franz-go at a compression ratio of 4, then Java at the same ratio.

# %% tags=["nbval-ignore-output"]
from kipviz.widgets import ClientDashboard

ClientDashboard()

# %% [markdown]
# ## Measured on a real cluster
#
# Each bound against the real client (`kipviz reality`, experiment `client_memory`, the committed
# snapshot in `data/reality/`): 36 partitions led by 3 brokers of a Kafka 4.4 cluster on this
# 2-core machine, 4 MiB a partition behind, an application that takes 100 records a poll and
# sleeps 100 ms, records of 1,000 bytes, uncompressed and lz4 (batches that decompress about 4
# times). The measure is what fetching adds to the client's memory (librdkafka's resident set,
# franz-go's live heap, kafka-python's traced allocations). No peak passed its bound; franz-go
# polling every buffered fetch at once came closest, 86.2 MiB of 87.9 MiB: the three fetches it
# held beside the three it fetched next.

# %%
from IPython.display import Markdown

from kipviz.reality.results import measured_table

Markdown(measured_table("client_memory", kafka_version="4.4.0"))

# %% [markdown]
# ## What Kafka does today (and the clients, since which version)
#
# * **Java** (lessons 1 and 3), Kafka 4.3 as modelled: one response per broker however far it
#   lags, since 4.0 (KAFKA-17182), and the drained one still next in line; before, a bound of one
#   completed fetch per partition that a real consumer stays far below (it hands responses over
#   only when nothing is buffered, KAFKA-8677). Measured on real 4.4.0 and 3.9.2 consumers
#   (`kipviz reality`), as the other clients below are: their probes found more than the
#   responses (librdkafka's op per message, franz-go's `kgo.Record` per record and the fetches a
#   poll handed over, kafka-python's last read per connection and its chunks), which their bounds
#   now count.
# * **librdkafka**: the gate is on the one consumer queue since at least 0.11; v1.5.0 reworded it
#   ("applies to the single consumer queue"), cut the default of `queued.max.messages.kbytes` from
#   1 GB to 64 MB and clamps `fetch.max.bytes` to it unless set; v2.2.0 added
#   `fetch.queue.backoff.ms`. No fetch sessions (KIP-227 "not supported").
# * **franz-go**: one buffered fetch per broker; since v1.21.0 `MaxConcurrentFetches(0)` means one
#   fetch only while polling (before, 0 was the unbounded default); v1.14.0 dropped paused data at
#   pause, later versions at the next poll. Fetch sessions on by default.
# * **kafka-python**: fetch sessions since 2.1.0; since 3.0.0 paused partitions keep their fetched
#   data (KAFKA-7548); since 3.0.1 `receive_message_max_bytes` caps a frame. aiokafka (v0.14.0)
#   differs: no sessions, a random order each request, and a slow consumer's buffer grows towards
#   partitions x `max_partition_fetch_bytes`.
#
# **What the model leaves out.** Every client here lists only partitions with nothing buffered in
# a request (Java's rule); librdkafka can fetch a partition again while its messages are queued,
# which the one queue's gate bounds either way. The simulation leaves out `queued.min.messages` (a
# message count), Go's GC headroom, per-message objects and Python object overhead; the bounds
# count the per-message and per-record objects, for records of `record_bytes` (1,024 unless
# given), and leave out GC headroom and each client's fixed state (connections, metadata).
#
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("09", 1, my_answer=None)

# %%
exercise("09", 2, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# Put in your client's own config the way you write it: a confluent-kafka dict (or the path of a
# `.properties`-style file of the same keys), franz-go `kgo.` option calls, or kafka-python keyword
# arguments as a dict; your partitions, brokers, compression ratio and container limit. Names that
# do not change memory (`bootstrap.servers`, `group.id`, ...) are left out with a warning.

# %%
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("09", {"queued.max.messages.kbytes": 65536, "fetch.message.max.bytes": MiB},
                   client="librdkafka", partitions=1000, brokers=3, compression_ratio=4.0,
                   memory_limit_bytes=512 * MiB))

# %%
read_client_config("franz-go", "kgo.FetchMaxBytes(50 << 20),\n kgo.MaxConcurrentFetches(2)")

# %% [markdown]
# **Course:** ← [8 · tiered storage](08_tiered_storage.ipynb) · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
