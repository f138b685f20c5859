"""The comparisons lessons 1 and 3 print, computed here so their cells only call and print.

Each function runs kipviz's models (and, where it needs curves, Spark) on several settings and
lays the numbers the lesson discusses out as one table: KIP-74's response rules on worked cases,
the starvation of KIP-74's A/B/C/D example, fairness by partition order, the memory bounds by
cluster size, the response-size guarantee, and the heap calibration of KIP-81's pull request.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from kipviz.kafka.consumer.memory import consumer_memory_bound_bytes, one_round
from kipviz.kafka.fetch.request import Ordering
from kipviz.kafka.fetch.response import (
    CONSUMER_FETCH_MAX_BYTES,
    MAX_PARTITION_FETCH_BYTES,
    fill_response,
)
from kipviz.kafka.units import MiB
from kipviz.scenarios.consumer.scenario import ConsumerScenario, ConsumerTrace, simulate

__all__ = ["ResponseSizes", "bounds_table", "fill_cases_table", "heap_table",
           "order_fairness_table", "response_sizes", "starvation_table", "version_order_table"]



def fill_cases_table(cases: Iterable[tuple[str, Sequence[Sequence[int]], int, int]]
                     ) -> pd.DataFrame:
    """``fill_response`` on named cases ``(name, batches, response_max_bytes,
    partition_max_bytes)``: the raw bytes and whole batches each partition gets."""
    rows = []
    for name, batches, response_max, partition_max in cases:
        parts = fill_response(batches, response_max_bytes=response_max,
                              partition_max_bytes=partition_max)
        rows.append((name, [(p.raw_bytes, p.complete_batches) for p in parts]))
    return pd.DataFrame(rows, columns=["case", "(raw bytes, whole batches) per partition"])


def starvation_table(spark: Any, runs: Mapping[str, ConsumerTrace],
                     names: Sequence[str] | None = None) -> pd.DataFrame:
    """Per partition (rows, optionally renamed ``names``) and run (column groups): fetches,
    starved fetches and the longest starvation streak
    (:func:`kipviz.curves.consumer.starvation_streaks` on the full-resolution fetches)."""
    from kipviz.curves.consumer.curves import starvation_streaks
    from kipviz.curves.sql import to_spark

    parts = {}
    for label, trace in runs.items():
        streaks: pd.DataFrame = starvation_streaks(to_spark(spark, trace.fetches)).toPandas()
        parts[label] = streaks.sort_values("partition").set_index("partition")[
            ["fetches", "starved_fetches", "longest_starvation_fetches"]]
    table = pd.concat(parts, axis=1)
    if names is not None:
        table.index = list(names)
    return table


def order_fairness_table(spark: Any, scenario: ConsumerScenario,
                         orderings: Iterable[Ordering] = tuple(Ordering)) -> pd.DataFrame:
    """The scenario under each partition order: min and mean Jain index and the longest
    starvation streak (fetches), one row per order."""
    from kipviz.curves.consumer.curves import consumer_curves

    rows = {}
    for order in orderings:
        c = consumer_curves(spark, simulate(replace(scenario, ordering=order)))
        rows[order.name.lower()] = {
            "min Jain": round(float(c.fairness.jain_index.min()), 3),
            "mean Jain": round(float(c.fairness.jain_index.mean()), 3),
            "longest starvation (fetches)": int(c.fairness.max_starvation_streak.max())}
    return pd.DataFrame(rows).T


def version_order_table(spark: Any, scenario: ConsumerScenario, versions: Iterable[str],
                        consume_bytes_per_s: Iterable[float] = ()) -> pd.DataFrame:
    """The order each Kafka release's consumer actually gets (``ordering=None``), with
    incremental fetch sessions and with every fetch full (``incremental_fetch_sessions=False``):
    the request order, min Jain index and longest starvation (fetches), one row per version
    (and per application rate in ``consume_bytes_per_s``, for a lagging application: a 1.1-3.9
    consumer leaves partitions with buffered data out of its requests, so they are forgotten
    and re-added at the end of the session, in request order)."""
    from kipviz.curves.consumer.curves import consumer_curves

    runs = [(v, None) for v in versions] + [
        (v, rate) for rate in consume_bytes_per_s for v in versions]
    rows = {}
    for version, rate in runs:
        base = replace(scenario, kafka_version=version, ordering=None)
        if rate is not None:
            base = replace(base, consume_bytes_per_s=rate)
        label = version if rate is None else f"{version}, application {rate / 1e6:,.0f} MB/s"
        row: dict[str, Any] = {"request order": base.fetch_order.request.name.lower()}
        for name, sessions in (("sessions", True), ("every fetch full", False)):
            c = consumer_curves(spark, simulate(replace(base, incremental_fetch_sessions=sessions)))
            row[f"min Jain ({name})"] = round(float(c.fairness.jain_index.min()), 3)
            row[f"longest starvation ({name})"] = int(c.fairness.max_starvation_streak.max())
        rows[label] = row
    return pd.DataFrame(rows).T


def bounds_table(clusters: Iterable[tuple[int, int]],
                 fetch_max_bytes: int = CONSUMER_FETCH_MAX_BYTES,
                 max_partition_fetch_bytes: int = MAX_PARTITION_FETCH_BYTES) -> pd.DataFrame:
    """For each ``(brokers, partitions)``: the pre-KIP-74 bound (partitions x
    max.partition.fetch.bytes) and KIP-74's one-round figure, in MiB."""
    rows = [{"brokers": b, "partitions": p,
             "pre-KIP-74 bound (MiB)": one_round(
                 b, fetch_max_bytes, max_partition_fetch_bytes, p).buffered_bytes / MiB,
             "KIP-74 bound (MiB)": consumer_memory_bound_bytes(
                 b, fetch_max_bytes, max_partition_fetch_bytes, p) / MiB}
            for b, p in clusters]
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class ResponseSizes:
    """KIP-74's guarantee on a run: no response above ``max(limit, largest batch)``."""

    limit_bytes: int
    largest_batch_bytes: int
    responses: int
    above_limit: int
    largest_response_bytes: int

    @property
    def guarantee_bytes(self) -> int:
        return max(self.limit_bytes, self.largest_batch_bytes)

    @property
    def holds(self) -> bool:
        return self.largest_response_bytes <= self.guarantee_bytes

    def __str__(self) -> str:
        return (f"response limit {self.limit_bytes:,} bytes, largest batch "
                f"{self.largest_batch_bytes:,} bytes\n{self.responses} responses, "
                f"{self.above_limit} above the limit (first-batch exceptions); largest "
                f"{self.largest_response_bytes:,} bytes <= max(limit, batch) = "
                f"{self.guarantee_bytes:,}: {self.holds}")


def response_sizes(scenario: ConsumerScenario, trace: ConsumerTrace) -> ResponseSizes:
    """Each response's size (its partitions' raw bytes) against the scenario's limit."""
    sizes = trace.fetches.groupby("fetch_id").raw_bytes.sum()
    limit = scenario.response_max_bytes
    return ResponseSizes(limit_bytes=limit, largest_batch_bytes=int(trace.meta["max_batch_bytes"]),
                         responses=len(sizes), above_limit=int((sizes > limit).sum()),
                         largest_response_bytes=int(sizes.max()) if len(sizes) else 0)


def heap_table(traces: Mapping[str, ConsumerTrace], baseline_heap_bytes: int,
               published: Mapping[str, float], names: Mapping[str, str]) -> pd.DataFrame:
    """The heap each mode needs
    (:func:`kipviz.scenarios.consumer.buffer_memory.heap_estimate_bytes`: the baseline plus its peak
    retained responses) against a published measurement, one row per mode of ``published``:
    ``consumer``, ``heap_bytes``, ``published_bytes`` and both in MB."""
    from kipviz.scenarios.consumer.buffer_memory import heap_estimate_bytes

    rows = []
    for mode, measured in published.items():
        heap = heap_estimate_bytes(traces[mode], baseline_heap_bytes)
        rows.append({"consumer": names.get(mode, mode), "heap_bytes": heap,
                     "published_bytes": measured, "simulated heap (MB)": round(heap / 1e6, 1),
                     "published (MB)": round(measured / 1e6)})
    return pd.DataFrame(rows)
