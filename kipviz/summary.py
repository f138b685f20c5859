"""One configuration reduced to the summary metrics and downsampled curves a sweep stores.

:func:`summarise` simulates a consumer (KIP-74 / KIP-81), broker (KIP-72), reassignment (KIP-73),
Streams (KIP-770) or share-group (KIP-932) scenario and reduces its trace; :mod:`kipviz.sweep`
runs it in Spark's tasks.

Summary metrics (NaN where a scenario has no such quantity): ``peak_memory_bytes`` and
``p99_memory_bytes`` of what the mechanism holds (a consumer's retained fetch responses, KIP-74 and
KIP-81; a broker pool's requests, KIP-72; a reassigning follower's lag, KIP-73; a Streams
instance's input buffered after its polls, KIP-770; the most one share consumer holds, KIP-932)
against ``bound_bytes`` (KIP-81's ``buffer.memory`` + largest response - 1, KIP-72's outstanding
bound, KIP-770's shares + one fetch per partition, a share consumer's fetch bound) and, for a
consumer, ``kip74_bound_bytes``; ``min_jain_index`` / ``mean_jain_index`` over windows (across
partitions for a consumer, KIP-74; across stream threads for Streams, KIP-770; across share
consumers, KIP-932); ``longest_starvation_fetches``; ``throughput_bytes_per_s``;
``move_time_s`` (KIP-73). Curves: per window, ``curve_window_ms``, ``curve_memory_bytes``,
``curve_throughput_bytes_per_s`` and ``curve_jain_index``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["CURVES", "SUMMARY", "check_sweepable", "jain_by_window", "metric_table", "select_rows",
           "share_consumer_demand", "summarise", "thread_demand"]

SUMMARY = {
    "peak_memory_bytes": "float64", "p99_memory_bytes": "float64", "bound_bytes": "float64",
    "kip74_bound_bytes": "float64", "min_jain_index": "float64", "mean_jain_index": "float64",
    "longest_starvation_fetches": "float64", "throughput_bytes_per_s": "float64",
    "move_time_s": "float64",
}
CURVES = ("curve_window_ms", "curve_memory_bytes", "curve_throughput_bytes_per_s",
          "curve_jain_index")


def jain_by_window(windows: pd.DataFrame) -> np.ndarray:
    """Jain's index per window over partitions with data, as :func:`kipviz.curves.fairness`
    computes it in Spark (max-min fair shares by water-filling), here in numpy for the tasks."""
    out = []
    for _, w in windows.groupby("window", sort=True):
        d = w["demand_bytes"].to_numpy(dtype=float)
        x = w["delivered_bytes"].to_numpy(dtype=float)
        keep = d > 0
        d, x = d[keep], x[keep]
        if len(d) == 0:
            out.append(math.nan)
            continue
        order = np.argsort(d, kind="stable")
        ds = d[order]
        smaller = np.concatenate([[0.0], np.cumsum(ds)[:-1]])
        cand = (x.sum() - smaller) / (len(ds) - np.arange(len(ds)))
        fits = np.nonzero(cand <= ds)[0]
        share = np.minimum(d, cand[fits[0]]) if len(fits) else d
        ratio = np.divide(x, share, out=np.ones_like(x), where=share > 0)
        out.append(ratio.sum() ** 2 / (len(ratio) * (ratio**2).sum()))
    return np.asarray(out)


def thread_demand(threads: pd.DataFrame, window_ms: int) -> pd.DataFrame:
    """A Streams trace's ``threads`` table as :func:`jain_by_window` input: per window and stream
    thread, the records it could have processed (``demand_bytes``) and did (``delivered_bytes``),
    as :func:`kipviz.curves.streams.thread_fairness` measures fairness across threads."""
    window = threads["time_ms"].to_numpy() // window_ms
    table = pd.DataFrame({"window": window, "thread": threads["thread"].to_numpy(),
                          "demand_bytes": threads["demand_records"].to_numpy(dtype=float),
                          "delivered_bytes": threads["processed_records"].to_numpy(dtype=float)})
    return table.groupby(["window", "thread"], sort=True, as_index=False).sum()


def share_consumer_demand(consumers: pd.DataFrame, window_ms: int,
                          demand_records: float) -> pd.DataFrame:
    """A share-group trace's share consumers as :func:`jain_by_window` input: per window and
    consumer, the records it could process (``demand_bytes``, the same for all) and did
    (``delivered_bytes``), as :func:`kipviz.curves.share_group.share_group_curves` measures
    fairness across consumers."""
    share = consumers[consumers["group"] == "share"]
    table = pd.DataFrame({"window": share["time_ms"].to_numpy() // window_ms,
                          "partition": share["consumer"].to_numpy(),
                          "delivered_bytes": share["processed"].to_numpy(dtype=float)})
    table = table.groupby(["window", "partition"], sort=True, as_index=False).sum()
    table["demand_bytes"] = float(demand_records)
    return table


def summarise(scenario: Any, seed: int = 0) -> dict[str, Any]:
    """Simulate one configuration and reduce it to the summary metrics and curves (module doc)."""
    from kipviz.scenarios.broker import BrokerScenario
    from kipviz.scenarios.consumer import ConsumerScenario
    from kipviz.scenarios.reassignment import ReassignmentScenario
    from kipviz.scenarios.share_group import ShareGroupScenario
    from kipviz.scenarios.streams import StreamsScenario

    nan = math.nan
    row: dict[str, Any] = dict.fromkeys(SUMMARY, nan)
    jain, windows = np.full(0, nan), 20
    if isinstance(scenario, ConsumerScenario):
        from kipviz.scenarios.consumer import simulate

        t = simulate(scenario, seed=seed, record_fetches=False)
        memory, tick_ms = t.buffer["retained_bytes"].to_numpy(), t.meta["tick_ms"]
        consumed = t.memory["consumed_bytes"].to_numpy()
        jain = jain_by_window(t.windows)
        row.update(bound_bytes=t.meta.get("pooled_bound_bytes", nan),
                   kip74_bound_bytes=t.meta["kip74_bound_bytes"],
                   longest_starvation_fetches=t.windows["max_starvation_streak"].max())
        windows = scenario.windows
    elif isinstance(scenario, BrokerScenario):
        from kipviz.scenarios.broker import simulate as simulate_broker

        tb = simulate_broker(scenario, seed=seed)
        memory, tick_ms = tb.ticks["pool_used_bytes"].to_numpy(), tb.meta["tick_ms"]
        consumed = tb.ticks["bytes_read"].to_numpy()
        bound = tb.meta["outstanding_bound_bytes"]
        row["bound_bytes"] = nan if bound is None else bound
    elif isinstance(scenario, ReassignmentScenario):
        from kipviz.scenarios.reassignment import simulate as simulate_move

        tr = simulate_move(scenario)
        memory, tick_ms = tr.ticks["replica_lag_bytes"].to_numpy(), tr.meta["tick_ms"]
        consumed = tr.ticks["throttled_bytes"].to_numpy()
        done = tr.meta.get("completed_ms")
        row["move_time_s"] = nan if done is None else done / 1000.0
    elif isinstance(scenario, StreamsScenario):
        from kipviz.scenarios.streams import simulate as simulate_streams

        ts = simulate_streams(scenario, seed=seed)
        memory, tick_ms = ts.ticks["buffered_bytes_after_poll"].to_numpy(), ts.meta["tick_ms"]
        consumed = ts.ticks["processed_bytes"].to_numpy()
        row["bound_bytes"] = ts.meta["bytes_bound_bytes"]
        jain = jain_by_window(thread_demand(ts.threads, math.ceil(len(memory) / windows)
                                            * tick_ms))
    elif isinstance(scenario, ShareGroupScenario):
        from kipviz.scenarios.share_group import simulate as simulate_share

        tg = simulate_share(scenario, seed=seed)
        share = tg.consumers[tg.consumers["group"] == "share"]
        width = scenario.share_consumers
        memory = share["held_bytes"].to_numpy().reshape(-1, width).max(axis=1)
        consumed = (share["processed"].to_numpy().reshape(-1, width).sum(axis=1)
                    * scenario.record_bytes)
        tick_ms = tg.meta["tick_ms"]
        row["bound_bytes"] = tg.meta["memory_bound_bytes"]
        window_ms = math.ceil(len(memory) / windows) * tick_ms
        jain = jain_by_window(share_consumer_demand(
            tg.consumers, window_ms, scenario.process_records_per_s * window_ms / 1000.0))
    else:
        raise _unsweepable(scenario)
    if np.isfinite(jain).any():
        row.update(min_jain_index=np.nanmin(jain), mean_jain_index=np.nanmean(jain))
    row.update(peak_memory_bytes=float(memory.max()) if len(memory) else nan,
               p99_memory_bytes=float(np.percentile(memory, 99)) if len(memory) else nan,
               throughput_bytes_per_s=consumed.sum() * 1000.0 / (len(consumed) * tick_ms))
    edges = np.linspace(0, len(memory), min(windows, len(memory)) + 1).astype(int)
    row["curve_window_ms"] = (edges[:-1] * tick_ms).astype(np.int64)
    row["curve_memory_bytes"] = np.array([memory[a:b].max() for a, b in itertools.pairwise(edges)],
                                         dtype=float)
    row["curve_throughput_bytes_per_s"] = np.array(
        [consumed[a:b].sum() * 1000.0 / ((b - a) * tick_ms) for a, b in itertools.pairwise(edges)])
    row["curve_jain_index"] = np.asarray(jain, dtype=float)
    return {k: float(v) if k in SUMMARY else v for k, v in row.items()}


def _sweepable(scenario: Any) -> bool:
    from kipviz.scenarios.broker import BrokerScenario
    from kipviz.scenarios.consumer import ConsumerScenario
    from kipviz.scenarios.reassignment import ReassignmentScenario
    from kipviz.scenarios.share_group import ShareGroupScenario
    from kipviz.scenarios.streams import StreamsScenario

    return isinstance(scenario, ConsumerScenario | BrokerScenario | ReassignmentScenario
                      | StreamsScenario | ShareGroupScenario)


def _unsweepable(scenario: Any) -> ValueError:
    return ValueError(f"cannot sweep a {type(scenario).__name__}: a ConsumerScenario, "
                      f"BrokerScenario, ReassignmentScenario, StreamsScenario or "
                      f"ShareGroupScenario is needed")


def check_sweepable(scenario: Any) -> None:
    """Raise ValueError, naming the kinds :func:`summarise` knows, unless it knows this one."""
    if not _sweepable(scenario):
        raise _unsweepable(scenario)


def select_rows(table: pd.DataFrame, **equal: Any) -> pd.DataFrame:
    """The rows of a sweep table whose columns equal the values given (``kafka_version="4.3"``)."""
    unknown = sorted(set(equal) - set(table.columns))
    if unknown:
        raise ValueError(f"no column {unknown[0]!r} in the table: {', '.join(table.columns)}")
    keep = np.ones(len(table), dtype=bool)
    for name, value in equal.items():
        keep &= (table[name] == value).to_numpy()
    return table[keep]


def metric_table(table: pd.DataFrame, values: str, index: str, columns: str, *,
                 scale: float = 1.0, digits: int | None = None, **equal: Any) -> pd.DataFrame:
    """One metric of a sweep table laid out over two settings (rows ``index``, columns
    ``columns``), divided by ``scale`` and rounded to ``digits``, for the rows equal to
    ``equal``: ``metric_table(t, "peak_memory_bytes", "max_partition_fetch_bytes",
    "fetch_max_bytes", scale=MiB, digits=0, kafka_version="4.3")``."""
    pivot = select_rows(table, **equal).pivot_table(index=index, columns=columns,
                                                    values=values) / scale
    return pivot if digits is None else pivot.round(digits)
