"""One consumer workload under several Kafka releases: what each one holds, against its bound.

Kafka 4.0 changed how much a consumer whose application lags keeps in memory (KAFKA-17182: no
fetch to a broker while any of its fetchable partitions has buffered data, because leaving those
partitions out of a request dropped them from the broker's fetch session cache and could get the
whole session evicted). :func:`memory_by_version` runs the same record batches under each release
and lines up the peak held memory with the one answer of :mod:`kipviz.kafka.consumer.memory`, so a
lesson can show 3.9 and 4.x side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from kipviz.kafka.config.versions import check_kafka_version
from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.units import MiB
from kipviz.scenarios.consumer.scenario import ConsumerScenario, ConsumerTrace, simulate
from kipviz.scenarios.workload import produce

__all__ = ["memory_by_version", "simulate_versions"]



def simulate_versions(scenario: ConsumerScenario, versions: Sequence[str] = ("3.9", "4.3"), *,
                      seed: int = 0) -> dict[str, ConsumerTrace]:
    """The scenario under each Kafka release of ``versions``, on one set of record batches."""
    for v in versions:
        check_kafka_version(v)
    batches = produce(scenario.workload, scenario.partitions, scenario.ticks, scenario.tick_ms,
                      seed=seed)
    return {v: simulate(replace(scenario, kafka_version=v), seed=seed, batches=batches,
                        record_fetches=False) for v in versions}


def memory_by_version(scenarios: dict[str, ConsumerScenario] | ConsumerScenario,
                      versions: Sequence[str] = ("3.9", "4.3"), *,
                      seed: int = 0) -> pd.DataFrame:
    """Peak held memory (landed, not yet consumed) and in flight, against the version's bound.

    ``scenarios`` is one scenario or several by label. One row per (label, version): ``label``
    (with the version), ``kafka_version``, ``peak_held_mib``, ``peak_in_flight_mib``,
    ``bound_mib`` and ``rule`` (:func:`~kipviz.kafka.consumer.memory.consumer_memory_bounds`),
    ``kip74_bound_mib`` (KIP-74's one round), ``pre_kip74_bound_mib`` (partitions x
    ``max.partition.fetch.bytes``) and ``sentence``; the ``*_bytes`` columns
    :func:`kipviz.plots.consumer.memory_bounds_figure` reads are there too.
    """
    named = scenarios if isinstance(scenarios, dict) else {"": scenarios}
    rows = []
    for label, scenario in named.items():
        for v, trace in simulate_versions(scenario, versions, seed=seed).items():
            s = replace(scenario, kafka_version=v)
            answer = consumer_memory_bounds(s, max_batch_bytes=trace.meta["max_batch_bytes"])
            peak = int(trace.memory.held_bytes.max())
            rows.append({
                "label": f"{label}, Kafka {v}" if label else f"Kafka {v}",
                "kafka_version": v, "peak_held_bytes": peak,
                "kip74_bound_bytes": int(trace.meta["kip74_bound_bytes"]),
                "pre_kip74_bound_bytes": int(trace.meta["pre_kip74_bound_bytes"]),
                "peak_held_mib": round(peak / MiB, 1),
                "peak_in_flight_mib": round(int(trace.memory.in_flight_bytes.max()) / MiB, 1),
                "bound_mib": round(answer.bound_bytes / MiB, 1), "rule": answer.rule,
                "kip74_bound_mib": round(trace.meta["kip74_bound_bytes"] / MiB, 1),
                "pre_kip74_bound_mib": round(trace.meta["pre_kip74_bound_bytes"] / MiB, 1),
                "sentence": answer.sentence()})
    return pd.DataFrame(rows)
