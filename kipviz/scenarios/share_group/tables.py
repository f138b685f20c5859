"""KIP-932 share-group runs as tables: a :class:`ShareGroupTrace` built from the kernel's (or
the SimPy reference's) delivery rows and per-tick arrays.

The schemas are :mod:`kipviz.scenarios.share_group`'s: ``deliveries`` (time_ms, consumer,
partition, acquired, redelivered, acknowledged; all-zero rows dropped), ``consumers`` (time_ms,
group, consumer, held_records, held_bytes, processed) and ``partitions`` (time_ms, partition,
log_end_offset, start_offset, in_flight_records, archived_records), with ``meta``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kipviz.scenarios.share_group.columns import DeliveryRows
from kipviz.scenarios.share_group.meta import ShareGroupMeta

__all__ = ["ShareGroupTrace", "delivery_rows", "trace_tables"]


@dataclass(frozen=True)
class ShareGroupTrace:
    """The tables of one run (schemas in the module docstring)."""

    deliveries: pd.DataFrame
    consumers: pd.DataFrame
    partitions: pd.DataFrame
    meta: ShareGroupMeta


def delivery_rows(acquired: np.ndarray, redelivered: np.ndarray,
                  acknowledged: np.ndarray) -> DeliveryRows:
    """The non-zero cells of per-tick ``[tick, consumer, partition]`` counts as the kernel's
    delivery rows (in tick, consumer, partition order), for a run that kept the counts dense
    (SimPy)."""
    _, c, p = acquired.shape
    at = np.flatnonzero(acquired | redelivered | acknowledged)  # row-major: the rows' order
    tc, pi = np.divmod(at, p)
    ti, ci = np.divmod(tc, c)
    return DeliveryRows(tick=ti, consumer=ci, partition=pi, acquired=acquired.ravel()[at],
                        redelivered=redelivered.ravel()[at],
                        acknowledged=acknowledged.ravel()[at])


def trace_tables(meta: ShareGroupMeta, rows: DeliveryRows, held: np.ndarray,
                 processed: np.ndarray, classic_consumed: np.ndarray,
                 part: dict[str, np.ndarray]) -> ShareGroupTrace:
    """The trace of a run with ``meta`` (its ``tick_ms`` and ``record_bytes`` scale the
    tables) from the delivery rows (:func:`delivery_rows`) and the per-tick arrays (shared by
    the kernel and SimPy runs), built without copies where it can (``copy=False``: pandas does
    not stack the columns into blocks)."""
    t, c = held.shape
    p = part["log_end_offset"].shape[1]
    time_ms = np.arange(t, dtype=np.int64) * meta["tick_ms"]
    deliveries = pd.DataFrame({
        "time_ms": rows.tick * meta["tick_ms"], "consumer": rows.consumer.astype(np.int32),
        "partition": rows.partition.astype(np.int32), "acquired": rows.acquired.copy(),
        "redelivered": rows.redelivered.copy(), "acknowledged": rows.acknowledged.copy()},
        copy=False)
    k = classic_consumed.shape[1]
    held_all = np.concatenate([held.ravel(), np.zeros(t * k, np.int64)])
    consumers = pd.DataFrame({  # the share group's rows, then the classic group's
        "time_ms": np.concatenate([np.repeat(time_ms, c), np.repeat(time_ms, k)]),
        "group": np.repeat(np.array(["share", "classic"], dtype=object), [t * c, t * k]),
        "consumer": np.concatenate([np.tile(np.arange(c, dtype=np.int32), t),
                                    np.tile(np.arange(k, dtype=np.int32), t)]),
        "held_records": held_all, "held_bytes": held_all * meta["record_bytes"],
        "processed": np.concatenate([processed.ravel(), classic_consumed.ravel()])}, copy=False)
    partitions = pd.DataFrame({
        "time_ms": np.repeat(time_ms, p), "partition": np.tile(np.arange(p, dtype=np.int32), t),
        **{name: values.ravel() for name, values in part.items()}}, copy=False)
    return ShareGroupTrace(deliveries, consumers, partitions, meta)
