"""Jain's index and max-min fair shares: the one numpy definition (DESIGN.md "Curves").

* :func:`jain_index`: J = (sum x)^2 / (n * sum x^2) (R. Jain, D. Chiu and W. Hawe, 1984): 1.0
  when every x is alike, 1/n when one has everything; NaN with nothing to rate (no values, or
  all 0), as SQL's ``NULLIF`` gives NULL.
* :func:`max_min_fair_shares`: water-filling. What was delivered is poured over the demands; no
  one gets more than its demand and what the small ones do not need is split evenly among the
  rest: with demands sorted d_1 <= ... <= d_n and S_k-1 the sum of the k-1 smallest, the level
  is (C - S_k-1) / (n - k + 1) at the smallest k where that is <= d_k, and share_i =
  min(d_i, level) (share_i = d_i if no k qualifies).
* :func:`fair_share_ratios`: x_i = delivered_i / share_i, 1 where the share is 0 (a fair share of
  nothing, which happens only when nothing was delivered).
* :func:`jain_by_window`: per window, Jain's index over the ratios of the rows with demand (a
  consumer's partitions, KIP-74; a Streams instance's threads through :func:`thread_demand`,
  KIP-770); :func:`share_consumer_jain`: per window, over a share group's consumers, whose fair
  shares are equal (KIP-932).

The sweeps' tasks call these; :mod:`kipviz.curves` computes the same curves in Spark SQL
(``kipviz.curves.consumer.sql``'s water-filling for consumers and Streams threads, the
share-group and broker fairness queries), which ``tests/scenarios/test_fairness.py`` checks against
these functions on random inputs.

>>> max_min_fair_shares([10, 10, 1], 12).tolist()      # the level is 5.5; 1 needs only 1
[5.5, 5.5, 1.0]
>>> round(jain_index(fair_share_ratios([10, 10, 1], [10, 1, 1])), 4)
0.6914
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["fair_share_ratios", "jain_by_window", "jain_index", "max_min_fair_shares",
           "share_consumer_jain", "thread_demand"]

Values = Sequence[float] | np.ndarray


def jain_index(x: Values) -> float:
    """Jain's index of ``x``: (sum x)^2 / (n * sum x^2); NaN when there is no value or all are 0.

    The one definition (the consumer clients' table calls it too). All-zero input is "no
    allocation", not "an equal one": the formula is 0/0 there, and calling it 1.0 would rate a
    client that delivered nothing as perfectly fair. NaN is also what Spark SQL's
    ``NULLIF(n * sum x^2, 0)`` gives (:data:`kipviz.curves.sql.JAIN_INDEX`), so the numpy and SQL
    curves agree, and pandas' ``min``/``mean`` skip it.

    >>> jain_index([4, 4]), jain_index([6, 2]), jain_index([3, 0]), jain_index([])
    (1.0, 0.8, 0.5, nan)
    """
    a = np.asarray(x, dtype=float)
    denominator = len(a) * (a**2).sum()
    return float(a.sum() ** 2 / denominator) if denominator > 0 else math.nan


def max_min_fair_shares(demand: Values, total: float) -> np.ndarray:
    """Each demand's max-min fair share of ``total`` (water-filling, see the module)."""
    d = np.asarray(demand, dtype=float)
    order = np.argsort(d, kind="stable")
    ds = d[order]
    smaller = np.concatenate([[0.0], np.cumsum(ds)[:-1]])
    level = (total - smaller) / (len(ds) - np.arange(len(ds)))
    fits = np.nonzero(level <= ds)[0]
    return np.minimum(d, level[fits[0]]) if len(fits) else d


def fair_share_ratios(demand: Values, delivered: Values) -> np.ndarray:
    """delivered / its max-min fair share of everything delivered, per row (1 for a share of 0)."""
    x = np.asarray(delivered, dtype=float)
    share = max_min_fair_shares(demand, x.sum())
    return np.divide(x, share, out=np.ones_like(x), where=share > 0)


def jain_by_window(windows: pd.DataFrame) -> np.ndarray:
    """Jain's index per window (in window order) over the rows with ``demand_bytes`` > 0 of their
    :func:`fair_share_ratios` (``delivered_bytes`` against its share); NaN for a window without
    demand. :func:`kipviz.curves.consumer.fairness` computes it in Spark."""
    out = []
    for _, w in windows.groupby("window", sort=True):
        d = w["demand_bytes"].to_numpy(dtype=float)
        keep = d > 0
        out.append(jain_index(fair_share_ratios(d[keep], w["delivered_bytes"].to_numpy(
            dtype=float)[keep])) if keep.any() else math.nan)
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


def share_consumer_jain(consumers: pd.DataFrame, window_ms: int) -> np.ndarray:
    """Jain's index per window (in window order) over a share-group trace's share consumers, of
    the records each processed in the window: every consumer processes at the same rate, so the
    fair shares are equal; NaN for a window in which none processed a record. As
    :func:`kipviz.curves.share_group.share_group_curves` measures fairness across consumers."""
    share = consumers[consumers["group"] == "share"]
    table = pd.DataFrame({"window": share["time_ms"].to_numpy() // window_ms,
                          "consumer": share["consumer"].to_numpy(),
                          "processed": share["processed"].to_numpy(dtype=float)})
    per_consumer = table.groupby(["window", "consumer"], sort=True, as_index=False).sum()
    return np.asarray([jain_index(w["processed"].to_numpy())
                       for _, w in per_consumer.groupby("window", sort=True)])
