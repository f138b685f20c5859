"""Lesson 5's comparisons of KIP-770 Streams runs: several scenarios, their curves, one table.

Each function runs :func:`kipviz.scenarios.streams.scenario.simulate` on a few variants of a
scenario, turns the traces into :class:`~kipviz.curves.streams.StreamsCurves` with Spark and reduces
them to the small pandas table a lesson prints, so that lesson cells only call and print. Policies
are :data:`kipviz.kafka.streams.input_buffer.STREAMS_POLICIES`: ``thread_bytes_as_merged`` is
KIP-770's resume rule as written and merged, ``thread_bytes`` adds apache/kafka#13283's resume of
emptied partitions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from kipviz.curves.streams.curves import StreamsCurves, bound_sweep, streams_curves
from kipviz.kafka.units import MiB
from kipviz.scenarios.streams.scenario import StreamsScenario, simulate

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["policies_table", "policy_curves", "record_size_sweep", "skewed_value_bytes",
           "thread_fairness_table"]



def policy_curves(spark: SparkSession, runs: Mapping[str, StreamsScenario], *,
                  seed: int = 0) -> dict[str, StreamsCurves]:
    """The curves of each labelled scenario (same seed), in the order given."""
    return {label: streams_curves(spark, simulate(s, seed=seed)) for label, s in runs.items()}


def policies_table(curves: Mapping[str, StreamsCurves], *, last_windows: int = 10
                   ) -> pd.DataFrame:
    """One row per run: peak buffered and its policy's bound (MiB), records/s over the run and
    over the last ``last_windows`` windows, threads stalled at the end, most partitions paused."""
    rows = {}
    for label, c in curves.items():
        rate = c.instance_memory["processed_records_per_s"]
        bound = (c.records_bound_bytes if c.policy == "records_per_partition"
                 else c.bytes_bound_bytes)
        rows[label] = {"peak buffered (MiB)": c.peak_bytes / MiB,
                       "its bound (MiB)": bound / MiB,
                       "records/s": float(rate.mean()),
                       "records/s, last second": float(rate.iloc[-last_windows:].mean()),
                       "stalled threads at the end": c.stalled_threads,
                       "most partitions paused": int(c.instance_memory["paused_max"].max())}
    return pd.DataFrame(rows).T


def skewed_value_bytes(scenario: StreamsScenario, *, thread: int = 0, heavy_bytes: int = 20000,
                       light_bytes: int = 500) -> list[int]:
    """Value sizes per partition: ``heavy_bytes`` on the partitions of ``thread``'s tasks (task k
    runs on thread k % threads; partition p belongs to task p // topics), ``light_bytes`` else."""
    s = scenario
    if not 0 <= thread < s.threads:
        raise ValueError(f"thread must be in [0, {s.threads}): {thread}")
    return [heavy_bytes if (p // s.topics) % s.threads == thread else light_bytes
            for p in range(s.partitions)]


def thread_fairness_table(spark: SparkSession, scenario: StreamsScenario,
                          policies: Iterable[str], value_bytes: Sequence[int], *,
                          seed: int = 0) -> pd.DataFrame:
    """Per policy: Jain's index across threads (mean over windows) and the records each thread
    processed over the run, for one scenario with the given value size per partition."""
    rows: list[dict[str, Any]] = []
    for policy in policies:
        trace = simulate(replace(scenario, policy=policy), seed=seed, value_bytes=value_bytes)
        c = streams_curves(spark, trace)
        done = trace.threads.groupby("thread")["processed_records"].sum()
        rows.append({"policy": policy, "Jain across threads (mean)": round(c.mean_jain_index, 3),
                     f"records processed by thread 0..{len(done) - 1}": done.tolist()})
    return pd.DataFrame(rows)


def record_size_sweep(spark: SparkSession, scenario: StreamsScenario, policies: Iterable[str],
                      value_bytes: Iterable[int], *, seed: int = 0) -> pd.DataFrame:
    """Peak input buffer (MiB) per policy and value size, every record the same size, beside the
    two bounds (:func:`kipviz.curves.streams.bound_sweep`)."""
    values = list(value_bytes)
    traces = {(policy, value): simulate(replace(scenario, policy=policy, value_bytes=value,
                                                record_size_spread=1.0), seed=seed)
              for policy in policies for value in values}
    sizes = bound_sweep(spark, traces)
    sizes["peak (MiB)"] = sizes["peak_bytes"] / MiB
    sizes["records bound (MiB)"] = sizes["records_bound_bytes"] / MiB
    sizes["byte bound (MiB)"] = sizes["bytes_bound_bytes"] / MiB
    return sizes
