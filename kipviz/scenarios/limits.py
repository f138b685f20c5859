"""What a scenario may ask of the machine: a seed, and a trace that fits in memory.

A scenario's fields are checked at construction by their declarations
(:func:`kipviz.kafka.config.fields.check_declared`: types, Kafka's ranges and the Java ranges of
:data:`kipviz.kafka.config.checks.JAVA_RANGES`). Here, what ``simulate`` checks before it
allocates anything:

* :func:`check_seed`: the seed fits the kernels' 32-bit generators.
* :func:`check_trace_bytes` in ``simulate``: the trace's estimated size (workload, kernel state,
  output tables) against :func:`max_trace_bytes`, half the machine's memory by default
  (``os.sysconf``) or ``KIPVIZ_MAX_TRACE_BYTES``; above it the error names the settings to lower.
* :func:`leading_brokers`: brokers that lead no partition send nothing, so no loop runs over them
  (partition p is led by broker ``p % brokers``: with more brokers than partitions, only the
  first ``partitions`` lead one).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from kipviz.kafka.config.checks import check_int
from kipviz.kafka.fetch.request import Ordering
from kipviz.kafka.units import gib

__all__ = [
    "MAX_TRACE_BYTES_ENV",
    "SEED_MAX",
    "WORKLOAD_BLOCK_CELLS",
    "check_broker",
    "check_consumer",
    "check_seed",
    "check_streams",
    "check_trace_bytes",
    "check_workload",
    "consumer_trace_bytes",
    "leading_brokers",
    "max_trace_bytes",
    "workload_bytes",
    "workload_settings",
]

MAX_TRACE_BYTES_ENV = "KIPVIZ_MAX_TRACE_BYTES"
_FALLBACK_BYTES = 8 * 1024**3  # when os.sysconf cannot tell the machine's memory


def max_trace_bytes() -> int:
    """The largest trace a scenario may allocate: ``KIPVIZ_MAX_TRACE_BYTES`` if set, else half
    the machine's physical memory (``os.sysconf``; 8 GiB where it cannot tell)."""
    text = os.environ.get(MAX_TRACE_BYTES_ENV, "").strip()
    if text:
        try:
            limit = int(float(text))
        except ValueError:
            raise ValueError(f"{MAX_TRACE_BYTES_ENV} must be a number of bytes: {text!r}") from None
        if limit < 1:
            raise ValueError(f"{MAX_TRACE_BYTES_ENV} must be >= 1: {text!r}")
        return limit
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, ValueError, OSError):
        return _FALLBACK_BYTES


def check_trace_bytes(estimate: float, settings: Mapping[str, object], what: str) -> None:
    """ValueError when ``estimate`` bytes exceed :func:`max_trace_bytes`, naming the settings
    (name -> value) whose product sized the trace, so the reader knows what to lower."""
    limit = max_trace_bytes()
    if estimate > limit:
        named = ", ".join(f"{name}={value!r}" for name, value in settings.items())
        source = (MAX_TRACE_BYTES_ENV if os.environ.get(MAX_TRACE_BYTES_ENV, "").strip()
                  else f"half this machine's memory; set {MAX_TRACE_BYTES_ENV} to change it")
        raise ValueError(f"{what} would need about {gib(estimate)} of memory, above the limit "
                         f"of {gib(limit)} ({source}): lower {named}")


def leading_brokers(partitions: int, brokers: int) -> int:
    """Brokers that lead at least one of ``partitions`` (partition p on broker p % brokers)."""
    return min(int(partitions), int(brokers))


WORKLOAD_BLOCK_CELLS = 1 << 20
"""(tick, partition) cells :func:`kipviz.scenarios.workload.produce` draws at a time."""


def workload_bytes(workload: Any, partitions: int, ticks: int, tick_ms: int) -> float:
    """Peak bytes :func:`kipviz.scenarios.workload.produce` allocates: its arrays over one block
    of (tick, partition) cells, the hot partitions of each burst, the cells that get records
    (at most one per record, and the backlog's cell of each partition) and the batches expected
    (records / records per batch, at most one part-filled batch a cell)."""
    cells = float(partitions) * float(ticks)
    seconds = float(ticks) * tick_ms / 1000.0
    bursts = workload.profile == "bursts"
    rate = workload.produce_bytes_per_s * (workload.burst_multiplier if bursts else 1.0)
    record = max(workload.record_bytes, workload.large_record_bytes, 1)
    per_batch = max(1, workload.batch_size_bytes // record)
    records = rate * seconds / workload.record_bytes
    lag_records = float(partitions) * (workload.initial_lag_bytes // workload.record_bytes)
    filled = min(cells, records + (partitions if lag_records else 0))
    batches = (records + lag_records) / per_batch + filled + partitions
    block = max(1, WORKLOAD_BLOCK_CELLS // max(1, partitions)) * float(partitions)
    hot = (-(-ticks * tick_ms // max(1, workload.burst_period_ms)) * float(partitions)
           if bursts else 0.0)
    return 40.0 * min(cells, block) + hot + 80.0 * filled + 96.0 * batches


def workload_settings(workload: Any) -> dict[str, object]:
    """The workload's settings that size its batches, by name (``workload.<field>``): the
    produce rate, the bursts' multiplier, the backlog when there is one."""
    named: dict[str, object] = {"workload.produce_bytes_per_s": workload.produce_bytes_per_s}
    if workload.profile == "bursts":
        named["workload.burst_multiplier"] = workload.burst_multiplier
    if workload.initial_lag_bytes:
        named["workload.initial_lag_bytes"] = workload.initial_lag_bytes
    return named


def check_workload(workload: Any, partitions: int, ticks: int, tick_ms: int) -> None:
    """:func:`check_trace_bytes` for the batches of ``workload`` over ``partitions`` x
    ``ticks``, naming the settings that size them (before anything is drawn)."""
    check_trace_bytes(workload_bytes(workload, partitions, ticks, tick_ms),
                      {"partitions": partitions, "ticks": ticks, **workload_settings(workload)},
                      f"A workload of {partitions} partitions x {ticks} ticks")


def consumer_trace_bytes(scenario: Any, *, record_fetches: bool) -> float:
    """Estimated peak bytes of :func:`kipviz.scenarios.consumer.scenario.simulate` for
    ``scenario``."""
    s = scenario
    rtt_ticks = max(1, -(-s.rtt_ms // s.tick_ms))
    responses = float(s.partitions) * (-(-s.ticks // rtt_ticks) + 1)  # partitions x fetches
    fetch_rows = responses if record_fetches else 0.0
    random_keys = responses if s.request_ordering == Ordering.RANDOM else 0.0  # float64 each
    return (workload_bytes(s.workload, s.partitions, s.ticks, s.tick_ms)
            + 100.0 * s.windows * s.partitions + 90.0 * fetch_rows + 8.0 * random_keys
            + 120.0 * s.ticks
            + 256.0 * (s.partitions + leading_brokers(s.partitions, s.brokers)))


SEED_MAX = 2**32 - 1
"""The largest seed (32 bits, as when the kernels seeded numpy's legacy generator)."""


def check_seed(seed: object) -> int:
    """``seed`` as an int; ValueError unless it is an integer in 0 .. 2**32 - 1."""
    return check_int("seed", seed, 0, maximum=SEED_MAX)


def check_consumer(scenario: Any, *, record_fetches: bool = True, seed: object = 0) -> None:
    """:func:`check_trace_bytes` for a consumer scenario, naming its sizing settings, and
    :func:`check_seed`."""
    check_seed(seed)
    s = scenario
    named: dict[str, object] = {"partitions": s.partitions, "ticks": s.ticks,
                                "windows": s.windows, **workload_settings(s.workload)}
    if record_fetches:
        named["record_fetches"] = True
    check_trace_bytes(consumer_trace_bytes(s, record_fetches=record_fetches), named,
                      f"A consumer scenario of {s.partitions} partitions x {s.ticks} ticks")


def check_broker(scenario: Any) -> None:
    """:func:`check_trace_bytes` for a broker (KIP-72) scenario: Poisson counts per connection
    and tick, one row per request, per-tick tables."""
    s = scenario
    cells = float(s.connections) * float(s.ticks)
    requests = cells * s.requests_per_s_per_connection * s.tick_ms / 1000.0
    estimate = 16.0 * cells + 160.0 * requests + 120.0 * s.ticks + 64.0 * s.connections
    check_trace_bytes(estimate, {"connections": s.connections, "ticks": s.ticks,
                                 "requests_per_s_per_connection": s.requests_per_s_per_connection},
                      f"A broker scenario of {s.connections} connections x {s.ticks} ticks")


def check_streams(scenario: Any, thread_columns: int) -> None:
    """:func:`check_trace_bytes` for a Streams (KIP-770) scenario: per-(tick, partition) and
    per-(tick, thread) tables, each built once in the kernel and once as a DataFrame."""
    s = scenario
    ticks = float(s.ticks)
    estimate = (2 * 45.0 * ticks * s.partitions
                + 2 * 8.0 * ticks * s.max_threads * (thread_columns + 3))
    check_trace_bytes(estimate, {"tasks": s.tasks, "topics": s.topics, "ticks": s.ticks,
                                 "threads": s.max_threads},
                      f"A Streams scenario of {s.partitions} partitions x {s.ticks} ticks")
