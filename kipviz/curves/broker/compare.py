"""Lesson 2's comparisons of KIP-72 broker runs: the pool's rules, several runs, one table each.

:func:`allocation_table` walks ``SimpleMemoryPool.tryAllocate`` on a few requests (strict and
not); the others run :func:`kipviz.scenarios.broker.scenario.simulate` on variants of a scenario,
turn the traces into :class:`~kipviz.curves.broker.BrokerCurves` with Spark and reduce them to the
small pandas table a lesson prints, so that lesson cells only call and print.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from kipviz.curves.broker.curves import BrokerCurves, broker_curves
from kipviz.kafka.broker.pool import SimpleMemoryPool
from kipviz.kafka.units import MiB
from kipviz.scenarios.broker.scenario import BrokerScenario, simulate

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["allocation_table", "overshoot_table", "pool_curves", "pools_table", "waits_table"]



def allocation_table(size_bytes: int, max_single_allocation_bytes: int,
                     asks: Iterable[int]) -> pd.DataFrame:
    """Each request of ``asks`` in turn against a fresh non-strict pool, then a strict one:
    granted?, available bytes after, out of memory after (``SimpleMemoryPool``)."""
    sizes = list(asks)
    rows: list[dict[str, Any]] = []
    for strict in (False, True):
        pool = SimpleMemoryPool(size_bytes, max_single_allocation_bytes, strict=strict)
        for n in sizes:
            granted = pool.try_allocate(n)
            rows.append({"pool": "strict" if strict else "non-strict", "asks": n,
                         "granted": granted, "available after": pool.available_bytes,
                         "out of memory": pool.is_out_of_memory})
    return pd.DataFrame(rows)


def pool_curves(spark: SparkSession, runs: Mapping[str, BrokerScenario], *,
                seed: int = 0) -> dict[str, BrokerCurves]:
    """The curves of each labelled scenario (same seed), in the order given."""
    return {label: broker_curves(spark, simulate(s, seed=seed)) for label, s in runs.items()}


def pools_table(curves: Mapping[str, BrokerCurves]) -> pd.DataFrame:
    """One row per run: peak held and its bound (MiB; one request per connection without a
    pool), share of ticks out of memory, most channels muted, p99 waits, requests unread."""
    return pd.DataFrame({
        label: {"peak held (MiB)": c.memory["pool_used_max_bytes"].max() / MiB,
                "bound (MiB)": (c.outstanding_bound_bytes or c.per_connection_bound_bytes) / MiB,
                "out of memory (% of ticks)": 100 * c.depleted_share,
                "most channels muted": int(c.memory["muted_max"].max()),
                "p99 wait small (ms)": c.wait_p99_ms(large=False),
                "p99 wait large (ms)": c.wait_p99_ms(large=True),
                "unread at the end": int(c.wait_summary["unread_requests"].sum())}
        for label, c in curves.items()}).T


def overshoot_table(spark: SparkSession, scenario: BrokerScenario,
                    large_request_mib: Iterable[float], *, seed: int = 0) -> pd.DataFrame:
    """Peak held against ``queued.max.request.bytes`` and the true bound, per large request
    size (MiB)."""
    rows = []
    for large_mib in large_request_mib:
        s = replace(scenario, large_request_bytes=int(large_mib * MiB))
        c = broker_curves(spark, simulate(s, seed=seed))
        rows.append({"large request (MiB)": large_mib,
                     "peak held (MiB)": round(c.memory["pool_used_max_bytes"].max() / MiB, 2),
                     "queued.max.request.bytes (MiB)": s.queued_max_request_bytes / MiB,
                     "true bound (MiB)": round((c.outstanding_bound_bytes or 0) / MiB, 2)})
    return pd.DataFrame(rows)


def waits_table(curves: Mapping[str, BrokerCurves], *, edge: int = 10) -> pd.DataFrame:
    """Per run: Jain's index over waits and the mean wait (ms) of the first and the last
    ``edge`` connections in key order."""
    rows = []
    for label, c in curves.items():
        w = c.waits["wait_mean_ms"]
        rows.append({"run": label, "Jain over waits": round(c.wait_jain_index, 3),
                     f"mean wait, first {edge} connections (ms)": round(w.iloc[:edge].mean()),
                     f"mean wait, last {edge} connections (ms)": round(w.iloc[-edge:].mean())})
    return pd.DataFrame(rows)
