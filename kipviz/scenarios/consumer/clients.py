"""One consumer workload on each client (issue 31): what each holds, against its own bound.

:func:`memory_by_client` runs the same record batches through Java's consumer, librdkafka,
franz-go and kafka-python (each with its own settings, :mod:`kipviz.kafka.clients.fetching`) and
lines up each one's peak held memory with its bound
(:func:`kipviz.kafka.clients.bounds.client_memory_bounds`), with how fairly each shared the
bytes among partitions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pandas as pd

from kipviz.kafka.units import MiB
from kipviz.scenarios.consumer.scenario import ConsumerScenario, ConsumerTrace, simulate
from kipviz.scenarios.fairness import jain_index  # re-exported: the one definition
from kipviz.scenarios.workload import produce

__all__ = ["DEFAULT_CLIENTS", "KNOBS", "catching_up", "jain_index", "memory_by_client",
           "setting_for_memory", "settings_for_memory_table", "simulate_clients"]


DEFAULT_CLIENTS: dict[str, tuple[str, dict[str, int]]] = {
    "java": ("java", {}), "librdkafka": ("librdkafka", {}), "franz-go": ("franz-go", {}),
    "kafka-python": ("kafka-python", {})}
"""Each client at its defaults, by label: ``label -> (client, settings)``."""


def catching_up(partitions: int = 1000, brokers: int = 3, *, lag_bytes: int = 400_000_000,
                ticks: int = 200, compression_ratio: float = 1.0) -> ConsumerScenario:
    """The catching-up workload of issue 31's Show item: ``partitions`` on ``brokers``, each
    partition ``lag_bytes / partitions`` behind in 256 KiB batches, an application slower (50
    MB/s) than the brokers' links (125 MB/s each), ``ticks`` of 10 ms."""
    from kipviz.scenarios.workload import Workload

    return ConsumerScenario(partitions=partitions, brokers=brokers, ticks=ticks,
                            windows=min(10, ticks), consume_bytes_per_s=50e6,
                            compression_ratio=compression_ratio,
                            workload=Workload(initial_lag_bytes=lag_bytes,
                                                     batch_size_bytes=256 << 10))


def simulate_clients(scenario: ConsumerScenario,
                     clients: Mapping[str, tuple[str, Mapping[str, int]]] | None = None, *,
                     seed: int = 0) -> dict[str, ConsumerTrace]:
    """The scenario on each of ``clients`` (``label -> (client, settings)``; None: each client at
    its defaults), on one set of record batches."""
    named = DEFAULT_CLIENTS if clients is None else clients
    batches = produce(scenario.workload, scenario.partitions, scenario.ticks, scenario.tick_ms,
                      seed=seed)
    return {label: simulate(replace(scenario, client=client, client_settings=dict(settings)),
                            seed=seed, batches=batches, record_fetches=False)
            for label, (client, settings) in named.items()}


def memory_by_client(scenario: ConsumerScenario,
                     clients: Mapping[str, tuple[str, Mapping[str, int]]] | None = None, *,
                     seed: int = 0) -> pd.DataFrame:
    """One row per client label: ``label``, ``client``, ``peak_held_bytes`` / ``_mib`` (bytes the
    client holds once read: whole responses or parts, decompressed where it decompresses),
    ``peak_in_flight_mib``, ``bound_bytes`` / ``_mib`` and ``sentence`` (the client's bound, for
    the workload's largest batch ``max_batch_bytes``), ``delivered_mib``, ``jain_index`` (of
    the bytes each partition got; NaN when none got any) and ``starved_partitions`` (partitions
    that got nothing)."""
    rows = []
    for label, trace in simulate_clients(scenario, clients, seed=seed).items():
        per_partition = trace.windows.groupby("partition").delivered_bytes.sum().to_numpy()
        peak = int(trace.memory.held_bytes.max())
        bound = int(trace.meta["memory_bound_bytes"])
        rows.append({
            "label": label, "client": trace.meta["client"], "peak_held_bytes": peak,
            "peak_held_mib": round(peak / MiB, 1),
            "peak_in_flight_mib": round(int(trace.memory.in_flight_bytes.max()) / MiB, 1),
            "bound_bytes": bound, "bound_mib": round(bound / MiB, 1),
            "max_batch_bytes": int(trace.meta["max_batch_bytes"]),
            "delivered_mib": round(int(per_partition.sum()) / MiB, 1),
            "jain_index": round(jain_index(per_partition), 3),
            "starved_partitions": int((per_partition == 0).sum()),
            "sentence": trace.meta["memory_sentence"]})
    return pd.DataFrame(rows)


KNOBS = {"java": ("fetch_max_bytes", 52428800, 1 << 10),
         "librdkafka": ("queued.max.messages.kbytes", 65536, 1),
         "franz-go": ("FetchMaxBytes", 52428800, 1 << 10),
         "kafka-python": ("fetch_max_bytes", 52428800, 1 << 10)}
"""The one setting :func:`setting_for_memory` turns per client: its name (Java's is the
scenario field for ``fetch.max.bytes``), default and the smallest value tried."""


def _bound_with(client: str, value: int, partitions: int, brokers: int,
                compression_ratio: float, max_batch_bytes: int,
                settings: Mapping[str, int] | None = None) -> int:
    """The client's bound with its knob at ``value`` (franz-go's BrokerMaxReadBytes raised to
    stay >= FetchMaxBytes; Java's bound while its application lags)."""
    from kipviz.kafka.clients import client_memory_bounds

    if client == "java":
        s = ConsumerScenario(partitions=partitions, brokers=brokers, fetch_max_bytes=value)
        return int(client_memory_bounds("java", s, max_batch_bytes=max_batch_bytes)
                   .lagging_bytes)
    given = {**(settings or {}), KNOBS[client][0]: value}
    if client == "franz-go":
        given["BrokerMaxReadBytes"] = max(given.get("BrokerMaxReadBytes", 104857600), value)
    return int(client_memory_bounds(client, partitions, brokers, given,
                                    max_batch_bytes=max_batch_bytes,
                                    compression_ratio=compression_ratio).bound_bytes)


def setting_for_memory(client: str, memory_bytes: int, partitions: int, brokers: int, *,
                       compression_ratio: float = 1.0, max_batch_bytes: int = 1048588,
                       settings: Mapping[str, int] | None = None) -> tuple[str, int, int]:
    """The client's one memory setting (:data:`KNOBS`) for ``memory_bytes`` (what you give
    fetched data out of a container's limit), the client's other ``settings`` as given: its
    default when that fits, else the largest value
    whose bound fits, by bisection over the client's own bound; returns ``(setting, value,
    bound_bytes)``. ValueError when even the smallest value tried does not fit."""
    if client not in KNOBS:
        raise ValueError(f"client must be one of {', '.join(KNOBS)}: {client!r}")
    name, default, low = KNOBS[client]

    def bound(value: int) -> int:
        return _bound_with(client, value, partitions, brokers, compression_ratio,
                           max_batch_bytes, settings)

    if bound(low) > memory_bytes:
        raise ValueError(f"memory_bytes must hold {client}'s bound at {name} = {low} "
                         f"({bound(low):,}): {memory_bytes}")
    high = default
    if bound(high) <= memory_bytes:
        return name, high, bound(high)
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if bound(mid) <= memory_bytes else (low, mid - 1)
    return name, low, bound(low)


def settings_for_memory_table(memory_limit_bytes: int, partitions: int, brokers: int, *,
                              compression_ratios: tuple[float, ...] = (1.0, 4.0)) -> pd.DataFrame:
    """What to set per client for a container's memory limit, half of it for fetched data
    (:func:`setting_for_memory`): one row per (client, compression ratio) with ``setting``,
    ``value`` and the ``bound_mib`` it gives."""
    rows = []
    for client in KNOBS:
        for ratio in compression_ratios:
            name, value, bound = setting_for_memory(client, memory_limit_bytes // 2, partitions,
                                                    brokers, compression_ratio=ratio)
            rows.append({"client": client, "compression_ratio": ratio, "setting": name,
                         "value": value, "default": KNOBS[client][1],
                         "bound_mib": round(bound / MiB, 1)})
    return pd.DataFrame(rows)
