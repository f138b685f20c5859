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
# # 2 · How does a broker bound the memory of requests it has not handled yet? (KIP-72)
#
# **The question.** A broker reads a request off a socket into memory before a handler thread
# processes it. When a burst of large produce requests arrives (the KIP's example: a Hadoop job
# starts writing big batches), how much memory can those waiting requests take, and who waits?
#
# **The mechanism in a sentence.** With [KIP-72](https://cwiki.apache.org/confluence/display/KAFKA/KIP-72%3A+Allow+putting+a+bound+on+memory+consumed+by+Incoming+requests)
# (Kafka 1.0) the network threads allocate every request from one memory pool of
# `queued.max.request.bytes`; a channel that cannot get memory is *muted* until memory comes back,
# and while memory is short the ready sockets are served in *shuffled* order.
#
# kipviz models Kafka's `SimpleMemoryPool`, `Selector`/`KafkaChannel` muting and the request
# handlers; Spark turns the simulated traces into the curves.

# %% [markdown]
# **Course:** ← [1 · fetch size limit](01_fetch_size_limit.ipynb) · [3 · consumer buffer memory](03_consumer_buffer_memory.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)

# %% [markdown]
# > **Kafka's code, not the KIP text:** the KIP calls the setting `queued.max.bytes` and says it
# > must be larger than `socket.request.max.bytes`, or <= 0 to disable it; Kafka shipped it as
# > **`queued.max.request.bytes`** (`SocketServerConfigs`, whose Java constant is still named
# > `QUEUED_MAX_BYTES_CONFIG`), default -1, and `KafkaConfig` accepts any value <= 0 or one *at
# > least* `socket.request.max.bytes` (equal is allowed). This lesson uses the shipped name and rule.

# %%
from dataclasses import replace

from kipviz.curves.broker.compare import (
    allocation_table,
    overshoot_table,
    pool_curves,
    pools_table,
    waits_table,
)
from kipviz.kafka.broker import max_outstanding_bytes
from kipviz.plots.broker import broker_figure, compare_pools_figure, compare_waits_figure
from kipviz.scenarios.broker.versions import invalid_request_table, size_check_table
from kipviz.widgets import BROKER_LESSON_SCENARIO, BrokerDashboard

MiB = 1024 * 1024


# %% [markdown]
# **The mechanism in one picture** (`kipviz.plots.diagrams`: a 10 MiB pool (`queued.max.request.bytes`)
# taking 4 MiB requests, as Kafka's non-strict `SimpleMemoryPool` does. The third request is
# granted with 2 MiB left, so available memory drops to -2 MiB; the fourth waits until memory comes
# back. It can never fall below -(largest request - 1 byte).)

# %%
from kipviz.plots.diagrams import diagram

diagram("02")

# %% [markdown]
# ## 1. The pool's rules, on numbers
#
# A pool of 100 bytes whose largest single allocation is 60 bytes (on a broker:
# `queued.max.request.bytes` and `socket.request.max.bytes`). Kafka's pool is **non-strict**: it
# grants a request whenever *any* memory is left, so available memory can go negative. A strict
# pool would grant only what fits.

# %%
print(allocation_table(100, 60, asks=(50, 60, 5)).to_string(index=False))
print("bound on bytes outstanding: non-strict", max_outstanding_bytes(100, 60),
      "| strict", max_outstanding_bytes(100, 60, strict=True))

# %% [markdown]
# The non-strict pool granted 60 bytes with only 50 left and dropped to -10; only then was it out of
# memory (`available <= 0`), and the next request (5 bytes) had to wait. The strict pool refused the
# 60 bytes and still served the small one. A request larger than `socket.request.max.bytes` is never
# allocated at all (the broker closes that connection). So the real bound on what is outstanding is
# `queued.max.request.bytes + socket.request.max.bytes - 1` (159 bytes here: 1 byte left, then a
# 60-byte request), not `queued.max.request.bytes`.
#
# ## 2. A spike of large requests, with and without a pool
#
# The lesson broker: 100 clients each send 20 small (16 KiB) produce requests a second; from 4 s to
# 8 s one request in ten is a 4 MiB batch. Eight handler threads process 100 MB/s each. We run it
# three ways: no pool (Kafka's default, `queued.max.request.bytes = -1`), Kafka's non-strict pool of
# 40 MiB, and a strict pool of the same size (a what-if). The broker's `socket.request.max.bytes`
# (the largest request it accepts) is 10 MiB, so the "bound" column reads 40 + 10 MiB - 1 byte,
# about 50 MiB, for Kafka's pool, and 100 connections x one 4 MiB request = 400 MiB without one.
#
# The run is 2,000 *ticks* of 10 ms (the simulation's time step, 20 s). "out of memory (% of
# ticks)" is the share of ticks the pool had nothing left to give (available <= 0), what the
# other lessons and the glossary call *pool dry %* and what Kafka's `MemoryPoolAvgDepletedPercent`
# reports.

# %% tags=["nbval-ignore-output"]
from kipviz.curves import get_spark

spark = get_spark()

# %%
runs = {
    "no pool": replace(BROKER_LESSON_SCENARIO, queued_max_request_bytes=-1),
    "non-strict pool (Kafka)": BROKER_LESSON_SCENARIO,
    "strict pool (what-if)": replace(BROKER_LESSON_SCENARIO, strict=True),
}
curves = pool_curves(spark, runs, seed=0)
print(pools_table(curves).round(2).to_string())

# %%
compare_pools_figure(curves, title="The same spike: no pool, Kafka's pool, a strict pool")

# %% [markdown]
# **What the picture says.**
#
# * **No pool**: the broker held over 100 MiB of requests that no handler had reached yet. The only
#   bound is one request per connection, `connections x largest request` (400 MiB here, and with
#   `socket.request.max.bytes` at its 100 MiB default, 100 clients could pin 100 x 100 MiB, nearly 10 GiB). This is what
#   ran brokers out of heap before KIP-72.
# * **Non-strict pool**: memory stays at `queued.max.request.bytes` plus at most one request, and
#   the spike is paid for in waiting: channels are muted while the pool is empty and served again
#   as handlers release memory. Every waiting request is read once the spike passes (the few unread
#   ones arrived in the last tick of the run).
# * **Strict pool**: it never passes 40 MiB (nor reaches 0 available, so it is never "out of
#   memory"; its channels are muted all the same), but a 4 MiB request must wait until 4 MiB are free at
#   once while a stream of 16 KiB requests keeps taking whatever is released. Large requests wait
#   far longer (compare the p99 waits). That starvation is why Kafka's pool is non-strict.
#
# ## 3. What the true bound is
#
# How far past `queued.max.request.bytes` can memory go? One request at most, granted while a single
# byte was left: never beyond `queued.max.request.bytes + socket.request.max.bytes - 1`, here
# 40 MiB + 10 MiB - 1 byte (the "true bound" column). That is the worst case, and it takes a request
# of the full `socket.request.max.bytes` arriving when the pool is down to its last byte. These runs
# stay well inside it:

# %%
print(overshoot_table(spark, BROKER_LESSON_SCENARIO, large_request_mib=(1, 4, 10))
      .to_string(index=False))
broker_figure(curves["non-strict pool (Kafka)"], title="Kafka's non-strict pool through the spike")

# %% [markdown]
# With 1 MiB requests the pool never runs dry (peak 11.2 MiB); with 4 MiB and 10 MiB requests the
# peak passes 40 MiB by 1.1 and 1.5 MiB, because a large request rarely arrives just as the pool
# reaches its last bytes. No run comes near 50 MiB, but no setting prevents it either: size the heap
# for the true bound. With Kafka's default `socket.request.max.bytes` of 100 MiB, a
# 100 MiB pool can hold up to 200 MiB - 1 byte of requests; lowering `socket.request.max.bytes`
# (the largest request a client may send) lowers the overshoot too.
#
# The figure's bottom left is each of the 100 connections' wait before its requests are read,
# with the 4 MiB spike: the p50 is 0 ms on every connection, and that is the point: most requests
# arrive while the pool has room and are read at once. The waits are in the tail: each
# connection's p99 is between 20 ms and 2.5 s, the requests that found the pool dry.
#
# ## 4. Why shuffle the sockets under pressure
#
# A selector returns ready sockets in an order that may be the same on every poll. When memory is
# short, whoever comes first takes what a handler just released, and the sockets at the end of the
# order wait longest. Kafka shuffles the ready keys, but only when memory is low: available memory
# below 10% of the pool and no channel muted for lack of memory (`Selector.determineHandlingOrder`).
# Here with a 20 MiB pool, 1 MiB large requests (one in five during a 5 s spike) and slower handlers,
# so that memory comes back in small pieces:

# %% [markdown]
# > **Kafka's code, not the KIP text:** KIP-72 says the keys are shuffled "ONLY IF MEMORY IS TIGHT
# > (so if the previous allocation call failed)". Kafka's `Selector` does something else: it
# > shuffles while `!outOfMemory && memoryPool.availableMemory() < lowMemThreshold`, where
# > `lowMemThreshold` is 10% of the pool and `outOfMemory` is set when a channel has muted itself
# > because its allocation failed (and cleared once the pool has memory again). So there is *no*
# > shuffle right after a failed allocation, and there is one while memory is merely low. kipviz
# > follows the code (`kipviz.kafka.broker.should_shuffle_keys`).

# %%
pressure = replace(BROKER_LESSON_SCENARIO, queued_max_request_bytes=20 * MiB,
                   large_request_bytes=1 * MiB, large_share=0.2, handler_bytes_per_s=25e6,
                   spike_start_ms=5000, spike_duration_ms=5000)
waits = pool_curves(spark, {"shuffle on (Kafka)": pressure,
                            "shuffle off (what-if)": replace(pressure, shuffle=False)}, seed=0)
print(waits_table(waits, edge=10).to_string(index=False))
compare_waits_figure(waits, title="Who waits for memory: connections in key order")

# %% [markdown]
# ("Jain over waits" is Jain's index, lesson 1, over the connections' mean waits: 1 when every
# connection waits alike.) Without shuffling, the last connections in key order wait about five
# times longer than the first ones (3,470 ms against 721 ms); shuffling narrows the gap to about 2.6
# times (2,746 against 1,057 ms) and raises Jain's index from 0.786 to 0.895, but does not close
# it: it applies only
# while memory is low *and* nobody is muted, and right after channels are unmuted (memory came
# back, often more than 10% of the pool at once) the fixed order still decides who reads first.
#
# ## 5. Try it
#
# Move the sliders: `queued.max.request.bytes` below `socket.request.max.bytes` is rejected with
# Kafka's rule; `-1` turns the pool off. Each move re-runs the broker and Spark redraws the curves.

# %% tags=["nbval-ignore-output"]
BrokerDashboard(spark=spark)

# %% [markdown]
# ## 6. What the size check protects, and invalid requests by Kafka version
#
# A request starts with its size (4 bytes). `NetworkReceive` refuses a size above
# `socket.request.max.bytes` before anything is allocated (`InvalidReceiveException`: the
# connection is closed); only then does it ask the pool. The classic: a client speaking TLS to a
# PLAINTEXT listener. Its handshake starts `0x16 0x03 0x01 0x01`, which read as a size is:

# %%
size_check_table()

# %% [markdown]
# The default 100 MiB refuses those 369,295,617 bytes (352.2 MiB) at once. Raised to 500 MB, as
# operators do to "fix" large requests, it lets the broker try to reserve 352 MiB for a request
# that never completes ("Cannot reserve 369295617 bytes of direct buffer memory", reported in a
# public Helm chart tracker, sentry-kubernetes/charts #1733). The size check is what bounds a
# single request; raising it raises every bound in this lesson with it.
#
# A *complete* request can still be invalid: an unsupported version, a corrupt body (Kafka's
# `SocketServerMemoryPoolTest`). `Processor.processCompletedReceives` fails to parse it and closes
# the connection, and until KAFKA-20302 (March 2026) it never returned the request's buffer to the
# pool: each one shrinks the pool for good. The fix is in 4.3.0, 4.2.1 and 3.9.3; 4.0 and 4.1 keep
# the leak (`kafka_version` is MAJOR.MINOR and follows each minor's newest patch, so 3.9 and 4.2
# here mean 3.9.3 and 4.2.1). The lesson's broker with 1% of its requests invalid:

# %%
invalid_request_table(BROKER_LESSON_SCENARIO, ("4.1", "4.2"), invalid_share=0.01)

# %% [markdown]
# On 4.1 the 420 invalid requests keep 18.5 MiB of the 40 MiB pool after 20 s (21.1 MiB left);
# on 4.2 the pool ends at 39.7 MiB, short only by the requests in flight. A broker up for days
# on 4.0 or 4.1 loses its whole pool this way, and then reads nothing at all: set
# `queued.max.request.bytes` on those releases only with an eye on `MemoryPoolAvailable`, or
# upgrade. Without a pool (the default -1) nothing leaks: the buffer is the heap's.

# %% [markdown]
# ## Conclusion
#
# * Without a pool, memory for queued requests is bounded only by `connections x
#   socket.request.max.bytes`: a burst of large requests can exhaust the heap.
# * `queued.max.request.bytes` bounds it at `queued.max.request.bytes + socket.request.max.bytes - 1`
#   (the pool is non-strict so that large requests are not starved); size the heap for that.
# * Under memory pressure waits grow and shift onto the sockets served last; shuffling spreads them.
# * `socket.request.max.bytes` refuses an absurd size before any allocation (a TLS handshake on a
#   PLAINTEXT port reads as 352 MiB); on 4.0 and 4.1 each invalid complete request shrinks the
#   pool for good (KAFKA-20302).
#
# ## What Kafka does today
#
# This is Kafka 4.3 (the newest release kipviz models); the pool has worked this way since 1.0.
#
# * KIP-72 shipped in Kafka 1.0 (KAFKA-4602) as `queued.max.request.bytes` (the KIP's
#   `queued.max.bytes`), default **-1**: the pool
#   is off unless you set it. When set, it must be at least `socket.request.max.bytes` (default
#   104857600), which `KafkaConfig` checks at start-up.
# * `queued.max.requests` (default 500) still bounds the number of requests in the queue beside it.
# * The broker reports `MemoryPoolAvgDepletedPercent` and `MemoryPoolDepletedTimeTotal`
#   (`socket-server-metrics`): the share and total time the pool had no memory to give.

# %% [markdown]
# ## Exercises
#
# Each card applies the lesson's rule to new numbers. Put your number in place of `None` and run
# the cell for a verdict; "Show the answer" opens the answer and why.

# %%
from kipviz.apps.exercises import exercise

exercise("02", 1, my_answer=None)

# %%
exercise("02", 2, my_answer=None)

# %% [markdown]
# ## Your cluster
#
# The lesson's formula with your own settings, the metric to watch and the knob to turn. Replace the sample files with your `consumer.properties` and `server.properties` (paths, or mappings of Kafka keys) and the numbers with your cluster's; settings Kafka would refuse are reported as notes.

# %%
from kipviz import data_file
from kipviz.apps.your_cluster import your_cluster

print(your_cluster("02", data_file("consumer.properties"), data_file("server.properties"),
                   brokers=6, partitions=120))

# %% [markdown]
# **Course:** ← [1 · fetch size limit](01_fetch_size_limit.ipynb) · [3 · consumer buffer memory](03_consumer_buffer_memory.ipynb) → · [cheat sheet](cheatsheet.ipynb) · [glossary](glossary.ipynb)
