"""KIP-74 consumer: kipviz's compiled kernel against SimPy and plain Python, and the dashboard.

Throughput is counted in *partition-fetches* (partition entries in fetch requests: the sum of the
``fetches`` column of the windows table) per second. The setting has one fetch round per broker
every tick: 1,000 partitions on 3 brokers, producers writing 100 MB/s spread evenly, a round trip
of one 10 ms tick, every response smaller than what a 1 Gbit/s link carries in a tick, and an
application (1 GB/s) that drains each response before the next one lands. The compiled kernel runs
10,000 ticks; the SimPy program (:mod:`tools.oracles.simpy_consumer`, the same model, checked value
for value by ``tests/scenarios/consumer/test_simpy_reference.py``) and the plain-Python kernel are
far slower, so they run fewer ticks of the same setting, and the figures compare *rates* measured in
the same run. Workloads are generated before timing; each timing is the median of several runs after
a warm-up.

The same kernel runs each other client (``client=``, issue 31) at its defaults on the same setting;
``speedup_vs_simpy_<client>`` is its rate against the SimPy program's (Java's model: the one
reference; the clients differ in the requests they send and what they hold).

The dashboard figure is the latency of one slider move on ``FetchDashboard(partitions=1000,
ticks=2000)``: re-simulate, recompute the Spark curves, redraw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from benchmarks.harness import SliderMoves, compare_kernel, emit, note
from kipviz.kafka.fetch.request import Ordering
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Batches, Workload, produce
from tools.oracles.simpy_consumer import simulate_simpy

NAME = "kip74_consumer"
PARTITIONS = 1000
COMPILED_TICKS = 10_000
REFERENCE_TICKS = 300
COMPILED_REPEAT = 5  # runs of 10,000 ticks: long enough to time
SEED = 0
KiB, MiB = 1024, 1024 * 1024


def scenario(ticks: int) -> ConsumerScenario:
    """The benchmark setting: a fetch round per broker every tick."""
    return ConsumerScenario(
        partitions=PARTITIONS, brokers=3, rtt_ms=10, tick_ms=10, ticks=ticks, windows=20,
        consume_bytes_per_s=1e9, network_bytes_per_s=125e6,
        workload=Workload(profile="uniform", produce_bytes_per_s=100e6),
    )


def _batches(s: ConsumerScenario) -> Batches:
    return produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=SEED)



def throughput() -> None:
    """Partition-fetches per second: compiled kernel, SimPy program, plain-Python kernel."""
    long, short = scenario(COMPILED_TICKS), scenario(REFERENCE_TICKS)
    long_batches, short_batches = _batches(long), _batches(short)
    note(NAME, f"{PARTITIONS} partitions on {long.brokers} brokers, one fetch round per broker "
               f"per tick; compiled kernel on {COMPILED_TICKS} ticks, SimPy and plain Python on "
               f"{REFERENCE_TICKS} ticks of the same setting; workload generation not timed")

    trace = simulate(long, seed=SEED, record_fetches=False, batches=long_batches)
    compiled_fetches = int(trace.windows.fetches.sum())
    emit(NAME, "compiled_partition_fetches", compiled_fetches, "partition-fetches")
    reference = simulate(short, seed=SEED, record_fetches=False, batches=short_batches)
    windows, memory = simulate_simpy(short, seed=SEED, batches=short_batches)
    short_fetches = int(reference.windows.fetches.sum())
    emit(NAME, "reference_partition_fetches", short_fetches, "partition-fetches")
    compare_kernel(
        NAME, count=short_fetches, unit="partition-fetches",
        same_model=windows.equals(reference.windows) and memory.equals(reference.memory),
        compiled=lambda: simulate(long, seed=SEED, record_fetches=False, batches=long_batches),
        compiled_count=compiled_fetches, compiled_repeat=COMPILED_REPEAT,
        simpy=lambda: simulate_simpy(short, seed=SEED, batches=short_batches),
        python=lambda: simulate(short, seed=SEED, record_fetches=False, compiled=False,
                                batches=short_batches),
        simpy_warmup=1, variants=_other_clients(long, long_batches))


def _other_clients(long: ConsumerScenario, batches: Batches
                   ) -> dict[str, tuple[Callable[[], Any], int]]:
    """Each other client (issue 31) on the same setting and batches at its defaults, with its
    partition-fetches: its rate against the Java model's SimPy rate (the one reference program;
    the clients differ only in which requests they send and what they hold)."""
    runs = {}
    for client in ("librdkafka", "franz-go", "kafka-python"):
        s = replace(long, client=client)
        count = int(simulate(s, seed=SEED, record_fetches=False, batches=batches)
                    .windows.fetches.sum())
        runs[client.replace("-", "_")] = (
            lambda s=s: simulate(s, seed=SEED, record_fetches=False, batches=batches), count)
    return runs


SLIDERS = SliderMoves(
    "FetchDashboard",
    values={
        "fetch_max_bytes": [256 * KiB, 4 * MiB, 64 * KiB, 52428800, 1 * MiB, 16 * MiB],
        "max_partition_fetch_bytes": [64 * KiB, 1 * MiB, 16 * KiB, 4 * MiB, 256 * KiB],
        "ordering": [o.name.lower() for o in (Ordering.ROUND_ROBIN, Ordering.HASH,
                                                Ordering.SESSION, Ordering.RANDOM,
                                                Ordering.FIXED)],
    },
    what="fetch.max.bytes, max.partition.fetch.bytes and the partition order",
    overrides={"partitions": PARTITIONS, "ticks": 2000})


def run() -> None:
    """The kernel against its references, then slider moves on FetchDashboard."""
    throughput()
    SLIDERS.time(NAME)
